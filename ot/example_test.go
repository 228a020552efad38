package ot_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/gmlg/gmlg/ot"
)

// gibbs1D is a dense Gibbs kernel exp(−(x_i−x_j)²/ε) on n points of [0,1].
type gibbs1D struct {
	n int
	k []float64
}

func newGibbs1D(n int, eps float64) *gibbs1D {
	g := &gibbs1D{n: n, k: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d := float64(i-j) / float64(n-1)
			g.k[i*n+j] = math.Exp(-d * d / eps)
		}
	}
	return g
}

func (g *gibbs1D) Size() int { return g.n }

func (g *gibbs1D) Apply(dst, src []float64, cols int) error {
	n := g.n
	for c := 0; c < cols; c++ {
		for i := 0; i < n; i++ {
			var s float64
			for j := 0; j < n; j++ {
				s += g.k[i*n+j] * src[c*n+j]
			}
			dst[c*n+i] = s
		}
	}
	return nil
}

// spaced is a tiny differentiable kernel: a Gibbs kernel
// exp(−(x_i−x_j)²/ε) on points of a line whose spacings θ_e = x_{e+1} − x_e
// are the parameters.
type spaced struct {
	eps      float64
	theta, x []float64
}

func (k *spaced) Size() int      { return len(k.theta) + 1 }
func (k *spaced) NumParams() int { return len(k.theta) }

func (k *spaced) positions() {
	k.x = append(k.x[:0], 0)
	for e, t := range k.theta {
		k.x = append(k.x, k.x[e]+t)
	}
}

func (k *spaced) Apply(dst, src []float64, cols int) error {
	k.positions()
	n := k.Size()
	for c := 0; c < cols; c++ {
		for i := 0; i < n; i++ {
			var s float64
			for j := 0; j < n; j++ {
				d := k.x[i] - k.x[j]
				s += math.Exp(-d*d/k.eps) * src[c*n+j]
			}
			dst[c*n+i] = s
		}
	}
	return nil
}

// Adjoint: ∂(x_i−x_j)/∂θ_e = [e<i] − [e<j].
func (k *spaced) Adjoint(gsrc, gparam, src, gdst []float64, cols int) error {
	if gsrc != nil {
		_ = k.Apply(gsrc, gdst, cols) // K is symmetric
	}
	k.positions()
	n := k.Size()
	for c := 0; c < cols; c++ {
		s, g := src[c*n:(c+1)*n], gdst[c*n:(c+1)*n]
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				d := k.x[i] - k.x[j]
				dij := g[i] * s[j] * math.Exp(-d*d/k.eps) * (-2 * d / k.eps)
				for e := j; e < i; e++ { // i > j: θ_j..θ_{i−1} lie between
					gparam[e] += dij
				}
				for e := i; e < j; e++ {
					gparam[e] -= dij
				}
			}
		}
	}
	return nil
}

func argmax(v []float64) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

