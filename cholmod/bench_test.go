//go:build cgo

package cholmod

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks over the grid sizes of the paper's experiments, for each
// ordering and factorisation kind considered:
//
//	go test -run '^$' -bench . -benchtime 5x ./cholmod
//
// Every benchmark reports nnz(L) as the metric "nnzL". BLAS runs on one
// thread (as the Supplier sets it) so that the figures do not depend on load.

var benchSizes = []struct{ d, n int }{{2, 50}, {2, 100}, {2, 200}, {3, 16}, {3, 32}}

var benchConfigs = []AnalyzeOptions{
	{Ordering: OrderAMD, Mode: Supernodal},
	{Ordering: OrderMETIS, Mode: Supernodal},
	{Ordering: OrderNESDIS, Mode: Supernodal},
	{Ordering: OrderCHOLMOD, Mode: Supernodal},
	{Ordering: OrderAMD, Mode: Simplicial},
	{Ordering: OrderMETIS, Mode: Simplicial},
	{Ordering: OrderNESDIS, Mode: Simplicial},
	{Ordering: OrderCHOLMOD, Mode: Simplicial},
}

// benchSystem returns I + L_w for a d-D grid with n vertices per axis.
func benchSystem(d, n int) matrix {
	rng := rand.New(rand.NewPCG(uint64(d), uint64(n)))
	size, es := gridEdges(d, n, rng)
	return laplacianSystem(size, es, 1)
}

// forEach runs body as a sub-benchmark for every size and configuration,
// with a Common and the matrix ready.
func forEach(b *testing.B, body func(b *testing.B, cc *Common, m matrix, a *Sparse, opt AnalyzeOptions)) {
	prev := BLASThreads()
	SetBLASThreads(1)
	defer SetBLASThreads(prev)
	for _, sz := range benchSizes {
		m := benchSystem(sz.d, sz.n)
		for _, opt := range benchConfigs {
			b.Run(fmt.Sprintf("d=%d,n=%d/%v-%v", sz.d, sz.n, opt.Ordering, opt.Mode), func(b *testing.B) {
				cc, err := NewCommon()
				if err != nil {
					b.Fatal(err)
				}
				defer cc.Close()
				a := mustSparse(b, cc, m)
				body(b, cc, m, a, opt)
			})
		}
	}
}

func BenchmarkAnalyze(b *testing.B) {
	forEach(b, func(b *testing.B, cc *Common, m matrix, a *Sparse, opt AnalyzeOptions) {
		var nnzL int
		b.ResetTimer()
		for range b.N {
			f, err := cc.Analyze(a, &opt)
			if err != nil {
				b.Fatal(err)
			}
			nnzL = f.Info().NNZL
			f.Free()
		}
		b.ReportMetric(float64(nnzL), "nnzL")
	})
}

// BenchmarkFactorize times the first numeric factorisation of a fresh
// analysis (which allocates L's values).
func BenchmarkFactorize(b *testing.B) {
	forEach(b, func(b *testing.B, cc *Common, m matrix, a *Sparse, opt AnalyzeOptions) {
		var nnzL int
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			f, err := cc.Analyze(a, &opt)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := f.Factorize(a); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			nnzL = f.Info().NNZL
			f.Free()
			b.StartTimer()
		}
		b.ReportMetric(float64(nnzL), "nnzL")
	})
}

// BenchmarkRefactorize times SetValues + Factorize on an existing factor, the
// per-iteration cost when only the edge weights change.
func BenchmarkRefactorize(b *testing.B) {
	forEach(b, func(b *testing.B, cc *Common, m matrix, a *Sparse, opt AnalyzeOptions) {
		f, err := cc.Analyze(a, &opt)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Factorize(a); err != nil {
			b.Fatal(err)
		}
		v2 := append([]float64(nil), m.values...)
		for k := range v2 {
			v2[k] *= 1.5
		}
		vals := [2][]float64{m.values, v2}
		k := 0
		b.ResetTimer()
		for range b.N {
			k ^= 1
			a.SetValues(vals[k])
			if err := f.Factorize(a); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(f.Info().NNZL), "nnzL")
	})
}

// BenchmarkSolve20 times one cholmod_solve2 of a 20-column block.
func BenchmarkSolve20(b *testing.B) {
	const cols = 20
	forEach(b, func(b *testing.B, cc *Common, m matrix, a *Sparse, opt AnalyzeOptions) {
		f := factorized(b, cc, a, opt)
		defer f.Free()
		rhs := randomBlock(m.n, cols, rand.New(rand.NewPCG(1, 1)))
		x := make([]float64, len(rhs))
		b.ResetTimer()
		for range b.N {
			if err := f.Solve(x, rhs, cols); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(f.Info().NNZL), "nnzL")
	})
}

// factorized returns the numeric factor of a with options opt (which the
// caller frees).
func factorized(tb testing.TB, cc *Common, a *Sparse, opt AnalyzeOptions) *Factor {
	tb.Helper()
	f, err := cc.Analyze(a, &opt)
	if err != nil {
		tb.Fatal(err)
	}
	if err := f.Factorize(a); err != nil {
		f.Free()
		tb.Fatal(err)
	}
	return f
}
