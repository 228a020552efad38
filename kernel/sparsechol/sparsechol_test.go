package sparsechol

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gmlg/gmlg/kernel/factor"
)

type testCase struct {
	name string
	m    *testMatrix
}

func testCases() []testCase {
	rng := rand.New(rand.NewPCG(1, 1))
	var cs []testCase
	for _, g := range []struct {
		dims []int
		c    float64
	}{
		{[]int{12, 9}, 0.5},
		{[]int{30, 30}, 10},
		{[]int{6, 5, 4}, 1},
		{[]int{10, 10, 10}, 3},
		{[]int{2, 2}, 0.01},
		{[]int{40}, 1},      // a 1-D grid
		{[]int{1, 9, 5}, 1}, // an axis of extent 1
	} {
		n, es := gridEdges(rng, g.dims...)
		m := heatMatrix(n, es, g.c)
		m.grid = g.dims
		cs = append(cs, testCase{fmt.Sprintf("grid%v", g.dims), m})
	}
	// A random connected-ish graph, a disconnected one, a path and a
	// single vertex.
	cs = append(cs, testCase{"random", heatMatrix(300, randomEdges(rng, 300, 5), 2)})
	// Two copies of a random graph plus 50 isolated vertices.
	var dis []edge
	for _, e := range randomEdges(rng, 100, 4) {
		dis = append(dis, e, edge{e.i + 100, e.j + 100, e.w})
	}
	cs = append(cs, testCase{"disconnected", heatMatrix(250, dis, 1)})
	var path []edge
	for i := 0; i+1 < 500; i++ {
		path = append(path, edge{i, i + 1, 1 + float64(i%3)})
	}
	cs = append(cs, testCase{"path", heatMatrix(500, path, 5)})
	cs = append(cs, testCase{"single", heatMatrix(1, nil, 1)})
	return cs
}

func TestSolveResidual(t *testing.T) {
	t.Parallel()
	for _, tc := range testCases() {
		for _, o := range []factor.Ordering{factor.OrderingDefault, factor.OrderingNatural, factor.OrderingAMD, factor.OrderingNestedDissection} {
			for _, threads := range []int{1, 2, 3} {
				name := fmt.Sprintf("%s/%v/threads=%d", tc.name, o, threads)
				f, err := Backend{}.Analyze(tc.m.pat, &factor.Options{Ordering: o, Grid: tc.m.grid, Threads: threads})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := f.Factorize(tc.m.val); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				rng := rand.New(rand.NewPCG(2, 2))
				for _, cols := range []int{1, 3, 8, 13, 20} {
					n := tc.m.pat.N
					b := randomBlock(rng, n*cols)
					x := make([]float64, n*cols)
					if err := f.Solve(x, b, cols); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if r := tc.m.relResidual(x, b, cols); !(r <= 1e-12) {
						t.Errorf("%s cols=%d: relative residual %g > 1e-12", name, cols, r)
					}
				}
				f.Close()
			}
		}
	}
}

// TestDenseOracle compares the solution with gonum's dense Cholesky.
func TestDenseOracle(t *testing.T) {
	t.Parallel()
	for _, tc := range testCases() {
		n := tc.m.pat.N
		if n > 400 {
			continue
		}
		a := mat.NewSymDense(n, nil)
		for j := 0; j < n; j++ {
			for q := tc.m.pat.ColPtr[j]; q < tc.m.pat.ColPtr[j+1]; q++ {
				a.SetSym(tc.m.pat.RowIdx[q], j, tc.m.val[q])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			t.Fatalf("%s: dense oracle failed", tc.name)
		}
		const cols = 4
		rng := rand.New(rand.NewPCG(3, 3))
		b := randomBlock(rng, n*cols)
		var want mat.Dense
		if err := ch.SolveTo(&want, mat.NewDense(cols, n, b).T()); err != nil {
			t.Fatal(err)
		}
		f, err := Backend{}.Analyze(tc.m.pat, &factor.Options{Grid: tc.m.grid})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Factorize(tc.m.val); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, n*cols)
		copy(got, b)
		if err := f.Solve(got, got, cols); err != nil { // in place
			t.Fatal(err)
		}
		var maxErr, maxX float64
		for k := 0; k < cols; k++ {
			for i := 0; i < n; i++ {
				maxErr = math.Max(maxErr, math.Abs(got[k*n+i]-want.At(i, k)))
				maxX = math.Max(maxX, math.Abs(want.At(i, k)))
			}
		}
		if maxErr > 1e-12*maxX {
			t.Errorf("%s: max |x - x_dense| = %g (max |x| = %g)", tc.name, maxErr, maxX)
		}
	}
}

