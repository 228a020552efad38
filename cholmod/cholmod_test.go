//go:build cgo

package cholmod

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmlg/gmlg/kernel/factor"
)

var allOrderings = []Ordering{OrderDefault, OrderNatural, OrderAMD, OrderMETIS, OrderNESDIS, OrderCHOLMOD, OrderBest}
var allModes = []Mode{Supernodal, Simplicial, Auto}

// TestSolveResidualAndOrderings solves a 7-column block on every test
// matrix with every ordering and mode, checks ‖AX−B‖/‖B‖ ≤ 1e-12, and checks
// that all orderings give the same X (to 1e-12 relative, the conditioning
// of these well-conditioned I + cL systems leaves round-off far below).
func TestSolveResidualAndOrderings(t *testing.T) {
	const cols = 7
	eachMatrix(t, func(t *testing.T, m matrix, cc *Common, a *Sparse) {
		b := randomBlock(m.n, cols, rand.New(rand.NewPCG(2, 3)))
		var ref []float64
		for _, ord := range allOrderings {
			for _, mode := range allModes {
				f, err := cc.Analyze(a, &AnalyzeOptions{Ordering: ord, Mode: mode})
				if err != nil {
					t.Fatalf("%v/%v: %v", ord, mode, err)
				}
				if err := f.Factorize(a); err != nil {
					t.Fatalf("%v/%v: %v", ord, mode, err)
				}
				x := make([]float64, len(b))
				if err := f.Solve(x, b, cols); err != nil {
					t.Fatalf("%v/%v: %v", ord, mode, err)
				}
				if r := m.relResidual(x, b, cols); !(r <= 1e-12) {
					t.Errorf("%v/%v: relative residual %.3g > 1e-12", ord, mode, r)
				}
				if ref == nil {
					ref = x
				} else if d := relDiff(x, ref); !(d <= 1e-12) {
					t.Errorf("%v/%v: solution differs from %v/%v by %.3g", ord, mode, allOrderings[0], allModes[0], d)
				}
				in := f.Info()
				if in.NNZL < m.n || in.Requested != ord || in.Used == "" {
					t.Errorf("%v/%v: implausible info %+v", ord, mode, in)
				}
				if mode == Supernodal && !in.Supernodal || mode == Simplicial && in.Supernodal {
					t.Errorf("%v/%v: Info.Supernodal=%v", ord, mode, in.Supernodal)
				}
				f.Free()
			}
		}
	})
}

func relDiff(x, y []float64) float64 {
	var num, den float64
	for i := range x {
		num += (x[i] - y[i]) * (x[i] - y[i])
		den += y[i] * y[i]
	}
	return math.Sqrt(num / den)
}

// TestOrderingUsed checks that each fixed ordering is reported as used.
func TestOrderingUsed(t *testing.T) {
	m := testMatrices()[0].m
	cc, _ := NewCommon()
	defer cc.Close()
	a := mustSparse(t, cc, m)
	for ord, want := range map[Ordering]string{
		OrderNatural: "natural", OrderAMD: "amd", OrderMETIS: "metis",
		OrderNESDIS: "nesdis", OrderDefault: DefaultOrdering.String(),
	} {
		f, err := cc.Analyze(a, &AnalyzeOptions{Ordering: ord})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Info().Used; got != want {
			t.Errorf("%v: Used=%q, want %q", ord, got, want)
		}
	}
}

