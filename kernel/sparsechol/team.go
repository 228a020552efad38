package sparsechol

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// team runs the phases of one solve call on p workers: the caller (worker
// 0) and p−1 helper goroutines that live for the call. A phase is a list
// of tasks that may run on any worker. In a phase of run they may run in
// any order: every task writes only what no other task of the phase reads
// or writes. In a phase of runOrdered they are claimed in the order of
// the list, and a task may wait (await) for tasks before it, which are
// then the only ones that write what it reads or writes too. Either way
// the results do not depend on p or on which worker ran what.
//
// Between phases the helpers spin, checking for the next one, and sleep
// only after spinLimit checks: the phases of a solve follow each other
// within microseconds, and waking a sleeping goroutine costs about as much
// as a small phase. The spin does not yield, which would leave the helper
// behind (docs/design.md). Spinning is safe because a solve asks for no
// more workers than GOMAXPROCS and the machine's CPUs (chol.workers), the
// helpers of all the calls on one factor are drawn from one budget of
// Threads−1, and a helper that finds no phase for spinLimit checks sleeps.
type team struct {
	p      int
	budget *atomic.Int32 // where the helpers came from
	// state packs the current phase: its generation (high 32 bits), its
	// number of tasks (16 bits) and the next task to claim (low 16 bits).
	// A worker reads job only after claiming a task of the current
	// generation, and the caller writes job only when every task of the
	// previous one has finished, so job needs no lock.
	state    atomic.Uint64
	left     atomic.Int32 // tasks of the phase not finished
	job      func(worker, task int)
	quit     atomic.Bool
	sleeping atomic.Int32
	mu       sync.Mutex
	cond     sync.Cond
	wg       sync.WaitGroup

	// An ordered phase's: done[k] is seq once its task k has finished
	// (seq counts the ordered phases, so done needs no clearing). Like
	// job, they are written only between phases.
	ordered bool
	seq     uint64
	done    []atomic.Uint64

	// The helpers' start: they take worker numbers from ids and wait for
	// the phases after startGen. helperFn is helperRun, made once, so that
	// starting a helper allocates nothing (a go statement with arguments
	// allocates their closure).
	ids      atomic.Int32
	startGen uint32
	helperFn func()
}

// maxTasks bounds the tasks of one phase that the team shares (the width
// of their count in state); a larger phase runs on the caller.
const maxTasks = 1<<16 - 1

// spinLimit is how many times a helper checks for a new phase before it
// sleeps: some tens of microseconds.
const spinLimit = 1 << 16

func phaseGen(s uint64) uint32 { return uint32(s >> 32) }

// start takes up to want−1 helpers from budget (fewer when it has fewer)
// and starts them; the caller is worker 0.
func (tm *team) start(want int, budget *atomic.Int32) {
	h := 0
	for want > 1 {
		avail := budget.Load()
		h = min(int(avail), want-1)
		if h <= 0 || budget.CompareAndSwap(avail, avail-int32(h)) {
			break
		}
	}
	h = max(h, 0)
	tm.p, tm.budget = h+1, budget
	tm.quit.Store(false)
	tm.cond.L = &tm.mu
	tm.wg.Add(h)
	tm.startGen = phaseGen(tm.state.Load())
	tm.ids.Store(0)
	if tm.helperFn == nil {
		tm.helperFn = tm.helperRun
	}
	for range h {
		go tm.helperFn()
	}
}

// stop ends the helpers and waits for them; until the next start, run
// runs every task on the caller.
func (tm *team) stop() {
	if tm.p > 1 {
		tm.quit.Store(true)
		tm.publish(0)
		tm.wg.Wait()
		tm.budget.Add(int32(tm.p - 1))
	}
	tm.job, tm.p, tm.budget = nil, 0, nil
}

// publish starts a new generation of ntask tasks and wakes sleeping
// helpers.
func (tm *team) publish(ntask int) {
	g := phaseGen(tm.state.Load()) + 1
	tm.state.Store(uint64(g)<<32 | uint64(ntask)<<16)
	if tm.sleeping.Load() > 0 {
		tm.mu.Lock()
		tm.cond.Broadcast()
		tm.mu.Unlock()
	}
}

// run runs job(worker, task) for task = 0..ntask−1 on the team and
// returns when all have finished. With one worker, one task or more than
// maxTasks, the caller runs them in order.
func (tm *team) run(ntask int, job func(worker, task int)) {
	if tm.p <= 1 || ntask <= 1 || ntask > maxTasks {
		for k := range ntask {
			job(0, k)
			tm.finish(k)
		}
		return
	}
	tm.job = job
	tm.left.Store(int32(ntask))
	tm.publish(ntask)
	tm.work(0, phaseGen(tm.state.Load()))
	for spin := 0; tm.left.Load() > 0; spin++ {
		if spin&(spinLimit-1) == spinLimit-1 {
			runtime.Gosched() // a helper may wait for a core
		}
	}
}

// runOrdered runs job(worker, task) for task = 0..ntask−1 as an ordered
// phase: on the team when share is set (as run), else on the caller, in
// order. A task may call await for a task before it.
func (tm *team) runOrdered(ntask int, job func(worker, task int), share bool) {
	if len(tm.done) < ntask {
		tm.done = make([]atomic.Uint64, ntask)
	}
	tm.seq++
	tm.ordered = true
	if share {
		tm.run(ntask, job)
	} else {
		for k := range ntask {
			job(0, k)
			tm.finish(k)
		}
	}
	tm.ordered = false
}

// finish records, in an ordered phase, that task k has finished.
func (tm *team) finish(k int) {
	if tm.ordered {
		tm.done[k].Store(tm.seq)
	}
}

// await returns when task k of the current ordered phase has finished. It
// spins (the tasks are claimed in order, so task k is running already),
// yielding every awaitYield checks, so that the worker of task k runs soon
// even without a CPU of its own (tests run more workers than cores).
func (tm *team) await(k int) {
	for spin := 1; tm.done[k].Load() != tm.seq; spin++ {
		if spin%awaitYield == 0 {
			runtime.Gosched()
		}
	}
}

// awaitYield is how many times await checks between yields: about a
// microsecond, the grain of the shortest tasks, so that a worker whose
// CPU runs nothing else loses little to the yields.
const awaitYield = 256

// work claims and runs tasks of generation gen until none is left.
func (tm *team) work(worker int, gen uint32) {
	for {
		s := tm.state.Load()
		k, n := int(s&0xffff), int(s>>16&0xffff)
		if phaseGen(s) != gen || k >= n {
			return
		}
		if tm.state.CompareAndSwap(s, s+1) {
			tm.job(worker, k)
			tm.finish(k)
			tm.left.Add(-1)
		}
	}
}

// helperRun is a helper: it works on every phase after startGen until
// stop.
func (tm *team) helperRun() {
	defer tm.wg.Done()
	worker, seen := int(tm.ids.Add(1)), tm.startGen
	for {
		g := tm.wait(seen)
		if tm.quit.Load() {
			return
		}
		tm.work(worker, g)
		seen = g
	}
}

// wait returns the generation of the first phase after seen: it spins for
// spinLimit checks and then sleeps.
func (tm *team) wait(seen uint32) uint32 {
	for spin := 0; spin < spinLimit; spin++ {
		if g := phaseGen(tm.state.Load()); g != seen {
			return g
		}
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.sleeping.Add(1)
	defer tm.sleeping.Add(-1)
	for {
		if g := phaseGen(tm.state.Load()); g != seen {
			return g
		}
		tm.cond.Wait()
	}
}
