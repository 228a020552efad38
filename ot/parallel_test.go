package ot

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestPartsBitwise checks that the parallel elementwise phases give
// bitwise the same reconstructions, parameter gradient and violations for
// any number of goroutines, in exact mode and with both implicit
// gradients: parts of one row are forced (minPartWork = 1), so with
// GOMAXPROCS = 2, 3 and 8 the rows are cut differently each time, and
// compared with GOMAXPROCS = 1, where the loops run whole; GMRES's inner
// products are cut into chunks of 8 entries, which the parts share out.
func TestPartsBitwise(t *testing.T) {
	defer func(w, p, c int) { minPartWork, vecChunk = w, c; runtime.GOMAXPROCS(p) }(minPartWork, runtime.GOMAXPROCS(0), vecChunk)
	minPartWork, vecChunk = 1, 8
	type result struct {
		recs, grad, viol []float64
		f                float64
	}
	settings := []Settings{{Iterations: 7},
		{Tol: 1e-9, MaxIterations: 400, Gradient: ImplicitFixedPoint},
		{Tol: 1e-9, MaxIterations: 400, Gradient: ImplicitGMRES, Anderson: 3}}
	run := func(tk testKernel, times [][]float64, set Settings, procs int) result {
		runtime.GOMAXPROCS(procs)
		rng := rand.New(rand.NewPCG(21, 5))
		k := tk.make(tk.theta(rng))
		ip, err := NewInterpolator(k, makeSeqs(rng, k.Size(), times), &set)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := ip.Forward()
		if err != nil {
			t.Fatal(err)
		}
		var r result
		grec := shapeLike(recs)
		for s := range recs {
			for j, q := range recs[s] {
				r.recs = append(r.recs, q...)
				grec[s][j] = randVec(rng, k.Size(), -1, 1)
			}
		}
		r.grad = make([]float64, k.NumParams())
		if err := ip.Backward(r.grad, grec); err != nil {
			t.Fatal(err)
		}
		r.viol = append(r.viol, ip.sk.viol...)
		r.f = ip.Stats().Violation
		return r
	}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	for si, set := range settings {
		kernels := testKernels
		if set.Tol > 0 {
			kernels = convergentKernels()
		}
		for _, tk := range kernels {
			for _, sc := range seqCases {
				want := run(tk, sc.times, set, 1)
				for _, procs := range []int{2, 3, 8} {
					got := run(tk, sc.times, set, procs)
					if !same(got.recs, want.recs) || !same(got.grad, want.grad) || !same(got.viol, want.viol) ||
						math.Float64bits(got.f) != math.Float64bits(want.f) {
						t.Errorf("settings %d, %s, %s: GOMAXPROCS = %d differs from 1", si, tk.name, sc.name, procs)
					}
				}
			}
		}
	}
}

// TestPartsNoAllocs checks that Forward and Backward do not allocate when
// their phases run in parts on several goroutines (testing.AllocsPerRun
// cannot say: it sets GOMAXPROCS to 1), counting the process's
// allocations around twenty runs after a first that starts the helpers.
// The Go runtime itself allocates now and then while goroutines wait for
// each other (the record of a waiting goroutine, when its processor's
// cache of them is empty), so the count must stay below one per run: an
// allocation of the runs' own would make it at least twenty.
func TestPartsNoAllocs(t *testing.T) {
	defer func(w, p int) { minPartWork = w; runtime.GOMAXPROCS(p) }(minPartWork, runtime.GOMAXPROCS(4))
	minPartWork = 1
	run := forwardBackward(t)
	run()
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		run()
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n >= runs {
		t.Errorf("%d runs in parts allocated %d times, want fewer than one per run", runs, n)
	}
	if testing.Verbose() {
		t.Logf("%d runs in parts: %d allocations", runs, after.Mallocs-before.Mallocs)
	}
}
