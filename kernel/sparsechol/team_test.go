package sparsechol

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
)

// TestTeam runs many phases of different sizes on teams of 1 to 16
// workers (more than the cores) and checks that every task of every phase
// runs exactly once, after the tasks of the phase before, and that the
// helpers go back to the budget.
func TestTeam(t *testing.T) {
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
		// A phase too large for the team's count runs on the caller.
		big := 0
		tm.run(maxTasks+1, func(worker, _ int) {
			if worker != 0 {
				t.Errorf("p=%d: a task of a phase of %d ran on worker %d", p, maxTasks+1, worker)
			}
			big++
		})
		if big != maxTasks+1 {
			t.Errorf("p=%d: %d of %d tasks ran", p, big, maxTasks+1)
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

// TestScheduleTime checks the schedule's model: on one worker it takes the
// whole work, more workers never take longer nor less than work/p, the
// 10³ grid's schedule has parallelism to use, and a dense block, one
// supernode in one group, has none.
func TestScheduleTime(t *testing.T) {
	for _, tc := range testCases() {
		f := factorCase(t, tc, 0)
		c := f.(*chol)
		// Each supernode's triangle and rows below, once forward and once
		// backward, however the tasks cut them.
		entries := 0
		for s := range c.sym.ns {
			w, h := c.sym.first[s+1]-c.sym.first[s], c.sym.rowPtr[s+1]-c.sym.rowPtr[s]
			entries += w*(w+1)/2 + (h-w)*w
		}
		w1, t1, err := c.ScheduleTime(1)
		if err != nil || w1 != t1 || w1 != float64(2*entries) {
			t.Errorf("%s, one worker: work %g, time %g, want 2·%d, %v", tc.name, w1, t1, entries, err)
		}
		prev := t1
		for _, p := range []int{2, 3, 8, 16} {
			w, tp, err := c.ScheduleTime(p)
			if err != nil || w != w1 || tp > prev || tp < w/float64(p) {
				t.Errorf("%s, %d workers: work %g (one worker %g), time %g (fewer workers %g), %v", tc.name, p, w, w1, tp, prev, err)
			}
			prev = tp
		}
		if tc.name == "grid[10 10 10]" && w1/prev < 1.5 {
			t.Errorf("%s: the schedule allows only ×%.2f on 16 workers", tc.name, w1/prev)
		}
		f.Close()
	}
	m := heatMatrix(40, completeEdges(40), 1)
	f, err := Backend{}.Analyze(m.pat, &factor.Options{Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// One 40-column supernode, the whole tree, so group 0: its triangle,
	// 40·41/2 entries, forward and backward, in one task each; or two
	// strips of 8 columns side by side, each at rowCost(8)/rowCost(16) of
	// that time.
	const want = 2 * 820
	c := f.(*chol)
	for _, fits := range []bool{false, true} {
		c.fits = fits
		wt := float64(want)
		if fits {
			wt *= rowCost(8) / rowCost(16)
		}
		if w, tp, err := c.ScheduleTime(16); err != nil || w != want || tp != wt {
			t.Errorf("dense 40×40, fits %v: work %g, time %g on 16 workers, want %d and %g (%v)", fits, w, tp, want, wt, err)
		}
	}
	if _, _, err := f.(*chol).ScheduleTime(0); err == nil {
		t.Error("ScheduleTime(0) gave no error")
	}
}

// TestTeamSizes checks the teams a solve takes: within p and growing
// with it, as fast on the model as p workers to teamGain, and smaller than
// p where the model finds the extra workers idle (a 2-D grid's tree on 16
// workers) but not where it still finds them work (a dense factor of one
// supernode takes one worker, whose triangle is one task).
func TestTeamSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	n, es := gridEdges(rng, 100, 100)
	grid := heatMatrix(n, es, 1)
	dense := heatMatrix(40, completeEdges(40), 1)
	for _, tc := range []struct {
		name    string
		m       *testMatrix
		opt     *factor.Options
		team16  func(int) bool
		explain string
	}{
		{"grid 100²", grid, &factor.Options{Grid: []int{100, 100}, Threads: 16}, func(q int) bool { return q < 16 }, "fewer than 16"},
		{"dense 40", dense, &factor.Options{Threads: 16}, func(q int) bool { return q == 1 }, "1"},
	} {
		f, err := Backend{}.Analyze(tc.m.pat, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		c := f.(*chol)
		if len(c.team) != 17 {
			t.Fatalf("%s: %d team sizes, want 17", tc.name, len(c.team))
		}
		for p := 1; p <= 16; p++ {
			q := c.team[p]
			_, tq := c.treeTime(q)
			_, tp := c.treeTime(p)
			if q < 1 || q > p || q < c.team[p-1] || tq > (1+teamGain)*tp {
				t.Errorf("%s: team of %d takes %d (of %d: %d), modelled time %g against %g", tc.name, p, q, p-1, c.team[p-1], tq, tp)
			}
		}
		if !tc.team16(c.team[16]) {
			t.Errorf("%s: a team of 16 takes %d workers, want %s", tc.name, c.team[16], tc.explain)
		}
		if c.teamSize(16) != c.team[16] || c.teamSize(40) != 40 {
			t.Errorf("%s: teamSize(16) = %d, teamSize(40) = %d", tc.name, c.teamSize(16), c.teamSize(40))
		}
		f.Close()
	}
}

// completeEdges lists the edges of the complete graph on n vertices.
func completeEdges(n int) []edge {
	var es []edge
	for i := range n {
		for j := i + 1; j < n; j++ {
			es = append(es, edge{i, j, 1})
		}
	}
	return es
}

// TestWaves checks the top's waves on every test matrix: each top
// supernode is in one wave, after those of its top children, and a wave of
// several supernodes sums every row below them once per supernode, in the
// order of the wave. At least one matrix must have such a wave, so that
// the buffered path is tested.
func TestWaves(t *testing.T) {
	multi := false
	for _, tc := range testCases() {
		f := factorCase(t, tc, 0)
		sym := f.(*chol).sym
		waveOf := make(map[int]int)
		for v := 0; v+1 < len(sym.waveStart); v++ {
			nodes, _ := sym.wave(v)
			want := make(map[int32][]int32) // row → buffer rows
			for _, s := range nodes {
				if _, dup := waveOf[s]; dup {
					t.Fatalf("%s: supernode %d in two waves", tc.name, s)
				}
				waveOf[s] = v
				w := sym.first[s+1] - sym.first[s]
				for r, i := range sym.rows[sym.rowPtr[s]+w : sym.rowPtr[s+1]] {
					want[i] = append(want[i], int32(sym.bufRow[s]+r))
				}
			}
			if len(nodes) == 1 {
				continue
			}
			multi = true
			got := 0
			for j := sym.waveSum[v]; j < sym.waveSum[v+1]; j++ {
				src := sym.sumSrc[sym.sumPtr[j]:sym.sumPtr[j+1]]
				if w := want[sym.sumRows[j]]; !slices.Equal(src, w) {
					t.Errorf("%s, wave %d: row %d sums %v, want %v", tc.name, v, sym.sumRows[j], src, w)
				}
				got++
			}
			if got != len(want) {
				t.Errorf("%s, wave %d: %d rows summed, %d below its supernodes", tc.name, v, got, len(want))
			}
		}
		for s := sym.gStart[sym.ng]; s < sym.ns; s++ {
			if q := sym.parent[s]; q >= 0 && waveOf[q] <= waveOf[s] {
				t.Errorf("%s: supernode %d (wave %d) not after its child %d (wave %d)", tc.name, q, waveOf[q], s, waveOf[s])
			}
		}
		if len(waveOf) != sym.ns-sym.gStart[sym.ng] {
			t.Errorf("%s: %d supernodes in waves, %d in the top", tc.name, len(waveOf), sym.ns-sym.gStart[sym.ng])
		}
		f.Close()
	}
	if !multi {
		t.Error("no test matrix has a wave of several supernodes")
	}
}

// TestSolveAllocatesNothing checks that steady-state SolveSteps and
// AdjointSteps calls allocate nothing on teams of 1, 2 and 4 workers, the
// block whole or in strips (the helpers' goroutines, the strips' leaders
// and the adjoint's second chain included), at 16 columns (on one worker
// the adjoint's chains paired, adjointPaired) and 20.
func TestSolveAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	defer func(v bool) { capWorkers = v }(capWorkers)
	defer func() { splitAll = false }()
	capWorkers = false
	rng := rand.New(rand.NewPCG(3, 3))
	n, es := gridEdges(rng, 40, 40)
	m := heatMatrix(n, es, 3)
	m.grid = []int{40, 40}
	from, to := patternEdges(m.pat)
	const steps = 5
	for _, cols := range []int{16, 20} {
		allocations(t, m, from, to, rng, cols, steps)
	}
}

// allocations is TestSolveAllocatesNothing at cols columns.
func allocations(t *testing.T, m *testMatrix, from, to []int, rng *rand.Rand, cols, steps int) {
	n := m.pat.N
	b, g := randomBlock(rng, n*cols), randomBlock(rng, n*cols)
	x, gw := make([]float64, n*cols), make([]float64, len(from))
	for _, threads := range []int{1, 2, 4} {
		f := factorCase(t, testCase{"grid40", m}, threads)
		if w := f.(*chol).workers(cols); w != threads {
			t.Fatalf("%d threads: a solve of %d columns runs on %d workers", threads, cols, w)
		}
		as := f.(factor.StepSolver)
		for k := range 4 {
			parallel := k%2 == 1
			splitAll = k >= 2
			solve := func() {
				if err := as.SolveSteps(x, b, cols, steps, false, false); err != nil {
					t.Fatal(err)
				}
			}
			adjoint := func() {
				if err := as.AdjointSteps(x, gw, b, g, cols, steps, from, to, 1, parallel); err != nil {
					t.Fatal(err)
				}
			}
			solve()
			adjoint()
			if a := testing.AllocsPerRun(5, solve); a > 0 {
				t.Errorf("%d columns, %d threads, strips %v: SolveSteps allocates %v times", cols, threads, splitAll, a)
			}
			if a := testing.AllocsPerRun(5, adjoint); a > 0 {
				t.Errorf("%d columns, %d threads, parallel %v, strips %v: AdjointSteps allocates %v times", cols, threads, parallel, splitAll, a)
			}
		}
		f.Close()
	}
}

// TestPlans checks every wave's task lists on every test matrix: each task
// waits only for tasks before it, and of any two tasks of a supernode where
// one writes rows (forward) or columns (backward) that the other reads or
// writes, the later waits for the earlier, directly or through others.
// Then the tasks may run in any order their waits allow and still do the
// same operations in the same order on every value. At least one list
// must hold tasks that wait, and one must be shared on a solve's team.
func TestPlans(t *testing.T) {
	waits, shared := false, false
	for _, tc := range testCases() {
		f := factorCase(t, tc, 0)
		sym := f.(*chol).sym
		for v := 0; v+1 < len(sym.waveStart); v++ {
			buffered := sym.waveStart[v+1]-sym.waveStart[v] > 1
			for _, dir := range []struct {
				name string
				plan []topTask
			}{
				{"forward", sym.fwdPlan[sym.fwdAt[v]:sym.fwdAt[v+1]]},
				{"backward", sym.bwdPlan[sym.bwdAt[v]:sym.bwdAt[v+1]]},
			} {
				work := 0
				for _, task := range dir.plan {
					work += task.cost
				}
				if work != sym.waveWork[v] {
					t.Errorf("%s, wave %d, %s: tasks of %d entries, waveWork %d", tc.name, v, dir.name, work, sym.waveWork[v])
				}
				// Shared on a block of modelCols right-hand sides, as
				// ScheduleTime models it.
				shared = shared || worthSharing(work, modelCols)
				if msg := checkPlan(sym, dir.plan, dir.name == "forward", buffered); msg != "" {
					t.Errorf("%s, wave %d, %s: %s", tc.name, v, dir.name, msg)
				}
				for _, task := range dir.plan {
					waits = waits || task.after[0] >= 0
				}
			}
		}
		f.Close()
	}
	if !waits || !shared {
		t.Errorf("no list waits (%v) or none is shared (%v)", !waits, !shared)
	}
}

// checkPlan checks one wave's list (see TestPlans) and says what is wrong.
func checkPlan(sym *symbolic, plan []topTask, forward, buffered bool) string {
	n := len(plan)
	// reach[j][i]: task j waits for task i, directly or through others.
	reach := make([][]bool, n)
	for j, task := range plan {
		reach[j] = make([]bool, n)
		for _, d := range task.after {
			if d < 0 {
				continue
			}
			if int(d) >= j {
				return fmt.Sprintf("task %d waits for task %d", j, d)
			}
			reach[j][d] = true
			for i := range int(d) {
				reach[j][i] = reach[j][i] || reach[d][i]
			}
		}
	}
	// The positions each task reads and writes, as half-open ranges.
	type span struct{ a, b int }
	access := func(task topTask) (read, write []span) {
		w := sym.first[task.s+1] - sym.first[task.s]
		h := sym.rowPtr[task.s+1] - sym.rowPtr[task.s]
		switch {
		case task.diag:
			read = []span{{task.p0, task.p1}}
			write = []span{{task.p0, task.p1}}
			if forward && buffered && task.p0 == 0 {
				write = append(write, span{w, h}) // clears the buffer
			}
		case forward || task.p0 < w:
			read = []span{{task.p0, task.p1}}
			write = []span{{task.a, task.b}}
		default: // the rows below, solved in a wave before
			write = []span{{task.a, task.b}}
		}
		return read, write
	}
	meets := func(x, y []span) bool {
		for _, p := range x {
			for _, q := range y {
				if p.a < q.b && q.a < p.b {
					return true
				}
			}
		}
		return false
	}
	for j := range n {
		rj, wj := access(plan[j])
		for i := range j {
			if plan[i].s != plan[j].s || reach[j][i] {
				continue
			}
			ri, wi := access(plan[i])
			if meets(wi, wj) || meets(wi, rj) || meets(ri, wj) {
				return fmt.Sprintf("task %d (%+v) does not wait for task %d (%+v)", j, plan[j], i, plan[i])
			}
		}
	}
	return ""
}

// TestTeamOrdered runs ordered phases whose tasks wait for random earlier
// ones on teams of 1 to 16 workers (more than the cores) and checks that
// every task starts after those it waits for have finished.
func TestTeamOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, p := range []int{1, 2, 3, 8, 16} {
		var budget atomic.Int32
		budget.Store(int32(p - 1))
		var tm team
		tm.start(p, &budget)
		for phase := range 40 {
			n := 1 + rng.IntN(100)
			// Each task yields up to 20 times before it ends, so that
			// tasks end out of the order they were claimed in.
			after, delay := make([][]int, n), make([]int, n)
			for k := range n {
				delay[k] = rng.IntN(20)
			}
			for k := 1; k < n; k++ {
				for range rng.IntN(3) {
					after[k] = append(after[k], rng.IntN(k))
				}
			}
			finished := make([]atomic.Bool, n)
			tm.runOrdered(n, func(_, k int) {
				for _, d := range after[k] {
					tm.await(d)
					if !finished[d].Load() {
						t.Errorf("p=%d, phase %d: task %d went on before task %d finished", p, phase, k, d)
					}
				}
				for range delay[k] {
					runtime.Gosched()
				}
				finished[k].Store(true)
			}, phase%5 != 0)
			for k := range finished {
				if !finished[k].Load() {
					t.Errorf("p=%d, phase %d: task %d did not run", p, phase, k)
				}
			}
		}
		tm.stop()
	}
}
