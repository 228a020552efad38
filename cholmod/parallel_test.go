//go:build cgo

package cholmod

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSolveStepsParallel checks that SolveStepsParallel gives bitwise the
// iterates of SolveSteps (which follows the same tree split on one thread)
// and that both agree with repeated cholmod_solve2 solves, for every test
// matrix, ordering and factor kind, with and without keep, across the
// 32-column panel boundary; and that the tree splits where it should: grids
// under nested dissection, and a graph of two equal components (a forest,
// no top part), but not a chain (a 1-D path in its natural order).
func TestSolveStepsParallel(t *testing.T) {
	const steps = 4
	rng := rand.New(rand.NewPCG(3, 3))
	_, g1 := gridEdges(2, 7, rng)
	twin := slices.Clone(g1)
	for _, e := range g1 {
		twin = append(twin, edge{e.u + 49, e.v + 49, e.w})
	}
	var path []edge
	for i := 0; i+1 < 60; i++ {
		path = append(path, edge{i, i + 1, 1})
	}
	mats := testMatrices()
	mats = append(mats, struct {
		name string
		m    matrix
	}{"twin-grids", laplacianSystem(98, twin, 3)}, struct {
		name string
		m    matrix
	}{"path", laplacianSystem(60, path, 2)})
	mustSplit := map[string]bool{
		"grid2d-12/nesdis": true, "grid3d-6/nesdis": true, "twin-grids/nesdis": true, "twin-grids/natural": true,
	}
	for _, tc := range mats {
		t.Run(tc.name, func(t *testing.T) {
			cc, err := NewCommon()
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			a := mustSparse(t, cc, tc.m)
			n := tc.m.n
			for _, ord := range []Ordering{OrderNatural, OrderAMD, OrderNESDIS} {
				for _, mode := range []Mode{Simplicial, Supernodal} {
					opt := AnalyzeOptions{Ordering: ord, Mode: mode}
					f := factorized(t, cc, a, opt)
					opt.Kernel = CHOLMODKernel
					ref := factorized(t, cc, a, opt)
					key := fmt.Sprintf("%s/%v", tc.name, ord)
					if split := f.TreeSplits(); mustSplit[key] && !split {
						t.Errorf("%v/%v: the tree does not split", ord, mode)
					} else if tc.name == "path" && split {
						t.Errorf("%v/%v: a path's tree splits", ord, mode)
					}
					for _, cols := range []int{1, 7, 20, 45} {
						nb := n * cols
						b := randomBlock(n, cols, rand.New(rand.NewPCG(uint64(cols), 5)))
						want := repeatedSolves(t, ref, b, cols, steps)
						for _, keep := range []bool{false, true} {
							size := nb
							if keep {
								size = steps * nb
							}
							one, two := make([]float64, size), make([]float64, size)
							if err := f.SolveSteps(one, b, cols, steps, keep, keep); err != nil {
								t.Fatal(err)
							}
							if err := f.SolveStepsParallel(two, b, cols, steps, keep, keep); err != nil {
								t.Fatal(err)
							}
							name := fmt.Sprintf("%v/%v/cols=%d/keep=%v", ord, mode, cols, keep)
							if !slices.Equal(one, two) {
								t.Errorf("%s: SolveStepsParallel differs from SolveSteps", name)
							}
							last := one
							if keep {
								last = one[:nb] // reverse: block 0 holds the last iterate
							}
							if d := relDiff(last, want[(steps-1)*nb:]); !(d <= 1e-13) {
								t.Errorf("%s: differs from cholmod_solve2 by %.3g", name, d)
							}
						}
					}
					f.Free()
					ref.Free()
				}
			}
		})
	}
}

// TestWaitsThatSleep reruns the two-thread tests with no spinning, so that
// every wait of one solve thread for the other sleeps on its futex: the
// results must be the same (bitwise between one and two threads) and
// nothing may hang.
func TestWaitsThatSleep(t *testing.T) {
	setSpins(0)
	defer setSpins(4000)
	t.Run("SolveStepsParallel", TestSolveStepsParallel)
	t.Run("AdjointSteps", TestAdjointSteps)
}

// TestVectorWidth checks that VectorWidth reports the vectors that
// gl_wide chose: 8 doubles exactly where the processor has AVX-512 F and
// VL (read from /proc/cpuinfo where it exists), 4 elsewhere.
func TestVectorWidth(t *testing.T) {
	w := VectorWidth()
	if w != 4 && w != 8 {
		t.Fatalf("VectorWidth() = %d, want 4 or 8", w)
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo to check against")
	}
	flags := strings.Fields(string(info))
	want := 4
	if slices.Contains(flags, "avx512f") && slices.Contains(flags, "avx512vl") {
		want = 8
	}
	if w != want {
		t.Errorf("VectorWidth() = %d, /proc/cpuinfo says %d", w, want)
	}
}