// TestRefactorize changes the weights, refactorises on the same analysis
// and compares with a fresh analysis and factorisation of the new matrix.
func TestRefactorize(t *testing.T) {
	for _, mode := range allModes {
		rng := rand.New(rand.NewPCG(4, 5))
		n, es := gridEdges(2, 15, rng)
		m1 := laplacianSystem(n, es, 2)
		for k := range es {
			es[k].w = 0.1 + 3*rng.Float64()
		}
		m2 := laplacianSystem(n, es, 2)
		b := randomBlock(n, 3, rng)

		cc, _ := NewCommon()
		a := mustSparse(t, cc, m1)
		f, err := cc.Analyze(a, &AnalyzeOptions{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Factorize(a); err != nil {
			t.Fatal(err)
		}
		if err := a.SetValues(m2.values); err != nil {
			t.Fatal(err)
		}
		if err := f.Factorize(a); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, len(b))
		if err := f.Solve(x, b, 3); err != nil {
			t.Fatal(err)
		}

		cc2, _ := NewCommon()
		a2 := mustSparse(t, cc2, m2)
		f2, _ := cc2.Analyze(a2, &AnalyzeOptions{Mode: mode})
		if err := f2.Factorize(a2); err != nil {
			t.Fatal(err)
		}
		x2 := make([]float64, len(b))
		if err := f2.Solve(x2, b, 3); err != nil {
			t.Fatal(err)
		}
		// Same ordering, same arithmetic: equal to round-off.
		if d := relDiff(x, x2); !(d <= 1e-14) {
			t.Errorf("%v: refactorised solution differs from fresh one by %.3g", mode, d)
		}
		if r := m2.relResidual(x, b, 3); !(r <= 1e-12) {
			t.Errorf("%v: residual %.3g", mode, r)
		}
		// A second Sparse with the same pattern is accepted too.
		a3 := mustSparse(t, cc, m1)
		if err := f.Factorize(a3); err != nil {
			t.Errorf("%v: factorize with an equal pattern: %v", mode, err)
		}
		cc.Close()
		cc2.Close()
	}
}

// TestNotPosDef makes A[j][j] = −1 (A stays SPD without row/column j, so
// every ordering meets the first non-positive pivot exactly at j) and checks
// the error and its column.
func TestNotPosDef(t *testing.T) {
	m := testMatrices()[1].m
	for _, ord := range []Ordering{OrderNatural, OrderAMD, OrderMETIS, OrderNESDIS} {
		for _, mode := range []Mode{Supernodal, Simplicial} {
			for _, j := range []int{0, 77, m.n - 1} {
				cc, _ := NewCommon()
				bad := append([]float64(nil), m.values...)
				bad[m.diagIndex(j)] = -1
				a := mustSparse(t, cc, m)
				f, err := cc.Analyze(a, &AnalyzeOptions{Ordering: ord, Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				if err := a.SetValues(bad); err != nil {
					t.Fatal(err)
				}
				err = f.Factorize(a)
				if !errors.Is(err, factor.ErrNotPosDef) || !errors.Is(err, ErrNotPosDef) {
					t.Fatalf("%v/%v j=%d: err=%v, want ErrNotPosDef", ord, mode, j, err)
				}
				var npd *factor.NotPosDefError
				if !errors.As(err, &npd) || npd.Column != j || npd.Backend != "cholmod" {
					t.Errorf("%v/%v j=%d: got %#v, want column %d", ord, mode, j, npd, j)
				}
				x := make([]float64, m.n)
				if err := f.Solve(x, x, 1); !errors.Is(err, ErrNotFactorized) {
					t.Errorf("%v/%v: Solve after failure: %v, want ErrNotFactorized", ord, mode, err)
				}
				// The factor recovers with good values.
				a.SetValues(m.values)
				if err := f.Factorize(a); err != nil {
					t.Errorf("%v/%v: refactorize after failure: %v", ord, mode, err)
				}
				cc.Close()
			}
		}
	}
}

// TestFactorizeOpenMPLevels checks that Factorize, which runs CHOLMOD with
// no active OpenMP parallel region, leaves the calling thread's setting as
// it found it, after a success and after a failure.
func TestFactorizeOpenMPLevels(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := ompMaxActiveLevels()
	if before < 0 {
		t.Skip("no OpenMP runtime in the process")
	}
	rng := rand.New(rand.NewPCG(8, 9))
	n, es := gridEdges(3, 12, rng) // a 3-D grid: large top supernodes, where CHOLMOD opens its parallel regions
	m := laplacianSystem(n, es, 2)
	bad := append([]float64(nil), m.values...)
	bad[m.diagIndex(n/2)] = -1
	cc, _ := NewCommon()
	defer cc.Close()
	a := mustSparse(t, cc, m)
	f, err := cc.Analyze(a, &AnalyzeOptions{Mode: Supernodal})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		values []float64
		ok     bool
	}{{"positive definite", m.values, true}, {"not positive definite", bad, false}} {
		if err := a.SetValues(tc.values); err != nil {
			t.Fatal(err)
		}
		if err := f.Factorize(a); (err == nil) != tc.ok {
			t.Fatalf("%s: err = %v", tc.name, err)
		}
		if got := ompMaxActiveLevels(); got != before {
			t.Errorf("%s: max-active-levels-var %d after Factorize, %d before", tc.name, got, before)
		}
	}
}

// TestBadInput checks that malformed input is rejected in Go with a clear
// message.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name   string
		n      int
		colPtr []int
		rowIdx []int
		values []float64
		want   string
	}{
		{"n=0", 0, []int{0}, nil, nil, "order 0"},
		{"short colPtr", 2, []int{0, 1}, []int{0}, []float64{1}, "len(colPtr)"},
		{"colPtr end", 2, []int{0, 1, 3}, []int{0, 1}, []float64{1, 1}, "colPtr[n]"},
		{"decreasing colPtr", 3, []int{0, 2, 1, 3}, []int{0, 1, 2}, nil, "decreases"},
		{"unsorted rows", 3, []int{0, 3, 4, 5}, []int{0, 2, 1, 1, 2}, nil, "strictly increasing"},
		{"duplicate rows", 2, []int{0, 2, 3}, []int{0, 0, 1}, nil, "strictly increasing"},
		{"upper entry", 2, []int{0, 1, 3}, []int{0, 0, 1}, nil, "lower triangle"},
		{"row out of range", 2, []int{0, 2, 3}, []int{0, 2, 1}, nil, "strictly increasing"},
		{"values length", 2, []int{0, 1, 2}, []int{0, 1}, []float64{1}, "len(values)"},
		{"NaN", 2, []int{0, 1, 2}, []int{0, 1}, []float64{1, nan}, "values[1]"},
		{"Inf", 2, []int{0, 1, 2}, []int{0, 1}, []float64{inf, 1}, "values[0]"},
	} {
		cc, _ := NewCommon()
		_, err := cc.NewSparse(tc.n, tc.colPtr, tc.rowIdx, tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cholmod: ") {
			t.Errorf("%s: err=%v, want a cholmod error mentioning %q", tc.name, err, tc.want)
		}
		if (tc.name == "NaN" || tc.name == "Inf") && !errors.Is(err, ErrNonFinite) {
			t.Errorf("%s: err=%v does not match ErrNonFinite", tc.name, err)
		}
		cc.Close()
	}

	m := testMatrices()[0].m
	cc, _ := NewCommon()
	defer cc.Close()
	a := mustSparse(t, cc, m)
	f, _ := cc.Analyze(a, nil)
	x := make([]float64, m.n)
	if err := f.Solve(x, x, 1); !errors.Is(err, ErrNotFactorized) {
		t.Errorf("Solve before Factorize: %v", err)
	}
	bad := append([]float64(nil), m.values...)
	bad[3] = nan
	if err := a.SetValues(bad); !errors.Is(err, ErrNonFinite) {
		t.Errorf("SetValues(NaN): %v", err)
	}
	if err := f.Factorize(a); err != nil {
		t.Fatalf("values were changed by a rejected SetValues: %v", err)
	}
	other, _ := cc.NewSparse(2, []int{0, 1, 2}, []int{0, 1}, []float64{1, 1})
	if err := f.Factorize(other); !errors.Is(err, ErrPatternMismatch) {
		t.Errorf("Factorize(other pattern): %v", err)
	}
	if _, err := cc.Analyze(a, &AnalyzeOptions{Ordering: 99}); err == nil {
		t.Error("unknown ordering accepted")
	}
	if _, err := cc.Analyze(a, &AnalyzeOptions{Mode: 99}); err == nil {
		t.Error("unknown mode accepted")
	}
	mustPanic(t, "Solve short dst", func() { f.Solve(x[:1], x, 1) })
	mustPanic(t, "Solve short b", func() { f.Solve(x, x[:3], 1) })
	mustPanic(t, "Solve negative cols", func() { f.Solve(nil, nil, -1) })
	if err := f.Solve(nil, nil, 0); err != nil {
		t.Errorf("Solve with 0 columns: %v", err)
	}
}

