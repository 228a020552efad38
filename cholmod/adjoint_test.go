//go:build cgo

package cholmod

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// TestAdjointSteps checks AdjointSteps against its definition computed from
// SolveSteps' column-major chains: the edge sums to 1e-12 of their largest
// magnitude (the two sum the same products in different orders), K·g to
// 1e-14 (the same solves; the tree split of SolveSteps adds the top rows'
// updates in another order), on a 2-D grid, a 3-D grid and a graph with
// several components, for one panel (3, 5, 6 and 20 columns) and two (40),
// S = 1, 2, 4 and 5 steps (the pairs are summed in two halves of the steps,
// whose bounds differ for odd S), both supernodal and simplicial. Two threads must give bitwise one thread's
// result, and gsrc = nil only skips K·g.
func TestAdjointSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n2, e2 := gridEdges(2, 9, rng)
	n3, e3 := gridEdges(3, 5, rng)
	ed := appendGrid(randomEdges(40, 90, rng), 40, 4, rng) // vertices 56..59 isolated
	cases := []struct {
		name string
		n    int
		es   []edge
	}{{"grid2d-9", n2, e2}, {"grid3d-5", n3, e3}, {"disconnected", 60, ed}}
	cc, err := NewCommon()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	for _, tc := range cases {
		m := laplacianSystem(tc.n, tc.es, 2)
		a := mustSparse(t, cc, m)
		from, to := endpoints(tc.es)
		for _, mode := range []Mode{Supernodal, Simplicial} {
			f := factorized(t, cc, a, AnalyzeOptions{Mode: mode, Kernel: BlockKernel})
			if !f.AdjointSupported() {
				t.Fatalf("%s %v: AdjointSupported false with the block kernel", tc.name, mode)
			}
			for _, c := range []struct{ cols, steps int }{{3, 4}, {20, 5}, {40, 4}, {5, 1}, {6, 2}} {
				cols, steps := c.cols, c.steps
				name := fmt.Sprintf("%s/%v/cols=%d/steps=%d", tc.name, mode, cols, steps)
				nb := tc.n * cols
				src := randomBlock(tc.n, cols, rand.New(rand.NewPCG(uint64(cols), 1)))
				g := randomBlock(tc.n, cols, rand.New(rand.NewPCG(uint64(cols), 2)))
				gw0 := randomBlock(len(from), 1, rand.New(rand.NewPCG(uint64(cols), 3)))
				const coef = -0.7

				u := make([]float64, steps*nb)
				w := make([]float64, steps*nb)
				if err := f.SolveSteps(u, src, cols, steps, true, false); err != nil {
					t.Fatal(err)
				}
				if err := f.SolveSteps(w, g, cols, steps, true, false); err != nil {
					t.Fatal(err)
				}
				want := append([]float64(nil), gw0...)
				var scale float64
				for e := range from {
					var s float64
					for l := 1; l <= steps; l++ {
						ul, wk := u[(l-1)*nb:l*nb], w[(steps-l)*nb:(steps-l+1)*nb] // u_l, w_{S−l+1}
						for c := 0; c < cols; c++ {
							i, j := c*tc.n+from[e], c*tc.n+to[e]
							s += (ul[i] - ul[j]) * (wk[i] - wk[j])
						}
					}
					want[e] += coef * s
					scale = math.Max(scale, math.Abs(coef*s))
				}

				var gws [2][]float64
				for th := 1; th <= 2; th++ {
					gw := append([]float64(nil), gw0...)
					gsrc := make([]float64, nb)
					if err := f.AdjointSteps(gsrc, gw, src, g, cols, steps, from, to, coef, th); err != nil {
						t.Fatal(err)
					}
					for e := range gw {
						if d := math.Abs(gw[e] - want[e]); !(d <= 1e-12*scale) {
							t.Fatalf("%s threads=%d: edge %d: %v, want %v (|Δ| %.3g, scale %.3g)", name, th, e, gw[e], want[e], d, scale)
						}
					}
					if d := relDiff(gsrc, w[(steps-1)*nb:]); !(d <= 1e-14) {
						t.Errorf("%s threads=%d: K·g differs by %.3g", name, th, d)
					}
					gws[th-1] = gw
				}
				for e := range gws[0] {
					if gws[0][e] != gws[1][e] {
						t.Fatalf("%s: edge %d: two threads %v, one %v", name, e, gws[1][e], gws[0][e])
					}
				}
				gw := append([]float64(nil), gw0...)
				if err := f.AdjointSteps(nil, gw, src, g, cols, steps, from, to, coef, 2); err != nil {
					t.Fatal(err)
				}
				for e := range gw {
					if gw[e] != gws[0][e] {
						t.Fatalf("%s: gsrc=nil changes edge %d: %v, want %v", name, e, gw[e], gws[0][e])
					}
				}
			}
			f.Free()
		}
	}
}

