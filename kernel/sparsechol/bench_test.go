package sparsechol

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/learn/cputime"
)

// The benchmarks of this repository loop over b.N after b.ResetTimer, not
// with b.Loop: a b.Loop benchmark runs whole in its first call, which go
// test makes before it sets GOMAXPROCS to the first value of -cpu, so that
// "-cpu 1" would time the solves on every CPU's worker.

// benchBackend is one backend configuration in the side-by-side benchmarks.
type benchBackend struct {
	name string
	f    factor.Factorizer
	opt  func(grid []int) *factor.Options
}

// benchBackends lists the backends compared by the benchmarks; the cgo build
// adds CHOLMOD (cholmod_test.go).
var benchBackends = []benchBackend{
	{"go", Backend{}, func(g []int) *factor.Options { return &factor.Options{Grid: g} }},
	{"go-1thread", Backend{}, func(g []int) *factor.Options { return &factor.Options{Grid: g, Threads: 1} }},
}

// benchGrids are the (d, n) cases of the issue.
var benchGrids = []struct{ d, n int }{{2, 50}, {2, 100}, {2, 200}, {3, 16}, {3, 32}}

func benchMatrix(d, n int, seed uint64) (*testMatrix, []int) {
	dims := make([]int, d)
	for p := range dims {
		dims[p] = n
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	nv, es := gridEdges(rng, dims...)
	return heatMatrix(nv, es, 1), dims
}

// cpuMeter reports cpu-ns/op, the process CPU time per operation of the
// timed loop: on a loaded shared machine wall time is unreliable, while the
// CPU time of a single-threaded backend is not.
type cpuMeter time.Duration

func startCPU() cpuMeter { return cpuMeter(cputime.Used()) }

func (c cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(cputime.Used()-time.Duration(c))/float64(b.N), "cpu-ns/op")
}

// forEachBench runs fn for every grid and backend.
func forEachBench(b *testing.B, fn func(b *testing.B, be benchBackend, m, m2 *testMatrix, grid []int)) {
	for _, g := range benchGrids {
		m, grid := benchMatrix(g.d, g.n, 1)
		m2, _ := benchMatrix(g.d, g.n, 2)
		for _, be := range benchBackends {
			b.Run(fmt.Sprintf("d=%d,n=%d/%s", g.d, g.n, be.name), func(b *testing.B) {
				fn(b, be, m, m2, grid)
			})
		}
	}
}

// BenchmarkAnalyze times ordering and symbolic analysis, and reports nnz(L).
func BenchmarkAnalyze(b *testing.B) {
	forEachBench(b, func(b *testing.B, be benchBackend, m, _ *testMatrix, grid []int) {
		var nnz int
		cpu := startCPU()
		b.ResetTimer()
		for range b.N {
			f, err := be.f.Analyze(m.pat, be.opt(grid))
			if err != nil {
				b.Fatal(err)
			}
			nnz = f.Info().NNZL
			f.Close()
		}
		cpu.report(b)
		b.ReportMetric(float64(nnz), "nnzL")
	})
}