// TestUseAfterClose checks idempotent Free/Close and the panics afterwards.
func TestUseAfterClose(t *testing.T) {
	m := testMatrices()[0].m
	cc, _ := NewCommon()
	a := mustSparse(t, cc, m)
	f, _ := cc.Analyze(a, nil)
	if err := f.Factorize(a); err != nil {
		t.Fatal(err)
	}
	a2 := mustSparse(t, cc, m)
	a2.Free()
	a2.Free()
	mustPanic(t, "SetValues after Free", func() { a2.SetValues(m.values) })
	mustPanic(t, "Analyze freed matrix", func() { cc.Analyze(a2, nil) })
	f.Free()
	f.Free()
	x := make([]float64, m.n)
	mustPanic(t, "Solve after Free", func() { f.Solve(x, x, 1) })
	mustPanic(t, "Factorize after Free", func() { f.Factorize(a) })

	f2, _ := cc.Analyze(a, nil)
	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	mustPanic(t, "Solve after Common.Close", func() { f2.Solve(x, x, 1) })
	mustPanic(t, "Values after Common.Close", func() { a.Values(nil) })
	mustPanic(t, "NewSparse after Close", func() { cc.NewSparse(m.n, m.colPtr, m.rowIdx, m.values) })
	mustPanic(t, "zero Common", func() { new(Common).Analyze(a, nil) })
	f2.Free() // already released by Close: no-op
	a.Free()
}