// TestAdjointStepsRefused checks AdjointSteps' refusals: the CHOLMOD solve
// kernel and an unfactorised factor give errors, bad lengths and edge
// endpoints panic; zero columns are no work, not an error.
func TestAdjointStepsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n, es := gridEdges(2, 4, rng)
	cc, a := systemOf(t, laplacianSystem(n, es, 1))
	from, to := []int{0, 1}, []int{1, 2}
	gw := make([]float64, 2)
	x := make([]float64, n)

	f, err := cc.Analyze(a, &AnalyzeOptions{Kernel: CHOLMODKernel})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Free()
	if f.AdjointSupported() {
		t.Error("AdjointSupported true with the CHOLMOD kernel")
	}
	if err := f.Factorize(a); err != nil {
		t.Fatal(err)
	}
	if err := f.AdjointSteps(nil, gw, x, x, 1, 2, from, to, 1, 1); err == nil {
		t.Error("AdjointSteps with the CHOLMOD kernel: no error")
	}

	fb, err := cc.Analyze(a, &AnalyzeOptions{Kernel: BlockKernel})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Free()
	if err := fb.AdjointSteps(nil, gw, x, x, 1, 2, from, to, 1, 1); err == nil {
		t.Error("AdjointSteps before Factorize: no error")
	}
	mustPanic(t, "short gw", func() { _ = fb.AdjointSteps(nil, gw[:1], x, x, 1, 2, from, to, 1, 1) })
	mustPanic(t, "endpoint out of range", func() { _ = fb.AdjointSteps(nil, gw, x, x, 1, 2, from, []int{1, n}, 1, 1) })
	mustPanic(t, "zero steps", func() { _ = fb.AdjointSteps(nil, gw, x, x, 1, 0, from, to, 1, 1) })
	if err := fb.Factorize(a); err != nil {
		t.Fatal(err)
	}
	// Zero columns, as with SolveSteps: no error, nothing added.
	if err := fb.AdjointSteps(nil, gw, nil, nil, 0, 2, from, to, 1, 2); err != nil || gw[0] != 0 || gw[1] != 0 {
		t.Errorf("AdjointSteps on zero columns: %v, gw %v", err, gw)
	}
}

// TestFundamentalSupernodes checks that a supernodal factor analysed for
// the block kernel stores no explicit zeros up to FundamentalMaxN (its
// exported entries are exactly nnz(L)), while one for CHOLMOD's own solve
// keeps CHOLMOD's relaxed amalgamation (more entries than nnz(L) on a 2-D
// grid), and that both solve the system.
func TestFundamentalSupernodes(t *testing.T) {
	n, es := gridEdges(2, 30, rand.New(rand.NewPCG(6, 6)))
	if n > FundamentalMaxN {
		t.Fatalf("the test grid (%d vertices) exceeds FundamentalMaxN", n)
	}
	m := laplacianSystem(n, es, 2)
	cc, a := systemOf(t, m)
	for _, k := range []SolveKernel{BlockKernel, CHOLMODKernel} {
		f := factorized(t, cc, a, AnalyzeOptions{Mode: Supernodal, Kernel: k})
		l, err := f.ExportL()
		if err != nil {
			t.Fatal(err)
		}
		stored, nnz := l.ColPtr[l.N], f.Info().NNZL
		if k == BlockKernel && stored != nnz || k == CHOLMODKernel && stored <= nnz {
			t.Errorf("%v kernel: %d entries stored for nnz(L) = %d", k, stored, nnz)
		}
		b := randomBlock(n, 3, rand.New(rand.NewPCG(7, 7)))
		x := make([]float64, len(b))
		if err := f.Solve(x, b, 3); err != nil {
			t.Fatal(err)
		}
		// κ(A) ≤ 1 + c·2·(max weighted degree) = 1 + 2·2·4·1.5 = 25 here, so
		// a backward-stable solve leaves a residual of a few ulp; 1e-13 is
		// headroom over that (the package's solve tests allow 1e-12 for
		// harder systems).
		if r := m.relResidual(x, b, 3); !(r <= 1e-13) {
			t.Errorf("%v kernel: relative residual %.3g", k, r)
		}
		f.Free()
	}
}

// systemOf returns a Common, closed when the test ends, and m in it.
func systemOf(t *testing.T, m matrix) (*Common, *Sparse) {
	t.Helper()
	cc, err := NewCommon()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc, mustSparse(t, cc, m)
}

// TestHelperThreadsFreed checks that the second thread the block kernel
// keeps between two-thread calls (one per workspace) ends when its factor
// is freed: a hundred factors, each used by two-thread adjoints and then
// freed, leave the process's thread count where it was (Linux: counted in
// /proc/self/task).
func TestHelperThreadsFreed(t *testing.T) {
	tasks := func() int {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Skipf("cannot count threads: %v", err)
		}
		return len(ents)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	n, es := gridEdges(2, 6, rng)
	from, to := endpoints(es)
	cc, a := systemOf(t, laplacianSystem(n, es, 0.5))
	src := randomBlock(n, 3, rng)
	gw := make([]float64, len(es))
	gsrc := make([]float64, len(src))
	run := func() {
		f := factorized(t, cc, a, AnalyzeOptions{Kernel: BlockKernel})
		defer f.Free()
		for range 3 {
			if err := f.AdjointSteps(gsrc, gw, src, src, 3, 4, from, to, 1, 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	run() // the Go runtime's own threads settle
	before := tasks()
	for range 100 {
		run()
	}
	// The Go runtime may start a thread or two of its own meanwhile (GC
	// workers, a template thread); a helper left behind per factor would
	// add a hundred.
	if after := tasks(); after > before+2 {
		t.Errorf("threads: %d before, %d after 100 factors used by two-thread adjoints and freed", before, after)
	}
}