// BenchmarkFactorize times the first numeric factorisation after analysis.
func BenchmarkFactorize(b *testing.B) {
	forEachBench(b, func(b *testing.B, be benchBackend, m, _ *testMatrix, grid []int) {
		b.ResetTimer()
		var cpuNs time.Duration
		for range b.N {
			b.StopTimer()
			f, err := be.f.Analyze(m.pat, be.opt(grid))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			c0 := cputime.Used()
			if err := f.Factorize(m.val); err != nil {
				b.Fatal(err)
			}
			cpuNs += cputime.Used() - c0
			b.StopTimer()
			f.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(cpuNs)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkRefactorize times numeric refactorisations with new values on the
// same pattern.
func BenchmarkRefactorize(b *testing.B) {
	forEachBench(b, func(b *testing.B, be benchBackend, m, m2 *testMatrix, grid []int) {
		f := benchFactor(b, be, m, grid)
		defer f.Close()
		vals := [2][]float64{m2.val, m.val}
		k := 0
		b.ReportAllocs()
		cpu := startCPU()
		b.ResetTimer()
		for range b.N {
			if err := f.Factorize(vals[k&1]); err != nil {
				b.Fatal(err)
			}
			k++
		}
		cpu.report(b)
	})
}

// benchFactor analyses and factorises m with be; the caller closes it.
func benchFactor(b *testing.B, be benchBackend, m *testMatrix, grid []int) factor.Factor {
	b.Helper()
	f, err := be.f.Analyze(m.pat, be.opt(grid))
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Factorize(m.val); err != nil {
		f.Close()
		b.Fatal(err)
	}
	return f
}

// BenchmarkSolve20 times the solve of a block of 20 right-hand sides.
func BenchmarkSolve20(b *testing.B) {
	const cols = 20
	forEachBench(b, func(b *testing.B, be benchBackend, m, _ *testMatrix, grid []int) {
		f := benchFactor(b, be, m, grid)
		defer f.Close()
		n := m.pat.N
		rhs := randomBlock(rand.New(rand.NewPCG(9, 9)), n*cols)
		x := make([]float64, n*cols)
		b.ReportAllocs()
		cpu := startCPU()
		b.ResetTimer()
		for range b.N {
			if err := f.Solve(x, rhs, cols); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b)
	})
}

// BenchmarkSolveRates compares the solves' speed per flop across the
// grids on one thread, where BenchmarkSolveSteps times each grid alone
// and a shared machine's drift between them can exceed the differences:
// each iteration is a round that runs 20 heat sub-steps of a 15-column
// block on every grid in turn, and the benchmark reports each grid's
// median GFlop/s (4·nnz(L) flops per column and sub-step) over the rounds
// and the median over the rounds of its ratio to 16³'s in the same round.
// Run it with -benchtime 40x or so.
func BenchmarkSolveRates(b *testing.B) {
	const steps, cols = 20, 15
	type solver struct {
		name string
		ss   factor.StepSolver
		nnz  int
		x, b []float64
		rate []float64 // per round
	}
	one := benchBackends[slices.IndexFunc(benchBackends, func(be benchBackend) bool { return be.name == "go-1thread" })]
	var grids []*solver
	for _, g := range benchGrids {
		if g.d == 2 && g.n == 200 {
			continue // its rate is 100²'s; the round stays short
		}
		m, grid := benchMatrix(g.d, g.n, 1)
		f := benchFactor(b, one, m, grid)
		defer f.Close()
		n := m.pat.N
		grids = append(grids, &solver{name: fmt.Sprintf("d=%d,n=%d", g.d, g.n), ss: f.(factor.StepSolver),
			nnz: f.Info().NNZL, x: make([]float64, n*cols), b: randomBlock(rand.New(rand.NewPCG(9, 9)), n*cols)})
	}
	b.ResetTimer()
	for range b.N {
		for _, g := range grids {
			t := time.Now()
			if err := g.ss.SolveSteps(g.x, g.b, cols, steps, false, false); err != nil {
				b.Fatal(err)
			}
			g.rate = append(g.rate, 4*float64(g.nnz)*cols*steps/time.Since(t).Seconds()/1e9)
		}
	}
	b.StopTimer()
	var ref *solver
	for _, g := range grids {
		if g.name == "d=3,n=16" {
			ref = g
		}
	}
	for _, g := range grids {
		b.ReportMetric(median(g.rate), "GFlop/s-"+g.name)
		if g != ref {
			r := make([]float64, len(g.rate))
			for k := range r {
				r[k] = g.rate[k] / ref.rate[k]
			}
			b.ReportMetric(median(r), "ratio-"+g.name)
		}
	}
}

// median returns the median of v, which it leaves as it is.
func median(v []float64) float64 {
	v = slices.Sorted(slices.Values(v))
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// BenchmarkSolveSteps times 20 heat sub-steps (SolveSteps) of blocks of 8,
// 11, 15, 20, 24 and 32 columns and reports ns/col-step, the time per
// column and sub-step. The learner's blocks have about 15 columns with
// ten frames (more with more frames), which both backends solve whole. Run it with -cpu 1 to compare the kernels (the
// single-threaded backends are then alone on one core), with -cpu 2 to see
// the pure-Go team on two workers.
func BenchmarkSolveSteps(b *testing.B) {
	const steps = 20
	forEachBench(b, func(b *testing.B, be benchBackend, m, _ *testMatrix, grid []int) {
		f := benchFactor(b, be, m, grid)
		defer f.Close()
		ss, ok := f.(factor.StepSolver)
		if !ok {
			b.Skip("no SolveSteps")
		}
		n := m.pat.N
		for _, cols := range []int{8, 11, 15, 20, 24, 32} {
			b.Run(fmt.Sprintf("cols=%d", cols), func(b *testing.B) {
				rhs := randomBlock(rand.New(rand.NewPCG(9, 9)), n*cols)
				x := make([]float64, n*cols)
				b.ResetTimer()
				for range b.N {
					if err := ss.SolveSteps(x, rhs, cols, steps, false, false); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps*cols), "ns/col-step")
			})
		}
	})
}