func ExampleBarycenter() {
	const n = 21
	k := newGibbs1D(n, 0.005)
	p0, p1 := make([]float64, n), make([]float64, n)
	p0[4], p1[16] = 1, 1 // Diracs at x = 0.2 and x = 0.8
	res, err := ot.Barycenter(k, [][]float64{p0, p1}, &ot.BarycenterSettings{
		Weights:    []float64{0.75, 0.25},
		Iterations: 500,
		Tol:        1e-9,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var mass, mean float64
	for i, v := range res.Bary {
		mass += v
		mean += v * float64(i) / (n - 1)
	}
	fmt.Printf("converged: %v\n", res.Converged)
	fmt.Printf("peak at x = %.2f, mean %.4f, mass %.4f\n", float64(argmax(res.Bary))/(n-1), mean/mass, mass)
	// Output:
	// converged: true
	// peak at x = 0.35, mean 0.3500, mass 1.0000
}

func ExampleInterpolator() {
	const n = 21
	k := newGibbs1D(n, 0.005)
	src, tgt := make([]float64, n), make([]float64, n)
	for i := range src {
		src[i], tgt[i] = 1e-3, 1e-3 // a floor keeps the kernel from underflowing
	}
	src[3], tgt[17] = 1, 1
	ip, err := ot.NewInterpolator(k, []ot.Sequence{
		{Source: src, Target: tgt, Frames: 5},                  // t = 0, 0.25, 0.5, 0.75, 1
		{Source: tgt, Target: src, Times: []float64{0.1, 0.6}}, // any times in [0, 1]
	}, &ot.Settings{Iterations: 100, ForwardOnly: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, e := ip.Columns()
	fmt.Printf("interior block N×C = %d×%d, %d endpoint frames\n", ip.Size(), c, e)
	recs, err := ip.Forward()
	if err != nil {
		fmt.Println(err)
		return
	}
	for s := range recs {
		for j, r := range recs[s] {
			fmt.Printf("sequence %d frame %d: peak at %d\n", s, j, argmax(r))
		}
	}
	// Output:
	// interior block N×C = 21×10, 2 endpoint frames
	// sequence 0 frame 0: peak at 3
	// sequence 0 frame 1: peak at 7
	// sequence 0 frame 2: peak at 10
	// sequence 0 frame 3: peak at 13
	// sequence 0 frame 4: peak at 17
	// sequence 1 frame 0: peak at 16
	// sequence 1 frame 1: peak at 9
}

// The same interpolation under three models: L = 20 iterations with the
// endpoint frames in closed form, K·(P/K·1) (the learner's); the same with
// the endpoints run through the loop (the reference's colour
// interpolation), equal to round-off; and the converged barycenters, which
// the fixed-L ones approach as L grows.
func ExampleInterpolate() {
	const n = 21
	k := newGibbs1D(n, 0.005)
	src, tgt := make([]float64, n), make([]float64, n)
	for i := range src {
		src[i], tgt[i] = 1e-3, 1e-3
	}
	src[3], tgt[17] = 1, 1
	seqs := []ot.Sequence{{Source: src, Target: tgt, Frames: 5}}
	for _, s := range []*ot.Settings{
		{Iterations: 20},
		{Iterations: 20, IterateEndpoints: true},
		{Tol: 1e-10, Anderson: 3},
	} {
		recs, err := ot.Interpolate(k, seqs, s)
		if err != nil {
			fmt.Println(err)
			return
		}
		var peaks []int
		for _, r := range recs[0] {
			peaks = append(peaks, argmax(r))
		}
		fmt.Printf("peaks %v, first frame at 3: %.4f, middle frame at 10: %.4f\n", peaks, recs[0][0][3], recs[0][2][10])
	}
	// Output:
	// peaks [3 7 10 13 17], first frame at 3: 0.3996, middle frame at 10: 0.3954
	// peaks [3 7 10 13 17], first frame at 3: 0.3996, middle frame at 10: 0.3954
	// peaks [3 7 10 13 17], first frame at 3: 0.3996, middle frame at 10: 0.3958
}

func ExampleLinear() {
	fmt.Println(ot.Linear([]float64{1, 0}, []float64{0, 1}, ot.Linspace(3)))
	// Output:
	// [[1 0] [0.5 0.5] [0 1]]
}

// The gradient of a data term with respect to the kernel parameters, checked
// here against a central finite difference.
func ExampleInterpolator_Backward() {
	const n = 8
	theta := []float64{0.14, 0.12, 0.16, 0.14, 0.13, 0.15, 0.14}
	k := &spaced{eps: 0.05, theta: theta}
	src := []float64{0.4, 0.3, 0.1, 0.05, 0.05, 0.04, 0.03, 0.03}
	tgt := []float64{0.03, 0.03, 0.04, 0.05, 0.05, 0.1, 0.3, 0.4}
	obs := []float64{0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05}
	ip, err := ot.NewInterpolator(k, []ot.Sequence{{Source: src, Target: tgt, Times: []float64{0.5}}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	grec := [][][]float64{{make([]float64, n)}}
	loss := func() float64 {
		recs, err := ip.Forward()
		if err != nil {
			panic(err)
		}
		v, err := ot.L2.Eval(grec[0][0], recs[0][0], obs)
		if err != nil {
			panic(err)
		}
		return v
	}
	f := loss()
	gtheta := make([]float64, k.NumParams())
	if err := ip.Backward(gtheta, grec); err != nil {
		fmt.Println(err)
		return
	}
	const h = 1e-6
	theta[3] += h
	fp := loss()
	theta[3] -= 2 * h
	fm := loss()
	theta[3] += h
	fmt.Printf("loss %.6f\n", f)
	fmt.Printf("reverse pass ∂loss/∂θ[3] = %.6f\n", gtheta[3])
	fmt.Printf("finite diff. ∂loss/∂θ[3] = %.6f\n", (fp-fm)/(2*h))
	// Output:
	// loss 0.005775
	// reverse pass ∂loss/∂θ[3] = 0.107361
	// finite diff. ∂loss/∂θ[3] = 0.107361
}

func ExampleLinspace() {
	fmt.Println(ot.Linspace(4))
	fmt.Println(ot.Linspace(11)[3]) // numpy.linspace semantics: 3·fl(0.1)
	// Output:
	// [0 0.3333333333333333 0.6666666666666666 1]
	// 0.30000000000000004
}

func ExampleLoss_Eval() {
	p := []float64{0.5, 0.25, 0.25} // reconstruction
	q := []float64{0.25, 0.25, 0.5} // observation
	grad := make([]float64, 3)
	for _, l := range []ot.Loss{ot.L2, ot.L1, ot.KL} {
		v, err := l.Eval(grad, p, q)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %.4f %.4f\n", l, v, grad)
	}
	_, err := ot.KL.Eval(grad, p, []float64{0.5, 0.5, 0})
	fmt.Println(errors.Is(err, ot.ErrNonFinite))
	// Output:
	// l2: 0.3750 [1.5000 0.0000 -1.5000]
	// l1: 0.5000 [1.0000 0.0000 -1.0000]
	// kl: 0.1733 [0.6931 0.0000 -0.6931]
	// true
}

func ExampleParseLoss() {
	l, err := ot.ParseLoss("kl")
	fmt.Println(l, err)
	_, err = ot.ParseLoss("w2")
	fmt.Println(err)
	// Output:
	// kl <nil>
	// ot: unknown loss "w2" (want l2, l1 or kl)
}

// A kernel too narrow for the data underflows; the error says where and
// what to change.
func ExampleNonFiniteError() {
	const n = 30
	k := newGibbs1D(n, 1e-4)
	left, right := make([]float64, n), make([]float64, n)
	left[0], right[n-1] = 1, 1
	ip, err := ot.NewInterpolator(k, []ot.Sequence{{Source: left, Target: right, Frames: 3}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = ip.Forward()
	var nf *ot.NonFiniteError
	if errors.As(err, &nf) {
		fmt.Println(errors.Is(err, ot.ErrNonFinite), nf.Sequence, nf.Frame, nf.Iteration)
		fmt.Println(err)
	}
	// Output:
	// true 0 1 1
	// ot: forward: non-finite or vanishing value in sequence 0 frame 1 at Sinkhorn iteration 1: the kernel underflowed: increase the diffusion time t (t_heat), lower the number of Sinkhorn iterations, or add a floor to the histograms
}
