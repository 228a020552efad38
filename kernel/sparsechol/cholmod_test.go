//go:build cgo

package sparsechol

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/factor"
)

// withCHOLMOD is the cgo build's "cholmod" backend: this engine with
// CHOLMOD as its supplier.
var withCHOLMOD = Backend{Supplier: cholmod.Supplier{}}

// The benchmarks run CHOLMOD on one OpenBLAS thread, as package kernel's
// "cholmod" backend does; the count is process-wide, so the entry sets it
// when the benchmark asks for its options, right before Analyze.
func init() {
	benchBackends = append(benchBackends, benchBackend{"cholmod", withCHOLMOD, func(g []int) *factor.Options {
		cholmod.SetBLASThreads(1)
		return nil
	}})
}

// engineOrder is CHOLMOD as a supplier, ordering as the engine does, so
// that both backends lay L out the same way.
type engineOrder struct{ cholmod.Supplier }

func (engineOrder) Order(p *factor.Pattern, opt *factor.Options) ([]int, string, error) {
	return Order(p, opt)
}

// TestSuppliedFactor checks CHOLMOD's L, copied into the engine's layout,
// against the engine's own factorisation of the same pivot order, entry
// by entry, and the solutions of the "cholmod" backend against CHOLMOD's
// own solve (cholmod_solve2), an independent path.
func TestSuppliedFactor(t *testing.T) {
	t.Parallel()
	for _, tc := range testCases() {
		opt := &factor.Options{Grid: tc.m.grid}
		factorized := func(fz factor.Factorizer) *chol {
			f, err := fz.Analyze(tc.m.pat, opt)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, fz.Name(), err)
			}
			t.Cleanup(func() { f.Close() })
			if err := f.Factorize(tc.m.val); err != nil {
				t.Fatalf("%s %s: %v", tc.name, fz.Name(), err)
			}
			return f.(*chol)
		}
		own := factorized(Backend{})
		sup := factorized(Backend{Supplier: engineOrder{}})
		if len(own.num.lx) != len(sup.num.lx) {
			t.Fatalf("%s: layouts of %d and %d values", tc.name, len(own.num.lx), len(sup.num.lx))
		}
		// The same matrix factorised by two codes in another order of
		// operations: a few ulps of L's largest entry, on these well
		// conditioned I + cL systems.
		if diff, scale := maxDiff(sup.num.lx, own.num.lx); !(diff <= 1e-13*scale) {
			t.Errorf("%s: max |L_go − L_cholmod| = %g, max |L| = %g", tc.name, diff, scale)
		}

		n := tc.m.pat.N
		const cols = 6
		b := randomBlock(rand.New(rand.NewPCG(11, 11)), n*cols)
		x := make([]float64, n*cols)
		if err := factorized(withCHOLMOD).Solve(x, b, cols); err != nil {
			t.Fatal(err)
		}
		// Two orderings and two solve codes: round-off only. Each solve's
		// residual is under 1e-12 (TestSolveResidual); 1e-11 leaves room
		// for the conditioning of these I + cL systems.
		want := cholmodSolve(t, tc.m, b, cols)
		if r := relDiff(x, want); !(r <= 1e-11) {
			t.Errorf("%s: ‖x − x_cholmod_solve2‖/‖x_cholmod_solve2‖ = %g > 1e-11", tc.name, r)
		}
	}
}

// cholmodSolve solves with package cholmod alone.
func cholmodSolve(t *testing.T, m *testMatrix, b []float64, cols int) []float64 {
	cc, err := cholmod.NewCommon()
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	a, err := cc.NewSparse(m.pat.N, m.pat.ColPtr, m.pat.RowIdx, m.val)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cc.Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Factorize(a); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(b))
	if err := f.Solve(x, b, cols); err != nil {
		t.Fatal(err)
	}
	return x
}

// TestSuppliedInfo checks what the "cholmod" backend reports: its name,
// the engine's kernels, and the ordering: CHOLMOD's for a general graph,
// the engine's geometric nested dissection for a grid.
func TestSuppliedInfo(t *testing.T) {
	m := testCases()[1].m
	for _, tc := range []struct {
		opt      *factor.Options
		ordering string
	}{{nil, "nesdis"}, {&factor.Options{Grid: m.grid}, "nd-geometric"}} {
		f, err := withCHOLMOD.Analyze(m.pat, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		in := f.Info()
		if in.Backend != "cholmod" || in.Ordering != tc.ordering || in.Kernels != SolveKernels() || in.NNZL < m.pat.N {
			t.Errorf("Info() = %+v, want ordering %s", in, tc.ordering)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
}

// TestNotPosDefAgrees checks that both backends name the same column when
// only one pivot can fail, and that the "cholmod" backend solves again
// after a failed factorisation is followed by a good one.
func TestNotPosDefAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 12))
	n, es := gridEdges(rng, 7, 6)
	m := heatMatrix(n, es, 1)
	val := append([]float64(nil), m.val...)
	val[m.pat.ColPtr[23]] = -50
	for _, fz := range []factor.Factorizer{Backend{}, withCHOLMOD} {
		f, err := fz.Analyze(m.pat, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = f.Factorize(val)
		var npd *factor.NotPosDefError
		if !errors.As(err, &npd) || npd.Column != 23 {
			t.Errorf("%s: got %v, want a NotPosDefError at column 23", fz.Name(), err)
		}
		x := make([]float64, n)
		if err := f.Solve(x, x, 1); err == nil {
			t.Errorf("%s: Solve after a failed Factorize succeeded", fz.Name())
		}
		if err := f.Factorize(m.val); err != nil {
			t.Errorf("%s: Factorize after a failure: %v", fz.Name(), err)
		}
		b := randomBlock(rng, n)
		if err := f.Solve(x, b, 1); err != nil {
			t.Errorf("%s: Solve after a failure: %v", fz.Name(), err)
		}
		f.Close()
	}
}
