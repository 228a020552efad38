package sparsechol

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestTeam runs many phases of different sizes on teams of 1 to 16
// workers (more than the cores) and checks that every task of every phase
// runs exactly once, after the tasks of the phase before, and that the
// helpers go back to the budget.
func TestTeam(t *testing.T) {
	defer func(v bool) { capWorkers = v }(capWorkers)
	capWorkers = false
	for _, p := range []int{1, 2, 3, 8, 16} {
		var budget atomic.Int32
		budget.Store(int32(p - 1))
		var tm team
		tm.start(p, &budget)
		if tm.p != p || budget.Load() != 0 {
			t.Fatalf("p=%d: team of %d, %d helpers left in the budget", p, tm.p, budget.Load())
		}
		runs := make([]int32, 300)
		for phase := range 200 {
			n := phase % 7 * 40 // 0 to 240 tasks
			job := func(_, k int) {
				if got := atomic.AddInt32(&runs[k], 1); got != int32(phase+1) {
					t.Errorf("p=%d, phase %d: task %d has run %d times in all", p, phase, k, got)
				}
			}
			tm.run(n, job)
			for k := n; k < len(runs); k++ {
				atomic.AddInt32(&runs[k], 1) // not part of this phase
			}
		}
		tm.stop()
		if budget.Load() != int32(p-1) {
			t.Errorf("p=%d: %d helpers back in the budget, want %d", p, budget.Load(), p-1)
		}
	}
}

// TestTeamBudget checks that concurrent teams drawing on one budget never
// hold more helpers than it has.
func TestTeamBudget(t *testing.T) {
	defer func(v bool) { capWorkers = v }(capWorkers)
	capWorkers = false
	const helpers = 5
	var budget atomic.Int32
	budget.Store(helpers)
	var held, most atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				var tm team
				tm.start(4, &budget)
				h := held.Add(int32(tm.p - 1))
				for {
					m := most.Load()
					if h <= m || most.CompareAndSwap(m, h) {
						break
					}
				}
				tm.run(8, func(int, int) {})
				held.Add(-int32(tm.p - 1))
				tm.stop()
			}
		}()
	}
	wg.Wait()
	if most.Load() > helpers || budget.Load() != helpers {
		t.Errorf("at most %d helpers held at once (budget %d); %d back in the budget", most.Load(), helpers, budget.Load())
	}
}
