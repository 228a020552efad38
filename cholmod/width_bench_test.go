package cholmod

import (
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
