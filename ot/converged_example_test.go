package ot_test

import (
	"fmt"

	"github.com/gmlg/gmlg/ot"
)

// In tolerance mode an Interpolator iterates to convergence, warm-starts
// from the previous call and differentiates the fixed point implicitly; its
// gradient is that of the converged loss, checked here against a central
// finite difference.
func ExampleInterpolator_tolerance() {
	const n = 8
	theta := []float64{0.14, 0.12, 0.16, 0.14, 0.13, 0.15, 0.14}
	k := &spaced{eps: 0.05, theta: theta}
	src := []float64{0.4, 0.3, 0.1, 0.05, 0.05, 0.04, 0.03, 0.03}
	tgt := []float64{0.03, 0.03, 0.04, 0.05, 0.05, 0.1, 0.3, 0.4}
	obs := []float64{0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05}
	fi, err := ot.NewInterpolator(k, []ot.Sequence{{Source: src, Target: tgt, Times: []float64{0.5}}},
		&ot.Settings{Tol: 1e-13})
	if err != nil {
		fmt.Println(err)
		return
	}
	grec := [][][]float64{{make([]float64, n)}}
	loss := func() float64 {
		recs, err := fi.Forward()
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
	cold := fi.Stats()
	gtheta := make([]float64, k.NumParams())
	if err := fi.Backward(gtheta, grec); err != nil {
		fmt.Println(err)
		return
	}
	var start ot.WarmStart
	fi.SaveWarm(&start)
	const h = 1e-6
	theta[3] += h
	fp := loss()
	warm := fi.Stats()
	theta[3] -= 2 * h
	fm := loss()
	theta[3] += h
	fi.LoadWarm(&start) // back to the scalings at θ
	fmt.Printf("loss %.6f (converged: %v)\n", f, cold.Converged)
	fmt.Printf("implicit ∂loss/∂θ[3]     = %.6f\n", gtheta[3])
	fmt.Printf("finite diff. ∂loss/∂θ[3] = %.6f\n", (fp-fm)/(2*h))
	fmt.Printf("warm start needs fewer iterations: %v\n", warm.Iterations < cold.Iterations)
	// Output:
	// loss 0.005775 (converged: true)
	// implicit ∂loss/∂θ[3]     = 0.107361
	// finite diff. ∂loss/∂θ[3] = 0.107361
	// warm start needs fewer iterations: true
}
