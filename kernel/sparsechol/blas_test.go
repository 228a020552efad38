package sparsechol

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/gmlg/gmlg/kernel/factor"
)

// countingBLAS is gonum's BLAS with counters on the level-3 routines the
// factorisation calls, to show that Backend.BLAS is the one used.
type countingBLAS struct {
	gonum.Implementation
	syrk, gemm, trsm *atomic.Int64
}

func newCountingBLAS() countingBLAS {
	return countingBLAS{syrk: new(atomic.Int64), gemm: new(atomic.Int64), trsm: new(atomic.Int64)}
}

func (c countingBLAS) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, cc []float64, ldc int) {
	c.syrk.Add(1)
	c.Implementation.Dsyrk(ul, t, n, k, alpha, a, lda, beta, cc, ldc)
}

func (c countingBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, cc []float64, ldc int) {
	c.gemm.Add(1)
	c.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

func (c countingBLAS) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	c.trsm.Add(1)
	c.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// factorValues analyses and factorises m with fz and returns a copy of the
// values of L.
func factorValues(t *testing.T, fz Backend, m *testMatrix, threads int) []float64 {
	t.Helper()
	f, err := fz.Analyze(m.pat, &factor.Options{Grid: m.grid, Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Factorize(m.val); err != nil {
		t.Fatal(err)
	}
	return append([]float64(nil), f.(*chol).num.lx...)
}

// blasGrids are grids whose supernodes are wide enough for every BLAS path
// (blocked potrf, large Trsm, Syrk and Gemm updates).
func blasGrids() []*testMatrix {
	rng := rand.New(rand.NewPCG(21, 21))
	var ms []*testMatrix
	for _, dims := range [][]int{{70, 70}, {14, 14, 14}} {
		n, es := gridEdges(rng, dims...)
		m := heatMatrix(n, es, 1)
		m.grid = dims
		ms = append(ms, m)
	}
	return ms
}

// TestBackendBLASUsed checks that the dense updates go through
// Backend.BLAS and that gonum's implementation given explicitly gives
// bitwise the factor of the zero Backend.
func TestBackendBLASUsed(t *testing.T) {
	t.Parallel()
	for _, m := range blasGrids() {
		for _, threads := range []int{1, 2} {
			cb := newCountingBLAS()
			got := factorValues(t, Backend{BLAS: cb}, m, threads)
			want := factorValues(t, Backend{}, m, threads)
			if cb.syrk.Load() == 0 || cb.gemm.Load() == 0 || cb.trsm.Load() == 0 {
				t.Errorf("grid%v threads=%d: BLAS calls syrk=%d gemm=%d trsm=%d, want all > 0",
					m.grid, threads, cb.syrk.Load(), cb.gemm.Load(), cb.trsm.Load())
			}
			for k := range want {
				if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
					t.Fatalf("grid%v threads=%d: L value %d = %v with the explicit gonum BLAS, %v with the default",
						m.grid, threads, k, got[k], want[k])
				}
			}
		}
	}
}

// TestBackendLabel checks the name a Backend reports in Name, Info and
// factorisation errors.
func TestBackendLabel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 22))
	n, es := gridEdges(rng, 5, 4)
	m := heatMatrix(n, es, 1)
	for _, tc := range []struct {
		b    Backend
		want string
	}{
		{Backend{}, "go"},
		{Backend{Label: "go-variant"}, "go-variant"},
	} {
		if got := tc.b.Name(); got != tc.want {
			t.Errorf("Name() = %q, want %q", got, tc.want)
		}
		f, err := tc.b.Analyze(m.pat, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Info().Backend; got != tc.want {
			t.Errorf("Info().Backend = %q, want %q", got, tc.want)
		}
		bad := append([]float64(nil), m.val...)
		for k := range bad {
			bad[k] = -bad[k]
		}
		var npd *factor.NotPosDefError
		if err := f.Factorize(bad); !errors.As(err, &npd) || npd.Backend != tc.want {
			t.Errorf("Factorize(−A) = %v, want a NotPosDefError from %q", err, tc.want)
		}
		f.Close()
	}
}
