package kernel

import (
	"fmt"
	"math"
	"sync"

	"github.com/gmlg/gmlg/kernel/factor"
	"gonum.org/v1/gonum/mat"
)

// DenseMaxN is the largest order the dense backend accepts.
const DenseMaxN = 6000

// Dense is a factor.Factorizer that stores the matrix densely and uses gonum's
// Cholesky. It is the test oracle and the fallback for small graphs; it
// refuses matrices larger than DenseMaxN. Its factors are
// factor.StepSolvers that run every chain serially, one column at a time.
type Dense struct{}

// Name returns "dense".
func (Dense) Name() string { return "dense" }

// Analyze validates the pattern; there is no symbolic phase.
func (Dense) Analyze(p *factor.Pattern, _ *factor.Options) (factor.Factor, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.N > DenseMaxN {
		return nil, fmt.Errorf("dense: order %d exceeds DenseMaxN=%d; use the cholmod or go backend", p.N, DenseMaxN)
	}
	return &denseFactor{p: p, a: mat.NewSymDense(p.N, nil)}, nil
}

type denseFactor struct {
	p      *factor.Pattern
	a      *mat.SymDense
	ch     mat.Cholesky
	ok     bool
	closed bool
	pool   sync.Pool // *[2]*mat.VecDense: Solve's column buffers
	chains sync.Pool // *[]float64: AdjointSteps's two chains
}

var _ factor.StepSolver = (*denseFactor)(nil)

func (f *denseFactor) Factorize(values []float64) error {
	f.check()
	if len(values) != f.p.NNZ() {
		panic(fmt.Sprintf("dense: Factorize: len(values)=%d, want %d", len(values), f.p.NNZ()))
	}
	f.a.Zero()
	for j := 0; j < f.p.N; j++ {
		for k := f.p.ColPtr[j]; k < f.p.ColPtr[j+1]; k++ {
			v := values[k]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("dense: Factorize: value %d is %v", k, v)
			}
			f.a.SetSym(f.p.RowIdx[k], j, v)
		}
	}
	f.ok = f.ch.Factorize(f.a)
	if !f.ok {
		// Locate the failing column with a plain left-looking pass.
		return &factor.NotPosDefError{Backend: "dense", Column: firstBadPivot(f.a)}
	}
	return nil
}

// firstBadPivot returns the first column whose Cholesky pivot is not positive.
func firstBadPivot(a *mat.SymDense) int {
	n := a.SymmetricDim()
	l := mat.NewDense(n, n, nil)
	for j := 0; j < n; j++ {
		s := a.At(j, j)
		for k := 0; k < j; k++ {
			s -= l.At(j, k) * l.At(j, k)
		}
		if !(s > 0) {
			return j
		}
		d := math.Sqrt(s)
		l.Set(j, j, d)
		for i := j + 1; i < n; i++ {
			t := a.At(i, j)
			for k := 0; k < j; k++ {
				t -= l.At(i, k) * l.At(j, k)
			}
			l.Set(i, j, t/d)
		}
	}
	return -1
}

func (f *denseFactor) Solve(dst, b []float64, cols int) error {
	f.check()
	n := f.p.N
	if len(dst) != n*cols || len(b) != n*cols {
		panic(fmt.Sprintf("dense: Solve: len(dst)=%d, len(b)=%d, want %d", len(dst), len(b), n*cols))
	}
	if !f.ok {
		return fmt.Errorf("dense: Solve before a successful Factorize")
	}
	bufs, _ := f.pool.Get().(*[2]*mat.VecDense)
	if bufs == nil {
		bufs = &[2]*mat.VecDense{mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)}
	}
	defer f.pool.Put(bufs)
	in, out := bufs[0], bufs[1]
	for k := 0; k < cols; k++ {
		copy(in.RawVector().Data, b[k*n:(k+1)*n])
		if err := f.ch.SolveVecTo(out, in); err != nil {
			return fmt.Errorf("dense: solve: %w", err)
		}
		copy(dst[k*n:(k+1)*n], out.RawVector().Data)
	}
	return nil
}

// SolveSteps applies A⁻¹ steps times to b (factor.StepSolver), one Solve
// after the other.
func (f *denseFactor) SolveSteps(out, b []float64, cols, steps int, keep, reverse bool) error {
	f.check()
	nb := f.p.N * cols
	want := nb
	if keep {
		want *= steps
	}
	if steps < 1 || len(b) != nb || len(out) != want {
		panic(fmt.Sprintf("dense: SolveSteps: len(out)=%d, len(b)=%d, cols=%d, steps=%d, N=%d", len(out), len(b), cols, steps, f.p.N))
	}
	prev := b
	for l := 1; l <= steps; l++ {
		cur := out[:nb]
		switch {
		case keep && reverse:
			cur = out[(steps-l)*nb : (steps-l+1)*nb]
		case keep:
			cur = out[(l-1)*nb : l*nb]
		}
		if err := f.Solve(cur, prev, cols); err != nil {
			return err
		}
		prev = cur
	}
	return nil
}

// AdjointSteps differentiates out = A⁻ˢ·src for the edge weights
// (factor.StepSolver): it keeps both chains, column-major, and adds each
// edge's products to gw[e] one by one, steps outer, columns inner; parallel
// is ignored.
func (f *denseFactor) AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, _ bool) error {
	f.check()
	n := f.p.N
	nb := n * cols
	if len(src) != nb || len(g) != nb || (gsrc != nil && len(gsrc) != nb) || len(from) != len(to) || len(gw) != len(from) {
		panic(fmt.Sprintf("dense: AdjointSteps: len(src)=%d, len(g)=%d, len(gsrc)=%d, N·cols=%d, %d/%d/%d edges",
			len(src), len(g), len(gsrc), nb, len(from), len(to), len(gw)))
	}
	buf, _ := f.chains.Get().(*[]float64)
	if buf == nil {
		buf = new([]float64)
	}
	defer f.chains.Put(buf)
	*buf = grow(*buf, 2*steps*nb)
	u, w := (*buf)[:steps*nb], (*buf)[steps*nb:]
	if err := f.SolveSteps(u, src, cols, steps, true, false); err != nil {
		return err
	}
	if err := f.SolveSteps(w, g, cols, steps, true, false); err != nil {
		return err
	}
	for e := range from {
		i, j := from[e], to[e]
		for l := 1; l <= steps; l++ {
			// u_l is block l−1 of u, w_{S−l+1} block S−l of w.
			ul, wl := u[(l-1)*nb:l*nb], w[(steps-l)*nb:(steps-l+1)*nb]
			for k := 0; k < nb; k += n {
				gw[e] += coef * (ul[k+i] - ul[k+j]) * (wl[k+i] - wl[k+j])
			}
		}
	}
	if gsrc != nil {
		copy(gsrc, w[(steps-1)*nb:])
	}
	return nil
}

// Workers is 1: every call runs on the caller's goroutine
// (factor.StepSolver).
func (f *denseFactor) Workers() int { return 1 }

func (f *denseFactor) Info() factor.Info {
	n := f.p.N
	return factor.Info{Backend: "dense", Ordering: "natural", NNZL: n * (n + 1) / 2}
}

func (f *denseFactor) Close() error {
	f.closed = true
	return nil
}

func (f *denseFactor) check() {
	if f.closed {
		panic("dense: factor used after Close")
	}
}