// TestConcurrentSolve runs Solve from several goroutines on one factor and
// compares with serial solves (run with -race).
func TestConcurrentSolve(t *testing.T) {
	for _, mode := range []Mode{Supernodal, Simplicial} {
		rng := rand.New(rand.NewPCG(6, 7))
		n, es := gridEdges(2, 20, rng)
		m := laplacianSystem(n, es, 3)
		cc, _ := NewCommon()
		a := mustSparse(t, cc, m)
		f, _ := cc.Analyze(a, &AnalyzeOptions{Mode: mode})
		if err := f.Factorize(a); err != nil {
			t.Fatal(err)
		}
		const workers, rounds, cols = 4, 10, 5
		bs := make([][]float64, workers)
		want := make([][]float64, workers)
		for w := range workers {
			bs[w] = randomBlock(n, cols, rng)
			want[w] = make([]float64, n*cols)
			if err := f.Solve(want[w], bs[w], cols); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := make([]float64, n*cols)
				for range rounds {
					if err := f.Solve(x, bs[w], cols); err != nil {
						errs[w] = err
						return
					}
					if d := relDiff(x, want[w]); d != 0 {
						errs[w] = errors.New("concurrent solution differs from serial one")
						return
					}
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Errorf("%v: %v", mode, err)
			}
		}
		cc.Close()
	}
}

// TestSolveInPlace checks dst == b aliasing.
func TestSolveInPlace(t *testing.T) {
	m := testMatrices()[2].m
	cc, _ := NewCommon()
	defer cc.Close()
	a := mustSparse(t, cc, m)
	f, _ := cc.Analyze(a, nil)
	f.Factorize(a)
	b := randomBlock(m.n, 2, rand.New(rand.NewPCG(8, 9)))
	x := append([]float64(nil), b...)
	if err := f.Solve(x, x, 2); err != nil {
		t.Fatal(err)
	}
	if r := m.relResidual(x, b, 2); !(r <= 1e-12) {
		t.Errorf("in-place residual %.3g", r)
	}
}

// TestSolveAllocs checks that Solve does not allocate after warm-up.
func TestSolveAllocs(t *testing.T) {
	m := testMatrices()[1].m
	cc, _ := NewCommon()
	defer cc.Close()
	a := mustSparse(t, cc, m)
	f, _ := cc.Analyze(a, nil)
	f.Factorize(a)
	b := randomBlock(m.n, 4, rand.New(rand.NewPCG(1, 2)))
	x := make([]float64, len(b))
	f.Solve(x, b, 4)
	if allocs := testing.AllocsPerRun(20, func() { f.Solve(x, b, 4) }); allocs != 0 {
		t.Errorf("Solve allocates %v times per call", allocs)
	}
	if allocs := testing.AllocsPerRun(5, func() { a.SetValues(m.values); f.Factorize(a) }); allocs != 0 {
		t.Errorf("SetValues+Factorize allocate %v times per call", allocs)
	}
}

