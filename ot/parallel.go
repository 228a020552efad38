package ot

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The elementwise phases run on GOMAXPROCS goroutines: the caller and helpers
// shared by the package, started on first use and blocked on a channel between
// parts. A loop over [0, n) is cut into contiguous parts, each writing only its
// own outputs by the same operations whatever the cut, so results do not depend
// on the number of goroutines; a sum over a column stays in one part.

// minPartWork is the least work a part of a parallel loop is given, in the
// units of parallel's cost (about a nanosecond: a division costs 2, a
// logarithm or an exponential about 12): a helper takes some microseconds
// to wake, so a part must run for some tens of them to pay.
var minPartWork = 1 << 16

// parter runs part lo..hi−1 of its loop of the given phase.
type parter interface {
	runPart(phase, lo, hi int)
}

// part is one part of a loop, sent to a helper.
type part struct {
	p      parter
	phase  int
	lo, hi int
	wg     *sync.WaitGroup
}

// helpers is the package's pool of helper goroutines.
var helpers struct {
	n     atomic.Int32 // helpers started
	mu    sync.Mutex   // serialises starts
	parts chan part
}

// ensureHelpers starts helper goroutines until there are at least n.
func ensureHelpers(n int) {
	if int(helpers.n.Load()) >= n {
		return
	}
	helpers.mu.Lock()
	defer helpers.mu.Unlock()
	if helpers.parts == nil {
		helpers.parts = make(chan part, 4*runtime.NumCPU())
	}
	for int(helpers.n.Load()) < n {
		go func() {
			for pt := range helpers.parts {
				pt.p.runPart(pt.phase, pt.lo, pt.hi)
				pt.wg.Done()
			}
		}()
		helpers.n.Add(1)
	}
}

// parallel runs p.runPart(phase, lo, hi) over the contiguous parts of [0, n) on
// up to GOMAXPROCS goroutines, the caller's included, and returns when all are
// done. cost is the work per index (see minPartWork), for the number of parts;
// wg is the caller's, reused between calls (no allocation).
func parallel(wg *sync.WaitGroup, p parter, phase, n, cost int) {
	k := min(runtime.GOMAXPROCS(0), n, n*cost/minPartWork)
	if k <= 1 {
		if n > 0 {
			p.runPart(phase, 0, n)
		}
		return
	}
	ensureHelpers(k - 1)
	wg.Add(k - 1)
	for t := 1; t < k; t++ {
		helpers.parts <- part{p: p, phase: phase, lo: t * n / k, hi: (t + 1) * n / k, wg: wg}
	}
	p.runPart(phase, 0, n/k)
	wg.Wait()
}