func TestOrderIsPermutation(t *testing.T) {
	t.Parallel()
	for _, tc := range testCases() {
		for _, o := range []factor.Ordering{factor.OrderingDefault, factor.OrderingNatural, factor.OrderingAMD, factor.OrderingNestedDissection} {
			perm, name, err := Order(tc.m.pat, &factor.Options{Ordering: o, Grid: tc.m.grid})
			if err != nil {
				t.Fatal(err)
			}
			n := tc.m.pat.N
			seen := make([]bool, n)
			if len(perm) != n {
				t.Fatalf("%s/%v: len(perm)=%d, want %d", tc.name, o, len(perm), n)
			}
			for _, i := range perm {
				if i < 0 || i >= n || seen[i] {
					t.Fatalf("%s/%v (%s): not a permutation: %d", tc.name, o, name, i)
				}
				seen[i] = true
			}
		}
	}
	// The analysed factor's own permutation (after postordering and
	// splitting) too.
	for _, tc := range testCases() {
		f, err := Backend{}.Analyze(tc.m.pat, &factor.Options{Grid: tc.m.grid, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		perm := f.(*chol).sym.perm
		seen := make([]bool, len(perm))
		for _, i := range perm {
			if seen[i] {
				t.Fatalf("%s: analysed order repeats %d", tc.name, i)
			}
			seen[i] = true
		}
	}
}

func TestOrderErrors(t *testing.T) {
	t.Parallel()
	m := heatMatrix(6, []edge{{0, 1, 1}}, 1)
	for _, opt := range []*factor.Options{
		{Grid: []int{2, 2}},
		{Grid: []int{3, 0}},
		{Ordering: factor.Ordering(42)},
	} {
		if _, err := (Backend{}).Analyze(m.pat, opt); err == nil {
			t.Errorf("Analyze(%+v): no error", opt)
		}
	}
	if _, err := (Backend{}).Analyze(&factor.Pattern{N: 2, ColPtr: []int{0, 1, 1}, RowIdx: []int{0}}, nil); err == nil {
		t.Error("Analyze of an invalid pattern: no error")
	}
}

// TestRefactorize checks that refactorising after a weight change gives the
// same solution as a fresh factorisation.
func TestRefactorize(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, dims := range [][]int{{20, 17}, {8, 7, 6}} {
		n, es := gridEdges(rng, dims...)
		m1 := heatMatrix(n, es, 1)
		for k := range es {
			es[k].w *= 0.2 + 3*rng.Float64()
		}
		m2 := heatMatrix(n, es, 1)
		opt := &factor.Options{Grid: dims}
		f, err := Backend{}.Analyze(m1.pat, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Factorize(m1.val); err != nil {
			t.Fatal(err)
		}
		if err := f.Factorize(m2.val); err != nil {
			t.Fatal(err)
		}
		g, _ := Backend{}.Analyze(m2.pat, opt)
		if err := g.Factorize(m2.val); err != nil {
			t.Fatal(err)
		}
		const cols = 5
		b := randomBlock(rng, n*cols)
		x1, x2 := make([]float64, n*cols), make([]float64, n*cols)
		f.Solve(x1, b, cols)
		g.Solve(x2, b, cols)
		for k := range x1 {
			if x1[k] != x2[k] {
				t.Fatalf("grid %v: refactorised solution differs at %d: %v vs %v", dims, k, x1[k], x2[k])
			}
		}
		if r := m2.relResidual(x1, b, cols); r > 1e-12 {
			t.Errorf("grid %v: residual after refactorisation %g", dims, r)
		}
	}
}

func TestNotPosDef(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	n, es := gridEdges(rng, 9, 8)
	m := heatMatrix(n, es, 1)
	for _, bad := range []int{0, 17, n - 1} {
		val := append([]float64(nil), m.val...)
		// A strongly negative diagonal at vertex bad: its pivot fails in
		// any order, while every other pivot stays positive because the
		// rest of the matrix is diagonally dominant.
		val[m.pat.ColPtr[bad]] = -100
		for _, threads := range []int{1, 2} {
			f, err := Backend{}.Analyze(m.pat, &factor.Options{Grid: []int{9, 8}, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			err = f.Factorize(val)
			var npd *factor.NotPosDefError
			if !errors.As(err, &npd) || !errors.Is(err, factor.ErrNotPosDef) {
				t.Fatalf("bad=%d: got %v, want a NotPosDefError", bad, err)
			}
			if npd.Column != bad {
				t.Errorf("bad=%d threads=%d: error names column %d", bad, threads, npd.Column)
			}
			if err := f.Solve(make([]float64, n), make([]float64, n), 1); err == nil {
				t.Error("Solve after a failed Factorize: no error")
			}
		}
	}
	// A non-finite right-hand side gives an error, not a silent NaN.
	f, _ := Backend{}.Analyze(m.pat, &factor.Options{Threads: 2})
	if err := f.Factorize(m.val); err != nil {
		t.Fatal(err)
	}
	b := make([]float64, 3*n)
	b[n+7] = math.Inf(1)
	if err := f.Solve(make([]float64, 3*n), b, 3); err == nil {
		t.Error("Inf right-hand side: no error")
	}
	val := append([]float64(nil), m.val...)
	val[5] = math.NaN()
	f, _ = Backend{}.Analyze(m.pat, nil)
	if err := f.Factorize(val); err == nil {
		t.Error("NaN value: no error")
	}
}

// TestConcurrentSolve runs several Solves at once (run with -race).
func TestConcurrentSolve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	n, es := gridEdges(rng, 40, 30)
	m := heatMatrix(n, es, 2)
	f, err := Backend{}.Analyze(m.pat, &factor.Options{Grid: []int{40, 30}, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Factorize(m.val); err != nil {
		t.Fatal(err)
	}
	const cols, G = 7, 6
	bs := make([][]float64, G)
	want := make([][]float64, G)
	for g := range bs {
		bs[g] = randomBlock(rng, n*cols)
		want[g] = make([]float64, n*cols)
		f.Solve(want[g], bs[g], cols)
	}
	var wg sync.WaitGroup
	errs := make([]error, G)
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := make([]float64, n*cols)
			for rep := 0; rep < 5; rep++ {
				if err := f.Solve(x, bs[g], cols); err != nil {
					errs[g] = err
					return
				}
				for k := range x {
					if x[k] != want[g][k] {
						errs[g] = fmt.Errorf("goroutine %d: result differs at %d", g, k)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// factorCase analyses and factorises tc's matrix with the default ordering
// and the given number of workers; the caller closes the factor.
func factorCase(t *testing.T, tc testCase, threads int) factor.Factor {
	t.Helper()
	f, err := Backend{}.Analyze(tc.m.pat, &factor.Options{Grid: tc.m.grid, Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Factorize(tc.m.val); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSolveSteps checks SolveSteps, whose block stays in the solve's layout
// between steps, against Solve called once per step: bitwise, for every
// iterate (keep), in both orders, and for the last only (also in place).
func TestSolveSteps(t *testing.T) {
	t.Parallel()
	const steps = 3
	for _, tc := range testCases() {
		for _, threads := range []int{1, 3} {
			f := factorCase(t, tc, threads)
			ss := f.(factor.StepSolver)
			rng := rand.New(rand.NewPCG(3, 3))
			for _, cols := range []int{1, 6, 20} {
				name := fmt.Sprintf("%s/threads=%d/cols=%d", tc.name, threads, cols)
				nb := tc.m.pat.N * cols
				b := randomBlock(rng, nb)
				want := make([]float64, steps*nb)
				prev := b
				for l := range steps {
					if err := f.Solve(want[l*nb:(l+1)*nb], prev, cols); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					prev = want[l*nb : (l+1)*nb]
				}
				keep := make([]float64, steps*nb)
				rev := make([]float64, steps*nb)
				last := make([]float64, nb)
				inPlace := append([]float64(nil), b...)
				for _, run := range []struct {
					out       []float64
					keep, rev bool
				}{{keep, true, false}, {rev, true, true}, {last, false, false}, {inPlace, false, false}} {
					src := b
					if &run.out[0] == &inPlace[0] {
						src = inPlace
					}
					if err := ss.SolveSteps(run.out, src, cols, steps, run.keep, run.rev); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
				for l := range steps {
					w := want[l*nb : (l+1)*nb]
					if !slices.Equal(keep[l*nb:(l+1)*nb], w) {
						t.Errorf("%s: keep: iterate %d differs from Solve", name, l+1)
					}
					if !slices.Equal(rev[(steps-1-l)*nb:(steps-l)*nb], w) {
						t.Errorf("%s: reverse: iterate %d differs from Solve", name, l+1)
					}
				}
				w := want[(steps-1)*nb:]
				if !slices.Equal(last, w) || !slices.Equal(inPlace, w) {
					t.Errorf("%s: last iterate differs from Solve", name)
				}
			}
			f.Close()
		}
	}
}

// TestKernelsAgree compares the vector solve kernels with the scalar ones
// on every test matrix, worker count and width class (padded or not, one
// quad or several). Both are checked against A by TestSolveResidual; here
// they must agree to rounding.
func TestKernelsAgree(t *testing.T) {
	if !useAVX {
		t.Skip(noKernels(false))
	}
	defer func() { useAVX = true }()
	for _, tc := range testCases() {
		for _, threads := range []int{1, 3} {
			f := factorCase(t, tc, threads)
			rng := rand.New(rand.NewPCG(4, 4))
			for _, cols := range []int{1, 4, 7, 13, 32} {
				n := tc.m.pat.N
				b := randomBlock(rng, n*cols)
				got, want := make([]float64, n*cols), make([]float64, n*cols)
				useAVX = true
				if err := f.Solve(got, b, cols); err != nil {
					t.Fatal(err)
				}
				useAVX = false
				if err := f.Solve(want, b, cols); err != nil {
					t.Fatal(err)
				}
				// The two sum in different orders; on these matrices they
				// differ by at most 3.2e-16, and a wrong offset in a kernel
				// by more than 1e-2.
				if d := relDiff(got, want); !(d <= 1e-13) {
					t.Errorf("%s/threads=%d/cols=%d: vector and scalar kernels differ by %.3g (relative)", tc.name, threads, cols, d)
				}
				// The adjoint's edge sums: the vector kernel sums each
				// edge's products lane by lane, the scalar one in order.
				// On these matrices they differ by at most 1.6e-15; a
				// wrong operand in the kernel fails this on every matrix.
				from, to := patternEdges(tc.m.pat)
				g := randomBlock(rng, n*cols)
				gw := [2][]float64{make([]float64, len(from)), make([]float64, len(from))}
				for k, avx := range []bool{true, false} {
					useAVX = avx
					if err := f.(factor.StepSolver).AdjointSteps(nil, gw[k], b, g, cols, 3, from, to, 1, false); err != nil {
						t.Fatal(err)
					}
				}
				if d := relDiff(gw[0], gw[1]); len(from) > 0 && !(d <= 1e-13) {
					t.Errorf("%s/threads=%d/cols=%d: vector and scalar edge sums differ by %.3g (relative)", tc.name, threads, cols, d)
				}
			}
			f.Close()
		}
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	m := heatMatrix(3, []edge{{0, 1, 1}, {1, 2, 1}}, 1)
	f, _ := Backend{}.Analyze(m.pat, nil)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Factorize after Close did not panic")
		}
	}()
	f.Factorize(m.val)
}

// TestFillCount checks the reported nnz(L) against the nonzeros of a dense
// Cholesky factor of the matrix in the analysed pivot order (structural
// zeros of L stay exactly zero in the dense factorisation).
func TestFillCount(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	n, es := gridEdges(rng, 7, 6, 5)
	m := heatMatrix(n, es, 1)
	f, err := Backend{}.Analyze(m.pat, &factor.Options{Grid: []int{7, 6, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Factorize(m.val); err != nil {
		t.Fatal(err)
	}
	// Count the nonzeros of the dense factor of the permuted matrix.
	perm := f.(*chol).sym.perm
	a := mat.NewSymDense(n, nil)
	for j := 0; j < n; j++ {
		for q := m.pat.ColPtr[j]; q < m.pat.ColPtr[j+1]; q++ {
			a.SetSym(m.pat.RowIdx[q], j, m.val[q])
		}
	}
	ap := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			ap.SetSym(i, j, a.At(perm[i], perm[j]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(ap) {
		t.Fatal("dense factorisation failed")
	}
	var l mat.TriDense
	ch.LTo(&l)
	nz := 0
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			if l.At(i, j) != 0 {
				nz++
			}
		}
	}
	if got := f.Info().NNZL; got != nz {
		t.Errorf("NNZL = %d, dense factor has %d nonzeros", got, nz)
	}
}

// TestWorkersBitwise checks that the factor, Solve and AdjointSteps (gsrc
// and gw) give bitwise the same results for 1 to 16 workers on every test
// matrix, on the vector kernels (where the processor has them) and on the
// scalar ones, at the block widths of the learner (2·(frames−2) columns), the
// block whole or in strips (as split chooses, and in as many strips as it
// can have): the tree is cut into the same groups whatever the count, the
// groups' updates of the top are added in group order, the top is cut
// into the same panels and chunks, of which those that touch the same rows
// run in the order of their wave's list (TestPlans), every column takes
// the same operations in any strip, and the edge sums take the products
// of whole rows in one order (edgeStrips).
func TestWorkersBitwise(t *testing.T) {
	defer func(v bool) { useAVX = v }(useAVX)
	defer func(v bool) { capWorkers = v }(capWorkers)
	defer func() { splitAll = false }()
	capWorkers = false // as many workers as asked, whatever the cores
	for _, avx := range slices.Compact([]bool{useAVX, false}) {
		useAVX = avx
		t.Run(SolveKernels(), func(t *testing.T) { workersBitwise(t) })
	}
}

func workersBitwise(t *testing.T) {
	widths, workers := []int{6, 8, 13, 15, 16, 18, 20, 24, 30, 32, 40}, 16
	if testing.Short() || raceEnabled { // fewer cases where each costs more
		widths, workers = []int{8, 15, 20, 32}, 8
	}
	split := 0 // runs in strips
	for _, tc := range testCases() {
		n := tc.m.pat.N
		from, to := patternEdges(tc.m.pat)
		const steps = 3
		fs := make([]factor.Factor, workers+1)
		for p := 1; p <= workers; p++ {
			fs[p] = factorCase(t, tc, p)
			fs[p].(*chol).fits = true
		}
		for _, cols := range widths {
			rng := rand.New(rand.NewPCG(6, 6))
			b, g := randomBlock(rng, n*cols), randomBlock(rng, n*cols)
			x, gsrc, gw := solveAndAdjoint(t, fs[1], b, g, cols, steps, from, to, false)
			want := [3][]float64{x, gsrc, gw}
			for p := 2; p <= workers; p++ {
				for _, all := range []bool{false, true} {
					splitAll = all
					c := fs[p].(*chol)
					q, _ := c.split(c.workers(cols), cols) // Solve's strips
					if q > 1 {
						split++
					}
					x, gsrc, gw := solveAndAdjoint(t, fs[p], b, g, cols, steps, from, to, p%2 == 0)
					for k, got := range [3][]float64{x, gsrc, gw} {
						if i := firstBitDiff(got, want[k]); i >= 0 {
							t.Errorf("%s, %d columns, %d workers (Solve in %d strips): %s[%d] = %.17g, one worker %.17g",
								tc.name, cols, p, q, []string{"Solve", "AdjointSteps' gsrc", "AdjointSteps' gw"}[k], i, got[i], want[k][i])
						}
					}
				}
			}
			splitAll = false
		}
		for _, f := range fs[1:] {
			f.Close()
		}
	}
	if split == 0 {
		t.Error("no solve ran in strips")
	}
}

// solveAndAdjoint returns f's solution of the N×cols block b and
// AdjointSteps' gsrc and gw for the source b and the gradient g over the
// edges from, to.
func solveAndAdjoint(t *testing.T, f factor.Factor, b, g []float64, cols, steps int, from, to []int, parallel bool) (x, gsrc, gw []float64) {
	t.Helper()
	x, gsrc, gw = make([]float64, len(b)), make([]float64, len(b)), make([]float64, len(from))
	if err := f.Solve(x, b, cols); err != nil {
		t.Fatal(err)
	}
	if err := f.(factor.StepSolver).AdjointSteps(gsrc, gw, b, g, cols, steps, from, to, 1, parallel); err != nil {
		t.Fatal(err)
	}
	return x, gsrc, gw
}

// patternEdges lists the off-diagonal entries of the lower triangle of p
// as edges {from[e], to[e]}.
func patternEdges(p *factor.Pattern) (from, to []int) {
	for j := range p.N {
		for k := p.ColPtr[j]; k < p.ColPtr[j+1]; k++ {
			if i := p.RowIdx[k]; i > j {
				from, to = append(from, i), append(to, j)
			}
		}
	}
	return from, to
}

// firstBitDiff returns the first index where a and b differ in their bits,
// or -1.
func firstBitDiff(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestAdjointEdgeOutside checks that AdjointSteps panics, naming the
// edge, when an edge's end is not a vertex: the vector kernel indexes the
// blocks without checks.
func TestAdjointEdgeOutside(t *testing.T) {
	tc := testCases()[0]
	n := tc.m.pat.N
	from, to := patternEdges(tc.m.pat)
	rng := rand.New(rand.NewPCG(8, 8))
	b, g := randomBlock(rng, n*5), randomBlock(rng, n*5)
	f := factorCase(t, tc, 1)
	defer f.Close()
	for _, bad := range []int{n, -1} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "of a graph of") {
					t.Errorf("edge end %d: recovered %v, want a panic naming the edge", bad, r)
				}
			}()
			from2 := slices.Clone(from)
			from2[3] = bad
			gw := make([]float64, len(from))
			f.(factor.StepSolver).AdjointSteps(nil, gw, b, g, 5, 3, from2, to, 1, false)
		}()
	}
}

// TestTree checks the reported supernodal tree against the factor's own
// structure: the supernodes cover the columns, each one's first row below
// its columns lies in its parent, and the work counts every stored entry.
func TestTree(t *testing.T) {
	for _, tc := range testCases() {
		f := factorCase(t, tc, 0)
		c := f.(*chol)
		tree, err := c.Tree()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		work, span, err := tree.Span()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		col := 0
		for s := range tree.Cols {
			if c.sym.first[s] != col {
				t.Fatalf("%s: supernode %d starts at column %d, want %d", tc.name, s, c.sym.first[s], col)
			}
			col += tree.Cols[s]
			if p := tree.Parent[s]; p >= 0 {
				r := int(c.sym.rows[c.sym.rowPtr[s]+tree.Cols[s]])
				if r < c.sym.first[p] || r >= c.sym.first[p+1] {
					t.Errorf("%s: supernode %d: first row below %d is not in its parent %d", tc.name, s, r, p)
				}
			} else if tree.Rows[s] != tree.Cols[s] {
				t.Errorf("%s: root %d has rows below it", tc.name, s)
			}
		}
		if col != tc.m.pat.N || work < float64(f.Info().NNZL) || span <= 0 || span > work {
			t.Errorf("%s: %d of %d columns, work %g, nnz(L) %d, span %g", tc.name, col, tc.m.pat.N, work, f.Info().NNZL, span)
		}
		f.Close()
	}
}

// TestColumnsBitwise checks that a column's solution does not depend on
// the block it is solved in: each lane of the kernels does the same
// arithmetic whatever the block's width (13 columns: three quads and one
// more, against one column at a time).
func TestColumnsBitwise(t *testing.T) {
	defer func(avx bool) { useAVX = avx }(useAVX)
	kernels := []bool{false}
	if useAVX {
		kernels = append(kernels, true)
	}
	const cols = 13
	for _, avx := range kernels {
		useAVX = avx
		for _, tc := range testCases() {
			f := factorCase(t, tc, 1)
			n := tc.m.pat.N
			b := randomBlock(rand.New(rand.NewPCG(5, 5)), n*cols)
			block := make([]float64, n*cols)
			if err := f.Solve(block, b, cols); err != nil {
				t.Fatal(err)
			}
			one := make([]float64, n)
			for c := range cols {
				if err := f.Solve(one, b[c*n:(c+1)*n], 1); err != nil {
					t.Fatal(err)
				}
				if i := firstBitDiff(one, block[c*n:(c+1)*n]); i >= 0 {
					t.Errorf("%s/avx=%v: column %d alone differs at row %d: %v, in the block %v", tc.name, avx, c, i, one[i], block[c*n+i])
					break
				}
			}
			f.Close()
		}
	}
}

// TestWideBitwise checks that the AVX-512 paths of the vector kernels give
// the AVX2 paths' results bit for bit (Solve and AdjointSteps, on block
// widths that use every group of quads): all of them up to 20 columns;
// beyond, where AVX-512 solves in strips (stripWidth), the solves bit for
// bit and the edge sums, added strip by strip, to rounding.
func TestWideBitwise(t *testing.T) {
	if !useWide {
		t.Skip(noKernels(true))
	}
	defer func() { useWide = true }()
	for _, tc := range testCases() {
		f := factorCase(t, tc, 1)
		n := tc.m.pat.N
		from, to := patternEdges(tc.m.pat)
		for _, cols := range []int{3, 8, 11, 13, 18, 20, 22, 24, 28, 32, 40} {
			rng := rand.New(rand.NewPCG(6, 6))
			b, g := randomBlock(rng, n*cols), randomBlock(rng, n*cols)
			var x, gsrc, gw [2][]float64
			for k, wide := range []bool{true, false} {
				useWide = wide
				x[k], gsrc[k], gw[k] = solveAndAdjoint(t, f, b, g, cols, 3, from, to, false)
			}
			useWide = true
			if i := firstBitDiff(x[0], x[1]); i >= 0 {
				t.Errorf("%s/cols=%d: Solve[%d] = %v wide, %v narrow", tc.name, cols, i, x[0][i], x[1][i])
			}
			if i := firstBitDiff(gsrc[0], gsrc[1]); i >= 0 {
				t.Errorf("%s/cols=%d: AdjointSteps' gsrc[%d] = %v wide, %v narrow", tc.name, cols, i, gsrc[0][i], gsrc[1][i])
			}
			if stripWidth(cols) == 0 {
				if i := firstBitDiff(gw[0], gw[1]); i >= 0 {
					t.Errorf("%s/cols=%d: AdjointSteps' gw[%d] = %v wide, %v narrow", tc.name, cols, i, gw[0][i], gw[1][i])
				}
				continue
			}
			// The same products, summed strip by strip instead of over
			// whole rows: a few ulps of the largest entry.
			if diff, scale := maxDiff(gw[0], gw[1]); !(diff <= 1e-13*scale) {
				t.Errorf("%s/cols=%d: AdjointSteps' gw differs by %g (largest entry %g) wide and narrow", tc.name, cols, diff, scale)
			}
		}
		f.Close()
	}
}

// TestStrips checks that a block solved in strips (stripWidth, AVX-512)
// gives what its strips give solved on their own, bit for bit, the
// adjoint's edge sums included: gw takes each strip's sums in turn.
func TestStrips(t *testing.T) {
	const cols = 37
	sw := stripWidth(cols)
	if sw == 0 {
		t.Skip(noKernels(true))
	}
	for _, tc := range testCases() {
		f := factorCase(t, tc, 2)
		ss := f.(factor.StepSolver)
		n := tc.m.pat.N
		from, to := patternEdges(tc.m.pat)
		rng := rand.New(rand.NewPCG(7, 7))
		b, g := randomBlock(rng, n*cols), randomBlock(rng, n*cols)
		x, gsrc, gw := solveAndAdjoint(t, f, b, g, cols, 3, from, to, true)
		xs, gsrcs, gws := make([]float64, n*cols), make([]float64, n*cols), make([]float64, len(from))
		for k0 := 0; k0 < cols; k0 += sw {
			k1 := min(k0+sw, cols)
			lo, hi := k0*n, k1*n
			if err := ss.SolveSteps(xs[lo:hi], b[lo:hi], k1-k0, 1, false, false); err != nil {
				t.Fatal(err)
			}
			if err := ss.AdjointSteps(gsrcs[lo:hi], gws, b[lo:hi], g[lo:hi], k1-k0, 3, from, to, 1, true); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			what       string
			got, strip []float64
		}{{"Solve", x, xs}, {"gsrc", gsrc, gsrcs}, {"gw", gw, gws}} {
			if i := firstBitDiff(c.got, c.strip); i >= 0 {
				t.Errorf("%s: %s[%d] = %v, by strips %v", tc.name, c.what, i, c.got[i], c.strip[i])
			}
		}
		f.Close()
	}
}

func TestVectorWidth(t *testing.T) {
	defer func(avx, wide bool) { useAVX, useWide = avx, wide }(useAVX, useWide)
	for _, tc := range []struct {
		avx, wide bool
		want      int
	}{{false, false, 1}, {true, false, 4}, {true, true, 8}} {
		useAVX, useWide = tc.avx, tc.wide
		if got := VectorWidth(); got != tc.want {
			t.Errorf("avx=%v wide=%v: VectorWidth() = %d, want %d", tc.avx, tc.wide, got, tc.want)
		}
	}
}

// TestSumRowsBitwise checks the vector kernel of the buffered sums against
// the portable loop, bitwise: both add each buffer row in the same order.
func TestSumRowsBitwise(t *testing.T) {
	if !useAVX {
		t.Skip(noKernels(false))
	}
	for _, tc := range testCases() {
		f := factorCase(t, tc, 1)
		sym := f.(*chol).sym
		for _, cw := range []int{4, 12, 16, 32} {
			rng := rand.New(rand.NewPCG(7, 7))
			x := randomBlock(rng, sym.n*cw)
			buf := randomBlock(rng, sym.maxBuf*cw)
			want := slices.Clone(x)
			sumRowsGo(sym, want, buf, 0, len(sym.sumRows), cw)
			sumRowsAVX(sym, x, buf, 0, len(sym.sumRows), cw)
			if i := firstBitDiff(x, want); i >= 0 {
				t.Errorf("%s/cw=%d: sums[%d] = %v vector, %v portable", tc.name, cw, i, x[i], want[i])
			}
		}
		f.Close()
	}
}

// TestBlockWidth checks the workspace's row width for each kernel set.
func TestBlockWidth(t *testing.T) {
	defer func(avx, wide bool) { useAVX, useWide = avx, wide }(useAVX, useWide)
	for _, tc := range []struct {
		avx, wide bool
		cols      int
		want      int
	}{
		{false, false, 5, 5}, {false, true, 12, 12},
		{true, false, 1, 4}, {true, false, 5, 8}, {true, false, 11, 12}, {true, false, 16, 16},
		{true, true, 1, 4}, {true, true, 4, 4}, {true, true, 5, 8}, {true, true, 8, 8}, {true, true, 9, 16},
		{true, true, 11, 16}, {true, true, 16, 16}, {true, true, 17, 20}, {true, true, 21, 24},
		{true, true, 25, 32}, {true, true, 32, 32}, {true, true, 36, 36},
	} {
		useAVX, useWide = tc.avx, tc.wide
		if got := blockWidth(tc.cols); got != tc.want {
			t.Errorf("avx=%v wide=%v: blockWidth(%d) = %d, want %d", tc.avx, tc.wide, tc.cols, got, tc.want)
		}
	}
}