// TestExportL rebuilds the solution with the exported simplicial factor:
// x = Pᵀ L⁻ᵀ L⁻¹ P b, computed here in Go.
func TestExportL(t *testing.T) {
	for _, mode := range []Mode{Supernodal, Simplicial} {
		m := testMatrices()[1].m
		cc, _ := NewCommon()
		a := mustSparse(t, cc, m)
		f, _ := cc.Analyze(a, &AnalyzeOptions{Mode: mode})
		if _, err := f.ExportL(); !errors.Is(err, ErrNotFactorized) {
			t.Errorf("ExportL before Factorize: %v", err)
		}
		f.Factorize(a)
		l, err := f.ExportL()
		if err != nil {
			t.Fatal(err)
		}
		// A supernodal factor keeps the explicit zeros of relaxed
		// amalgamation, so it may have more entries than nnz(L).
		if got := l.ColPtr[l.N]; got < f.Info().NNZL || mode == Simplicial && got != f.Info().NNZL {
			t.Errorf("%v: exported nnz %d, Info.NNZL %d", mode, l.ColPtr[l.N], f.Info().NNZL)
		}
		n := l.N
		b := randomBlock(n, 1, rand.New(rand.NewPCG(3, 3)))
		y := make([]float64, n)
		for k := range n {
			y[k] = b[l.Perm[k]]
		}
		for j := range n { // L y = y
			p := l.ColPtr[j]
			if l.RowIdx[p] != j {
				t.Fatalf("column %d does not start with its diagonal", j)
			}
			y[j] /= l.Values[p]
			for q := p + 1; q < l.ColPtr[j+1]; q++ {
				y[l.RowIdx[q]] -= l.Values[q] * y[j]
			}
		}
		for j := n - 1; j >= 0; j-- { // Lᵀ y = y
			p := l.ColPtr[j]
			for q := p + 1; q < l.ColPtr[j+1]; q++ {
				y[j] -= l.Values[q] * y[l.RowIdx[q]]
			}
			y[j] /= l.Values[p]
		}
		x := make([]float64, n)
		for k := range n {
			x[l.Perm[k]] = y[k]
		}
		if r := m.relResidual(x, b, 1); !(r <= 1e-12) {
			t.Errorf("%v: residual with exported L %.3g", mode, r)
		}
		cc.Close()
	}
}

// TestBLASThreads checks the OpenBLAS thread control (OpenBLAS is the BLAS
// of Debian's libcholmod; the test skips elsewhere).
func TestBLASThreads(t *testing.T) {
	prev := BLASThreads()
	if prev == 0 {
		t.Skip("OpenBLAS not found in the process")
	}
	defer SetBLASThreads(prev)
	for _, n := range []int{1, 2} {
		if !SetBLASThreads(n) {
			t.Fatal("SetBLASThreads: OpenBLAS not found")
		}
		if got := BLASThreads(); got != n {
			t.Errorf("BLASThreads()=%d after SetBLASThreads(%d)", got, n)
		}
	}
}

// TestBLASCore checks that OpenBLAS names its kernels, a word
// ("Haswell", "SkylakeX", "Opteron_SSE3", …), and describes its build
// where OpenBLAS is the BLAS, and that both are empty where it is not.
func TestBLASCore(t *testing.T) {
	core, config := BLASCore(), BLASConfig()
	if BLASThreads() == 0 {
		if core != "" || config != "" {
			t.Errorf("BLASCore() = %q, BLASConfig() = %q without OpenBLAS", core, config)
		}
		t.Skip("OpenBLAS not found in the process")
	}
	if core == "" || strings.IndexFunc(core, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_')
	}) >= 0 {
		t.Errorf("BLASCore() = %q, want OpenBLAS's name of a core", core)
	}
	if !strings.Contains(config, "OpenBLAS") {
		t.Errorf("BLASConfig() = %q, want OpenBLAS's description of its build", config)
	}
}

