package color_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot"
)

// sunsetSequence returns f synthetic colour histograms on n³ bins: a
// Gaussian blob (σ = 0.12) moving from a warm day colour to a dark night
// blue, with the reference's 1e-6·max/N floor, each summing to 1.
func sunsetSequence(n, f int) [][]float64 {
	N := n * n * n
	out := make([][]float64, f)
	for k := range f {
		s := float64(k) / float64(f-1)
		c := [3]float64{0.75 - 0.6*s, 0.6 - 0.5*s, 0.4 - 0.15*s} // R, G, B
		h := make([]float64, N)
		peak := 0.0
		for r := range n {
			for g := range n {
				for b := range n {
					x := [3]float64{(float64(r) + 0.5) / float64(n), (float64(g) + 0.5) / float64(n), (float64(b) + 0.5) / float64(n)}
					d := (x[0]-c[0])*(x[0]-c[0]) + (x[1]-c[1])*(x[1]-c[1]) + (x[2]-c[2])*(x[2]-c[2])
					v := math.Exp(-d / (2 * 0.12 * 0.12))
					h[(r*n+g)*n+b] = v
					peak = max(peak, v)
				}
			}
		}
		sum := 0.0
		for i := range h {
			h[i] += 1e-6 * peak / float64(N)
			sum += h[i]
		}
		for i := range h {
			h[i] /= sum
		}
		out[k] = h
	}
	return out
}

// BenchmarkLearnEval measures one evaluation of the colour-learning
// objective and its gradient (the bulk of one L-BFGS iteration, which takes
// 1.1–1.7 evaluations) with the paper's colour settings: 10 frames, L = 50
// Sinkhorn iterations, t = 1e-3, 20 heat steps, λ_s = 1, the default
// backend. The paper reports about 13 minutes per iteration and 10.9 GB at
// 32³. Run one size per process to read its peak memory from the OS:
//
//	go test -c -o color.test ./ot/color
//	/usr/bin/time -v ./color.test -test.run '^$' -test.bench 'LearnEval/n=32' -test.benchtime 1x
func BenchmarkLearnEval(b *testing.B) {
	for _, n := range []int{16, 32} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			g, err := kernel.Cube(3, n)
			if err != nil {
				b.Fatal(err)
			}
			obj, err := learn.NewObjective(g, []learn.Sequence{{Frames: sunsetSequence(n, 10)}}, &learn.Config{
				Heat: kernel.HeatOptions{T: 1e-3, Steps: 20}, Sinkhorn: ot.Settings{Iterations: 50}, LambdaS: 1,
			})
			if err != nil {
				b.Fatal(err)
			}
			defer obj.Close()
			x := make([]float64, obj.Dim())
			for i := range x {
				x[i] = 0.1 * math.Sin(0.37*float64(i)) // a non-constant metric
			}
			grad := make([]float64, obj.Dim())
			b.ResetTimer()
			for range b.N {
				if _, err := obj.Eval(grad, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
