//go:build cgo

package sparsechol

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/netlib/blas/netlib"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/factor"
)

// The benchmarks compare gonum's BLAS (the "go" entries) with OpenBLAS
// through netlib, with OpenBLAS on one thread and on every CPU. OpenBLAS's
// thread count is process-wide, so each entry sets it when the benchmark
// asks for its options, right before Analyze.
func init() {
	netlibOpt := func(blasThreads int) func([]int) *factor.Options {
		return func(g []int) *factor.Options {
			cholmod.SetBLASThreads(blasThreads)
			return &factor.Options{Grid: g}
		}
	}
	benchBackends = append(benchBackends,
		benchBackend{"go-netlib-blas1", Backend{BLAS: netlib.Implementation{}}, netlibOpt(1)},
		benchBackend{"go-netlib-blasN", Backend{BLAS: netlib.Implementation{}}, netlibOpt(runtime.NumCPU())},
	)
}

// TestNetlibAgrees compares the factor and the solutions on OpenBLAS
// (netlib) with those on gonum's BLAS, on a 2-D and a 3-D grid, with one
// and two workers and one and two OpenBLAS threads.
func TestNetlibAgrees(t *testing.T) {
	defer cholmod.SetBLASThreads(cholmod.BLASThreads())
	for _, m := range blasGrids() {
		for _, c := range []struct{ workers, blasThreads int }{{1, 1}, {2, 1}, {2, 2}} {
			cholmod.SetBLASThreads(c.blasThreads)
			want := factorValues(t, Backend{}, m, c.workers)
			got := factorValues(t, Backend{BLAS: netlib.Implementation{}}, m, c.workers)
			if r := relDiff(got, want); !(r <= 1e-12) {
				t.Errorf("grid%v %+v: ‖L_netlib − L_gonum‖/‖L_gonum‖ = %g > 1e-12", m.grid, c, r)
			}
			const cols = 5
			b := randomBlock(rand.New(rand.NewPCG(23, 23)), m.pat.N*cols)
			xw := solveWith(t, Backend{}, m, b, cols, c.workers)
			xg := solveWith(t, Backend{BLAS: netlib.Implementation{}}, m, b, cols, c.workers)
			if r := relDiff(xg, xw); !(r <= 1e-12) {
				t.Errorf("grid%v %+v: ‖x_netlib − x_gonum‖/‖x_gonum‖ = %g > 1e-12", m.grid, c, r)
			}
			if r := m.relResidual(xg, b, cols); !(r <= 1e-12) {
				t.Errorf("grid%v %+v: netlib relative residual %g > 1e-12", m.grid, c, r)
			}
		}
	}
}

// solveWith factorises m with fz and solves for the cols columns of b.
func solveWith(t *testing.T, fz Backend, m *testMatrix, b []float64, cols, workers int) []float64 {
	t.Helper()
	f, err := fz.Analyze(m.pat, &factor.Options{Grid: m.grid, Threads: workers})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Factorize(m.val); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(b))
	if err := f.Solve(x, b, cols); err != nil {
		t.Fatal(err)
	}
	return x
}
