package learn

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// BenchmarkFastEval compares one objective+gradient evaluation in exact
// mode (L = 30 or 50 unrolled iterations) and in fast mode (converged to
// the default tolerance, implicit gradient), cold (every evaluation from
// b = 1) and warm (alternating between two points 1% apart in x, each
// evaluation warm-started from the other's scalings, as successive
// L-BFGS trials are). Fast modes report their Sinkhorn and adjoint
// iterations per evaluation. Cases: the 2-D toy of TestCoarseToFineToy
// (17², t = 3e-3, 10 steps, L = 30) and seldovia2 at 16³ with the paper's
// colour settings (t = 1e-3, 20 steps, L = 50, L2, λ_s = 1; skipped without
// the reference data), e.g.
//
//	go test -run '^$' -bench 'BenchmarkFastEval/toy' -benchtime 5x ./learn/
func BenchmarkFastEval(b *testing.B) {
	type problem struct {
		g    *kernel.Graph
		seqs []Sequence
		cfg  Config
	}
	cases := []struct {
		name string
		make func(b *testing.B) problem
	}{
		{"toy17", func(b *testing.B) problem {
			heat := kernel.HeatOptions{T: 3e-3, Steps: 10}
			g, seqs, _ := recoveryData(b, 17, heat, 5, 30)
			return problem{g, seqs, Config{Heat: heat, Iterations: 30, LambdaS: 0.01, RegularizeOnce: true, SkipEndpoints: true}}
		}},
		{"seldovia2-16", func(b *testing.B) problem {
			frames := loadFrames(b, filepath.Join(dataDir(b), "seldovia2/hists16/hist-array-*.npy"), false)
			g, _ := kernel.Cube(3, 16)
			return problem{g, []Sequence{{Frames: frames}}, Config{Heat: kernel.HeatOptions{T: 1e-3, Steps: 20}, Iterations: 50, Loss: ot.L2, LambdaS: 1}}
		}},
	}
	for _, c := range cases {
		for _, mode := range []string{"exact", "fast-cold", "fast-warm"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				p := c.make(b)
				var fn Function
				var fast *FastObjective
				if mode == "exact" {
					o, err := NewObjective(p.g, p.seqs, &p.cfg)
					if err != nil {
						b.Fatal(err)
					}
					defer o.Close()
					fn = o
				} else {
					o, err := NewFastObjective(p.g, p.seqs, &p.cfg, &FastOptions{Sinkhorn: ot.FastSettings{Cold: mode == "fast-cold"}})
					if err != nil {
						b.Fatal(err)
					}
					defer o.Close()
					fn, fast = o, o
				}
				x0 := make([]float64, p.g.N()*len(p.g.Dims()))
				rng := rand.New(rand.NewPCG(1, 1))
				x1 := make([]float64, len(x0))
				for i := range x1 {
					x1[i] = 0.01 * (rng.Float64() - 0.5)
				}
				grad := make([]float64, len(x0))
				if _, err := fn.Eval(grad, x1); err != nil { // warm-up (and first warm state)
					b.Fatal(err)
				}
				var t0 FastTotals
				if fast != nil {
					t0 = fast.Totals()
				}
				k := 0
				for b.Loop() {
					x := x0
					if k%2 == 1 {
						x = x1
					}
					k++
					if _, err := fn.Eval(grad, x); err != nil {
						b.Fatal(err)
					}
				}
				if fast != nil && k > 0 {
					t1 := fast.Totals()
					b.ReportMetric(float64(t1.Sinkhorn-t0.Sinkhorn)/float64(k), "sinkhorn/op")
					b.ReportMetric(float64(t1.Adjoint-t0.Adjoint)/float64(k), "adjoint/op")
				}
			})
		}
	}
}