// TestStatusError checks the error type of a CHOLMOD status.
func TestStatusError(t *testing.T) {
	e := &StatusError{Op: "analyze", Status: -2, Message: "out of memory", err: ErrOutOfMemory}
	if !errors.Is(e, ErrOutOfMemory) || errors.Is(e, ErrInvalid) {
		t.Errorf("errors.Is mismatch for %v", e)
	}
	if e.Error() != "cholmod: analyze: out of memory: out of memory" {
		t.Errorf("message %q", e.Error())
	}
}

// TestTinyAndDiagonal covers n = 1 and a matrix without off-diagonal
// entries (a graph without edges) under every ordering.
func TestTinyAndDiagonal(t *testing.T) {
	for _, n := range []int{1, 10} {
		colPtr := make([]int, n+1)
		rowIdx := make([]int, n)
		values := make([]float64, n)
		for j := range n {
			colPtr[j+1] = j + 1
			rowIdx[j] = j
			values[j] = float64(j + 2)
		}
		m := matrix{n: n, colPtr: colPtr, rowIdx: rowIdx, values: values}
		for _, ord := range allOrderings {
			for _, mode := range allModes {
				cc, _ := NewCommon()
				a := mustSparse(t, cc, m)
				f, err := cc.Analyze(a, &AnalyzeOptions{Ordering: ord, Mode: mode})
				if err != nil {
					t.Fatalf("n=%d %v/%v: %v", n, ord, mode, err)
				}
				if err := f.Factorize(a); err != nil {
					t.Fatalf("n=%d %v/%v: %v", n, ord, mode, err)
				}
				if f.Info().NNZL != n {
					t.Errorf("n=%d %v/%v: nnz(L)=%d, want %d", n, ord, mode, f.Info().NNZL, n)
				}
				b := randomBlock(n, 2, rand.New(rand.NewPCG(5, 5)))
				x := make([]float64, len(b))
				if err := f.Solve(x, b, 2); err != nil {
					t.Fatal(err)
				}
				for k := range x {
					if want := b[k] / values[k%n]; math.Abs(x[k]-want) > 1e-15*math.Abs(want) {
						t.Errorf("n=%d %v/%v: x[%d]=%v, want %v", n, ord, mode, k, x[k], want)
					}
				}
				cc.Close()
			}
		}
	}
}

// TestLeakDetector drops an open Common and checks that the cleanup
// notices it. It polls a bounded number of garbage collections because
// cleanups run asynchronously.
func TestLeakDetector(t *testing.T) {
	before := leaks.Load()
	func() {
		if _, err := NewCommon(); err != nil {
			t.Fatal(err)
		}
	}()
	closed, _ := NewCommon()
	closed.Close()
	for i := 0; i < 200 && leaks.Load() == before; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := leaks.Load() - before; got != 1 {
		t.Errorf("leak detector counted %d leaked Commons, want 1", got)
	}
	runtime.KeepAlive(closed)
}

// TestStatusFromCHOLMOD bypasses the Go-side checks to make CHOLMOD itself
// report CHOLMOD_INVALID, and checks the mapped error and its message.
func TestStatusFromCHOLMOD(t *testing.T) {
	cc, _ := NewCommon()
	defer cc.Close()
	m := testMatrices()[0].m
	a := mustSparse(t, cc, m)
	small, _ := cc.NewSparse(2, []int{0, 1, 2}, []int{0, 1}, []float64{1, 1})
	f, _ := cc.Analyze(a, nil)
	err := factorize(cc.ctx, small.a, f.lf)
	var se *StatusError
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &se) || se.Status != -4 || !strings.Contains(se.Message, "dimensions") {
		t.Errorf("got %v, want a CHOLMOD_INVALID StatusError about dimensions", err)
	}
	if !strings.HasPrefix(err.Error(), "cholmod: factorize: invalid input: ") {
		t.Errorf("message %q", err.Error())
	}
}
