//go:build cgo

package cholmod

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSolveWidth times SolveSteps (block kernel, 5 steps, iterates not
// kept) for blocks of 4 to 32 columns and reports the time per column and
// step (ns/colsolve) and per factor entry and triangular pass (ns/entry):
// on 2-D grids the cost per entry grows far slower than the width, and at
// 32³ (where the factor no longer fits in cache) it barely grows at all, so
// wide blocks are what make the solves cheap per column.
//
//	go test -run '^$' -bench 'SolveWidth/d=2,n=50/nesdis-simplicial' -benchtime 50x ./cholmod
func BenchmarkSolveWidth(b *testing.B) {
	const steps = 5
	forEach(b, func(b *testing.B, cc *Common, m matrix, a *Sparse, opt AnalyzeOptions) {
		for _, cols := range []int{4, 8, 12, 16, 20, 32} {
			b.Run(fmt.Sprint(cols), func(b *testing.B) {
				f := factorized(b, cc, a, opt)
				defer f.Free()
				rhs := randomBlock(m.n, cols, rand.New(rand.NewPCG(1, 1)))
				x := make([]float64, len(rhs))
				for b.Loop() {
					if err := f.SolveSteps(x, rhs, cols, steps, false, false); err != nil {
						b.Fatal(err)
					}
				}
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*steps)
				b.ReportMetric(ns/float64(cols), "ns/colsolve")
				b.ReportMetric(ns/float64(2*f.Info().NNZL), "ns/entry")
			})
		}
	})
}

// BenchmarkSolveParallel compares three ways of running SolveSteps (block
// kernel, 5 steps, 16 and 18 columns) on two cores: one thread
// ("serial"), SolveStepsParallel's split of the elimination tree ("tree"),
// and two concurrent SolveSteps calls on half of the columns each
// ("columns", how the heat kernel used both cores before).
//
//	go test -run '^$' -bench 'SolveParallel/d=3,n=32/nesdis-supernodal' -benchtime 5x ./cholmod
func BenchmarkSolveParallel(b *testing.B) {
	const steps = 5
	forEach(b, func(b *testing.B, cc *Common, m matrix, a *Sparse, opt AnalyzeOptions) {
		if opt.Ordering != OrderNESDIS {
			b.Skip("nested dissection only")
		}
		f := factorized(b, cc, a, opt)
		defer f.Free()
		b.Logf("tree splits: %v", f.TreeSplits())
		for _, cols := range []int{16, 18} {
			rhs := randomBlock(m.n, cols, rand.New(rand.NewPCG(1, 1)))
			x := make([]float64, len(rhs))
			half := cols / 2 * m.n
			for _, how := range []string{"serial", "tree", "columns"} {
				b.Run(fmt.Sprintf("%d/%s", cols, how), func(b *testing.B) {
					for b.Loop() {
						var err error
						switch how {
						case "serial":
							err = f.SolveSteps(x, rhs, cols, steps, false, false)
						case "tree":
							err = f.SolveStepsParallel(x, rhs, cols, steps, false, false)
						default:
							done := make(chan error)
							go func() { done <- f.SolveSteps(x[half:], rhs[half:], cols-cols/2, steps, false, false) }()
							err = errors.Join(f.SolveSteps(x[:half], rhs[:half], cols/2, steps, false, false), <-done)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	})
}
