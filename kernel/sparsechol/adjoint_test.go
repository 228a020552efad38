package sparsechol

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
)

// TestAdjointPaired checks that AdjointSteps on one worker, which solves
// its two chains as one block (adjointPaired), gives bitwise the results
// of the two chains solved apart (parallel, each on one goroutine), on
// every kernel family of the processor, for odd and even S (the middle
// pair), with and without gsrc; and that a chain that is not finite is an
// error there too.
func TestAdjointPaired(t *testing.T) {
	defer func(avx, wide bool) { useAVX, useWide = avx, wide }(useAVX, useWide)
	type family struct{ avx, wide bool }
	fams := []family{{false, false}}
	if useAVX {
		fams = append(fams, family{true, false})
	}
	if useWide {
		fams = append(fams, family{true, true})
	}
	for _, fam := range fams {
		useAVX, useWide = fam.avx, fam.wide
		t.Run(SolveKernels(), func(t *testing.T) {
			for _, tc := range testCases() {
				f := factorCase(t, tc, 1)
				n := tc.m.pat.N
				from, to := patternEdges(tc.m.pat)
				// Widths of every row layout a chain may have (4, 8, 16
				// values with padding), up to 16 columns, the widest a
				// chain pairs at with AVX-512 (rows of 32 values).
				for _, cols := range []int{1, 3, 6, 8, 13, 16} {
					if !pairable(cols) {
						t.Fatalf("%d columns: not paired", cols)
					}
					for steps := 1; steps <= 4; steps++ {
						name := fmt.Sprintf("%s/cols=%d/steps=%d", tc.name, cols, steps)
						rng := rand.New(rand.NewPCG(uint64(cols), uint64(steps)))
						b, g := randomBlock(rng, n*cols), randomBlock(rng, n*cols)
						var gsrc [2][]float64
						var gw [2][]float64
						for k, parallel := range []bool{false, true} {
							if steps%2 == 0 {
								gsrc[k] = make([]float64, n*cols)
							}
							gw[k] = make([]float64, len(from))
							if err := f.(factor.StepSolver).AdjointSteps(gsrc[k], gw[k], b, g, cols, steps, from, to, 0.5, parallel); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
						}
						if i := firstBitDiff(gsrc[0], gsrc[1]); i >= 0 {
							t.Errorf("%s: gsrc[%d] = %.17g paired, %.17g apart", name, i, gsrc[0][i], gsrc[1][i])
						}
						if i := firstBitDiff(gw[0], gw[1]); i >= 0 {
							t.Errorf("%s: gw[%d] = %.17g paired, %.17g apart", name, i, gw[0][i], gw[1][i])
						}
					}
				}
				// A NaN in either block reaches the sums or gsrc: an error
				// (src reaches nothing on a graph without edges).
				const cols = 6
				for k := range 2 {
					if k == 0 && len(from) == 0 {
						continue
					}
					rng := rand.New(rand.NewPCG(7, 7))
					b, g := randomBlock(rng, n*cols), randomBlock(rng, n*cols)
					[][]float64{b, g}[k][n*cols/2] = math.NaN()
					gw := make([]float64, len(from))
					err := f.(factor.StepSolver).AdjointSteps(make([]float64, n*cols), gw, b, g, cols, 3, from, to, 1, false)
					if err == nil {
						t.Errorf("%s: a NaN in %s: no error", tc.name, []string{"src", "g"}[k])
					}
				}
				f.Close()
			}
		})
	}
}
