package sparsechol

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/gmlg/gmlg/kernel/factor"
)

// The schedule of one solve on p workers (see team). Every pass runs the
// same tasks whatever p is, so that each value takes the same operations in
// the same order:
//
//   - forward, groups: each of the ng groups eliminates its subtrees, the
//     rows of its own supernodes in x, its updates of the top rows in x
//     (group 0) or in buffer rows of its own (the others);
//   - forward, sums: the groups' buffer rows are added to the top rows,
//     row by row in group order, sumChunk rows a task;
//   - forward, top: the top's waves one after the other (a wave is the top
//     supernodes whose longest chain of top descendants is as long), each
//     one phase whose tasks go panel by panel (panelWidth columns): the
//     diagonal blocks of every supernode's panel, then the rows below in
//     chunks of panelWidth rows, into the block, or in a wave of several
//     supernodes (which may update the same rows) into a buffer of each,
//     which the wave's sums add to the block in the order of the wave;
//   - backward, top: the waves from the last, each one phase: the products
//     of the rows below each supernode (L21ᵀ) in chunks of panelWidth
//     columns, then the diagonal blocks panel by panel from each
//     supernode's last: a panel's triangle, one task per supernode, then
//     the columns before it in chunks of panelWidth;
//   - backward, groups: each group solves its subtrees and scatters their
//     rows; one more task scatters the top rows.
//
// The tasks of a wave are not independent: a panel's triangle needs the
// updates of its rows by the panels before it, and a chunk its panel's
// triangle and the chunk of the panel before that wrote the same rows.
// Each task waits for those (topTask.after) and no other, so a panel's
// triangle starts as soon as the chunk of its own rows is done while the
// rest of the panel before is still being taken into the rows below. The
// tasks are claimed in the order of the list, which puts every task after
// those it waits for, so that the earliest unfinished task can always run
// (team.await), and the rows a task writes are written by the same tasks
// in the same order whatever the workers. A phase too small to share
// (minPhaseWork) runs its tasks on the caller, in the order of its list.
type solveWork struct {
	x    []float64
	wbuf []float64 // the buffer rows of the groups, then of the current wave
	pack []float64 // the current wave's packed blocks (forwardAVX)

	// The current call.
	sym      *symbolic
	num      *numeric
	dst, b   []float64
	cols     int
	cw       int
	b2       []float64   // a second block, gathered into the values from lane2 on (adjointPaired)
	lane2    int         // and the value of a row that dst's first column takes (0 without b2)
	first    bool        // the pass gathers b
	finite   []bool      // per group, then the top rows: scatter wrote finite values
	packs    [][]float64 // per worker: scratch of the groups' forward kernels
	tm       team
	tasks    []topTask // the current wave's (a part of symbolic's plans)
	buffered bool      // the current wave sends its updates below to wbuf
	sum0     int       // the current sums phase's first sum
	sum1     int       // and its end
	phaseFn  [numPhases]func(worker, task int)

	// A call's strips (split.go), and a strip's call, first column and
	// whether its scattered values were finite; SolveSteps' arguments.
	parts          []*solveWork
	home           *solveWork
	k0, steps      int
	ok             bool
	out            []float64
	every, reverse bool

	// AdjointSteps: a strip's kept iterates, the block its pass copies its
	// solution to (unless nil) and its range of edges; a chain's edge
	// sums, the iterates they pair (per strip) and its current iterate;
	// the call's state (in the forward chain's workspace; run in all).
	chain, keep, acc []float64
	eLo, eHi, l      int
	eu, ew           [][]float64
	adj              adjointRun
	run              *adjointRun

	// adjointAsync is adjointAsyncRun, made once so that starting it
	// allocates nothing.
	adjointAsync func()
}

// topTask is a task of the top: of supernode s, the row positions (or
// columns) a..b-1 with the panel p0..p1-1; cost is its entries of L. diag
// marks a panel's diagonal block; the other tasks take a panel into rows
// below it (forward) or columns before it (backward, where the products of
// the rows below the supernode have the panel w..h-1). A task starts after
// the tasks after[k] ≥ 0 of its wave's list have finished.
type topTask struct {
	s, a, b, p0, p1, cost int
	diag                  bool
	after                 [maxAfter]int32
}

// maxAfter bounds the tasks one task of the top waits for: its panel's
// triangle and the last tasks that wrote its rows (or columns), at most
// three for panelWidth of them (a chunk is cut where a supernode's rows
// below begin, and a last panel narrower than panelWidth shifts the
// chunks after it).
const maxAfter = 4

const (
	phaseGroupsForward = iota
	phaseSums
	phaseTopForward
	phaseTopBackward
	phaseGroupsBackward
	phaseEdges
	phaseSteps
	phasePass
	phaseEdgeRange
	numPhases
)

// panelWidth is the columns of a panel and the rows or columns of a chunk
// in the top of the tree: the grain of the schedule that factor.Tree.Span
// measures (see factor.SpanBlock for why 32).
const panelWidth = factor.SpanBlock

// sumChunk is the rows of the block (sums) one task of a sums phase adds
// to: at 16 right-hand sides, 32 KiB of the block and more of the buffer,
// some microseconds (a grain chosen, not tuned).
const sumChunk = 256

// minPhaseWork is the least modelled time (entries of L times rowCost of
// the block's width) for which a phase of the top is shared between the
// workers (worthSharing); below it the caller runs its tasks. 2¹⁶ is 4096
// entries of a 16-column block, some microseconds on one core, the order
// of what publishing a phase and waiting for its end costs. On two
// workers it took 16-column solves on 50² to 0.90–0.94 of their time with
// a threshold of 2¹⁵ multiply-adds and made no other grid or width slower
// beyond the spread; 2¹⁶ multiply-adds, without rowCost, made 8-column
// solves on 100² 13% slower (docs/design.md).
const minPhaseWork = 1 << 16

// worthSharing reports whether a phase of the top that reads work entries
// of L of a block of cw values a row is worth sharing (minPhaseWork).
func worthSharing(work, cw int) bool { return float64(work)*rowCost(cw) >= minPhaseWork }

// minParallelWork is the smallest cols·|L| for which a solve starts
// helpers; below it starting them costs more than they save.
const minParallelWork = 1 << 16

// capWorkers keeps a solve's team within GOMAXPROCS and the machine's
// CPUs: a spinning helper without a CPU of its own only delays the others.
// Tests turn it off to run more workers than cores.
var capWorkers = true

// workers is the number of workers a solve of cols columns runs on: the
// factor's threads, within GOMAXPROCS and the machine's CPUs.
func (c *chol) workers(cols int) int {
	if cols*c.sym.lsize < minParallelWork {
		return 1
	}
	if capWorkers {
		return min(c.threads, runtime.GOMAXPROCS(0), runtime.NumCPU())
	}
	return c.threads
}

// teamGain is how much longer than on p workers, as a share of that time
// in the schedule's model, a solve may take on the smaller team that
// teamSizes picks for p.
const teamGain = 0.02

// teamSizes sets, for every p up to the factor's threads, the tree
// schedule's modelled time on p workers (treeTime) and the fewest workers
// on which it runs a solve within teamGain of that time: beyond, a worker
// finds almost no task to take and spins between phases, for the same
// wall time and more CPU time (docs/design.md). A team is smaller, its
// tasks the same, so no value depends on it. p stops at the machine's
// CPUs, or at 64 on a machine with fewer: a team never has more workers
// than CPUs (chol.workers), and teamSize leaves the larger teams of tests
// that turn capWorkers off as they are.
func (c *chol) teamSizes() {
	n := min(c.threads, max(runtime.NumCPU(), 64))
	t := make([]float64, n+1)
	for p := 1; p <= n; p++ {
		_, t[p] = c.treeTime(p)
	}
	team := make([]int, n+1)
	q := 1
	for p := 1; p <= n; p++ {
		for t[q] > (1+teamGain)*t[p] {
			q++
		}
		team[p] = q
	}
	c.tree, c.team = t, team
}

// teamSize is the workers a team of up to p takes: team[p], or p when
// tests turn capWorkers off to run many workers.
func (c *chol) teamSize(p int) int {
	if !capWorkers || p >= len(c.team) {
		return p
	}
	return c.team[p]
}

// solveSteps applies A⁻¹ steps times to the column-major N×cols block b
// (see factor.StepSolver for out, keep and reverse), whole or in strips
// (split). The block stays in the vertex-major workspace from one step to
// the next: it is gathered once, and scattered only where out receives an
// iterate. It reports whether every value written to out is finite.
func (c *chol) solveSteps(out, b []float64, cols, steps int, keep, reverse bool) bool {
	q, t := c.split(c.workers(cols), cols)
	ws := c.parts(b, cols, q)
	ws.out, ws.steps, ws.every, ws.reverse = out, steps, keep, reverse
	ws.start(c.teamSize(t), c)
	ws.each(ws.phaseFn[phaseSteps])
	ws.stop()
	ok := ws.allOK()
	ws.out = nil
	c.putParts(ws)
	return ok
}

// prepare takes a workspace for solves of the N×cols block b and sizes it.
func (c *chol) prepare(b []float64, cols int) *solveWork {
	sym := c.sym
	n := sym.n
	ws := c.getWork()
	cw := blockWidth(cols)
	ws.sym, ws.num, ws.b, ws.cols, ws.cw = sym, c.num, b, cols, cw
	ws.x, ws.pack, ws.wbuf = sized(ws.x, n*cw), sized(ws.pack, sym.maxPack*cw), sized(ws.wbuf, sym.maxBuf*cw)
	if len(ws.finite) < sym.ng+1 {
		ws.finite = make([]bool, sym.ng+1)
	}
	if len(ws.packs) < c.threads {
		ws.packs = append(ws.packs, make([][]float64, c.threads-len(ws.packs))...)
	}
	for t := range ws.packs {
		ws.packs[t] = sized(ws.packs[t], packSize(sym, cw))
	}
	return ws
}

// sized returns b with length n, reallocated only when it is too small.
func sized(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// pass runs one solve on the workspace: the forward and backward
// substitutions, gathering b first when ws.first and scattering the result
// to ws.dst unless it is nil. It reports whether every value scattered is
// finite.
func (ws *solveWork) pass() bool {
	sym := ws.sym
	if ws.first {
		ws.gather(sym.topCol, sym.n)
	}
	ws.tm.run(sym.ng, ws.phaseFn[phaseGroupsForward])
	ws.sums(0, sym.waveSum[0])
	nw := len(sym.waveStart) - 1
	for v := range nw {
		ws.waveForward(v)
	}
	for v := nw - 1; v >= 0; v-- {
		ws.waveBackward(v)
	}
	ws.tm.run(sym.ng+1, ws.phaseFn[phaseGroupsBackward])
	return !slices.Contains(ws.finite[:sym.ng+1], false)
}

// groupForward eliminates the subtrees of the k-th group to claim.
func (ws *solveWork) groupForward(worker, k int) {
	sym, cw := ws.sym, ws.cw
	g := sym.groupOrder[k]
	x := ws.x[:sym.n*cw]
	s0, s1 := sym.gStart[g], sym.gStart[g+1]
	if ws.first {
		ws.gather(sym.first[s0], sym.first[s1])
	}
	tgt, trows := x, sym.rows
	if g > 0 {
		tgt, trows = ws.wbuf, sym.trows
		clear(tgt[sym.gBase[g]*cw : sym.gBase[g+1]*cw])
	}
	forwardRange(sym, ws.num, s0, s1, x, tgt, trows, cw, ws.packs[worker])
}

// wave returns the supernodes of wave v and its widest supernode's width.
func (sym *symbolic) wave(v int) (nodes []int, widest int) {
	nodes = sym.waveNodes[sym.waveStart[v]:sym.waveStart[v+1]]
	for _, s := range nodes {
		widest = max(widest, sym.first[s+1]-sym.first[s])
	}
	return nodes, widest
}

// The top's tasks, for makePlans. Each appends to dst.

// newTask returns a task that waits for none.
func newTask(s, a, b, p0, p1, cost int) topTask {
	t := topTask{s: s, a: a, b: b, p0: p0, p1: p1, cost: cost}
	for k := range t.after {
		t.after[k] = -1
	}
	return t
}

// diagTask returns the task of the diagonal block of s's panel p0..p1-1.
func diagTask(s, p0, p1 int) topTask {
	t := newTask(s, p0, p1, p0, p1, (p1-p0)*(p1-p0+1)/2)
	t.diag = true
	return t
}

// fwdDiagTasks: the diagonal blocks of the panels from p0 of nodes.
func (sym *symbolic) fwdDiagTasks(dst []topTask, nodes []int, p0 int) []topTask {
	for _, s := range nodes {
		if w := sym.first[s+1] - sym.first[s]; p0 < w {
			p1 := min(p0+panelWidth, w)
			dst = append(dst, diagTask(s, p0, p1))
		}
	}
	return dst
}

// fwdRowTasks: the rows below the panels from p0 of nodes, in chunks
// (buffered: cut where the rows below the supernode begin).
func (sym *symbolic) fwdRowTasks(dst []topTask, nodes []int, p0 int, buffered bool) []topTask {
	for _, s := range nodes {
		w, h := sym.first[s+1]-sym.first[s], sym.rowPtr[s+1]-sym.rowPtr[s]
		if p0 >= w {
			continue
		}
		p1 := min(p0+panelWidth, w)
		for r0 := p1; r0 < h; r0 += panelWidth {
			a, r1 := r0, min(r0+panelWidth, h)
			if buffered && a < w && r1 > w {
				dst = append(dst, newTask(s, a, w, p0, p1, (w-a)*(p1-p0)))
				a = w
			}
			dst = append(dst, newTask(s, a, r1, p0, p1, (r1-a)*(p1-p0)))
		}
	}
	return dst
}

// bwdBelowTasks: the products of the rows below nodes, in chunks of
// columns.
func (sym *symbolic) bwdBelowTasks(dst []topTask, nodes []int) []topTask {
	for _, s := range nodes {
		w, h := sym.first[s+1]-sym.first[s], sym.rowPtr[s+1]-sym.rowPtr[s]
		if h == w {
			continue
		}
		for k0 := 0; k0 < w; k0 += panelWidth {
			k1 := min(k0+panelWidth, w)
			dst = append(dst, newTask(s, k0, k1, w, h, (k1-k0)*(h-w)))
		}
	}
	return dst
}

// bwdPanel returns the panel of supernode s that the backward step j
// (0 for its last panel) takes, or ok false when s has fewer.
func (sym *symbolic) bwdPanel(s, j int) (p0, p1 int, ok bool) {
	w := sym.first[s+1] - sym.first[s]
	k := (w+panelWidth-1)/panelWidth - 1 - j
	if k < 0 {
		return 0, 0, false
	}
	return k * panelWidth, min(k*panelWidth+panelWidth, w), true
}

// bwdDiagTasks: the triangles of the panels of step j of nodes.
func (sym *symbolic) bwdDiagTasks(dst []topTask, nodes []int, j int) []topTask {
	for _, s := range nodes {
		if p0, p1, ok := sym.bwdPanel(s, j); ok {
			dst = append(dst, diagTask(s, p0, p1))
		}
	}
	return dst
}

// bwdColTasks: the columns before the panels of step j of nodes, in
// chunks.
func (sym *symbolic) bwdColTasks(dst []topTask, nodes []int, j int) []topTask {
	for _, s := range nodes {
		p0, p1, ok := sym.bwdPanel(s, j)
		for k0 := 0; ok && k0 < p0; k0 += panelWidth {
			k1 := min(k0+panelWidth, p0)
			dst = append(dst, newTask(s, k0, k1, p0, p1, (k1-k0)*(p1-p0)))
		}
	}
	return dst
}

// makePlans lists the tasks of every wave, forward and backward, in the
// order of a pass (the panels of the wave in turn, each panel's triangles
// before the chunks it updates) and sets what each waits for: the
// triangle of its panel, and the last tasks before it that wrote any of
// its rows (forward) or columns (backward).
func (sym *symbolic) makePlans() {
	nw := len(sym.waveStart) - 1
	sym.fwdAt, sym.bwdAt = make([]int, nw+1), make([]int, nw+1)
	sym.waveWork = make([]int, nw)
	var tasks []topTask
	// last[s][r]: the task of the current wave's list that last wrote the
	// row (column) at position r of s; tri[s]: its current triangle.
	last := make(map[int][]int32)
	tri := make(map[int]int32)
	// add appends the tasks to plan with what they wait for.
	add := func(plan []topTask, start int) []topTask {
		for _, t := range tasks {
			k := int32(len(plan) - start)
			deps := t.after[:0]
			if d, ok := tri[t.s]; ok && !t.diag {
				deps = append(deps, d)
			}
			lw := last[t.s]
			for r := t.a; r < t.b; r++ {
				if d := lw[r]; d >= 0 && !slices.Contains(deps, d) {
					if len(deps) == maxAfter {
						panic("sparsechol: a task of the top waits for too many")
					}
					deps = append(deps, d)
				}
				lw[r] = k
			}
			if t.diag {
				tri[t.s] = k
			}
			plan = append(plan, t)
		}
		return plan
	}
	// reset starts a wave's list.
	reset := func(nodes []int) {
		clear(tri)
		for _, s := range nodes {
			h := sym.rowPtr[s+1] - sym.rowPtr[s]
			lw := slices.Grow(last[s][:0], h)[:h]
			for r := range lw {
				lw[r] = -1
			}
			last[s] = lw
		}
	}
	for v := range nw {
		nodes, widest := sym.wave(v)
		buffered := len(nodes) > 1
		start := len(sym.fwdPlan)
		reset(nodes)
		for p0 := 0; p0 < widest; p0 += panelWidth {
			tasks = sym.fwdDiagTasks(tasks[:0], nodes, p0)
			sym.fwdPlan = add(sym.fwdPlan, start)
			tasks = sym.fwdRowTasks(tasks[:0], nodes, p0, buffered)
			sym.fwdPlan = add(sym.fwdPlan, start)
		}
		sym.fwdAt[v+1] = len(sym.fwdPlan)
		for _, t := range sym.fwdPlan[start:] {
			sym.waveWork[v] += t.cost
		}

		start = len(sym.bwdPlan)
		reset(nodes)
		tasks = sym.bwdBelowTasks(tasks[:0], nodes)
		sym.bwdPlan = add(sym.bwdPlan, start)
		for j := 0; j*panelWidth < widest; j++ {
			tasks = sym.bwdDiagTasks(tasks[:0], nodes, j)
			sym.bwdPlan = add(sym.bwdPlan, start)
			tasks = sym.bwdColTasks(tasks[:0], nodes, j)
			sym.bwdPlan = add(sym.bwdPlan, start)
		}
		sym.bwdAt[v+1] = len(sym.bwdPlan)
	}
}

// waveForward eliminates the supernodes of wave v.
func (ws *solveWork) waveForward(v int) {
	sym := ws.sym
	ws.buffered = sym.waveStart[v+1]-sym.waveStart[v] > 1
	ws.tasks = sym.fwdPlan[sym.fwdAt[v]:sym.fwdAt[v+1]:sym.fwdAt[v+1]]
	ws.runTasks(phaseTopForward, sym.waveWork[v])
	if ws.buffered {
		ws.sums(sym.waveSum[v], sym.waveSum[v+1])
	}
}

// waveBackward solves with the transposes of the supernodes of wave v.
func (ws *solveWork) waveBackward(v int) {
	sym := ws.sym
	ws.tasks = sym.bwdPlan[sym.bwdAt[v]:sym.bwdAt[v+1]:sym.bwdAt[v+1]]
	ws.runTasks(phaseTopBackward, sym.waveWork[v])
}

// runTasks runs ws.tasks, which read work entries of L, as an ordered
// phase: on the team when their work is worth sharing, else on the caller.
func (ws *solveWork) runTasks(phase, work int) {
	ws.tm.runOrdered(len(ws.tasks), ws.phaseFn[phase], worthSharing(work, ws.cw))
}

// await waits for the tasks that task t waits for.
func (ws *solveWork) await(t *topTask) {
	for _, k := range t.after {
		if k >= 0 {
			ws.tm.await(int(k))
		}
	}
}

// topForward runs task k of the current wave's forward list.
func (ws *solveWork) topForward(_, k int) {
	t := &ws.tasks[k]
	ws.await(t)
	if t.diag {
		ws.fwdDiagTask(t)
	} else {
		ws.fwdRowsTask(t)
	}
}

// topBackward runs task k of the current wave's backward list.
func (ws *solveWork) topBackward(_, k int) {
	t := &ws.tasks[k]
	ws.await(t)
	if t.diag {
		topBwdDiag(ws.sym, ws.num, t.s, t.p0, t.p1, ws.x, ws.cw)
	} else {
		topBwdCols(ws.sym, ws.num, t.s, t.a, t.b, t.p0, t.p1, ws.x, ws.cw)
	}
}

// wavePack returns supernode s's packed block in the wave's.
func (ws *solveWork) wavePack(s int) []float64 {
	w := ws.sym.first[s+1] - ws.sym.first[s]
	return ws.pack[ws.sym.packCol[s]*ws.cw : (ws.sym.packCol[s]+w)*ws.cw]
}

// fwdDiagTask solves the diagonal block of a panel; in a buffered wave it
// clears the supernode's buffer first.
func (ws *solveWork) fwdDiagTask(t *topTask) {
	sym, cw := ws.sym, ws.cw
	if ws.buffered && t.p0 == 0 {
		below := sym.rowPtr[t.s+1] - sym.rowPtr[t.s] - (sym.first[t.s+1] - sym.first[t.s])
		clear(ws.wbuf[sym.bufRow[t.s]*cw : (sym.bufRow[t.s]+below)*cw])
	}
	topFwdDiag(sym, ws.num, t.s, t.p0, t.p1, ws.x, ws.wavePack(t.s), cw)
}

// fwdRowsTask takes a panel's columns into a chunk of rows: those of the
// block, or in a buffered wave the supernode's buffer rows for the rows
// below it.
func (ws *solveWork) fwdRowsTask(t *topTask) {
	sym := ws.sym
	w := sym.first[t.s+1] - sym.first[t.s]
	tgt, trows := ws.x, sym.rows[sym.rowPtr[t.s]+t.a:sym.rowPtr[t.s]+t.b]
	if ws.buffered && t.a >= w {
		r := sym.bufRow[t.s] + t.a - w
		tgt, trows = ws.wbuf, sym.iota[r:r+t.b-t.a]
	}
	topFwdRows(sym, ws.num, t.s, t.p0, t.p1, t.a, t.b, ws.x, tgt, trows, ws.wavePack(t.s), ws.cw)
}

// sums adds the buffer rows of sums j0..j1-1 to the block, in chunks of
// sumChunk sums.
func (ws *solveWork) sums(j0, j1 int) {
	ws.sum0, ws.sum1 = j0, j1
	ws.tm.run((j1-j0+sumChunk-1)/sumChunk, ws.phaseFn[phaseSums])
}

// sumTask adds the buffer rows of chunk k of the current sums to the
// block.
func (ws *solveWork) sumTask(_, k int) {
	j0 := ws.sum0 + k*sumChunk
	sumRows(ws.sym, ws.x, ws.wbuf, j0, min(j0+sumChunk, ws.sum1), ws.cw)
}

// groupBackward solves with the transposes of the supernodes of the k-th
// group to claim and scatters their rows; task ng scatters the top rows.
// Each task also copies its rows into ws.keep, if set, while they are in
// cache.
func (ws *solveWork) groupBackward(_, k int) {
	sym, cw := ws.sym, ws.cw
	i0, i1 := sym.topCol, sym.n
	if k < sym.ng {
		g := sym.groupOrder[k]
		s0, s1 := sym.gStart[g], sym.gStart[g+1]
		backwardRange(sym, ws.num, s0, s1, ws.x[:sym.n*cw], cw)
		i0, i1 = sym.first[s0], sym.first[s1]
		k = g
	}
	ws.finite[k] = ws.scatter(i0, i1)
	if ws.keep != nil {
		copy(ws.keep[i0*cw:i1*cw], ws.x[i0*cw:i1*cw])
	}
}

// getWork takes a workspace from the factor's free list. The list keeps
// every workspace ever made (as many as the largest number of concurrent
// Solves), so steady-state calls never allocate.
func (c *chol) getWork() *solveWork {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := len(c.free); k > 0 {
		ws := c.free[k-1]
		c.free = c.free[:k-1]
		return ws
	}
	ws := new(solveWork)
	ws.adjointAsync = ws.adjointAsyncRun
	ws.phaseFn = [numPhases]func(worker, task int){
		phaseGroupsForward:  ws.groupForward,
		phaseSums:           ws.sumTask,
		phaseTopForward:     ws.topForward,
		phaseTopBackward:    ws.topBackward,
		phaseGroupsBackward: ws.groupBackward,
		phaseEdges:          ws.edgeTask,
		phaseSteps:          ws.stepsTask,
		phasePass:           ws.passTask,
		phaseEdgeRange:      ws.edgeRangeTask,
	}
	return ws
}

// putWork drops the call's references from ws and returns it to the free
// list.
func (c *chol) putWork(ws *solveWork) {
	ws.sym, ws.num, ws.dst, ws.b, ws.b2 = nil, nil, nil, nil, nil
	ws.lane2 = 0
	c.mu.Lock()
	c.free = append(c.free, ws)
	c.mu.Unlock()
}

// gather copies rows i0..i1-1 (pivot order) of b into the vertex-major x,
// and those of b2, if set, into the values from lane2 on, with zeros in
// the padding.
func (ws *solveWork) gather(i0, i1 int) {
	n, cols, cw, b, perm := ws.sym.n, ws.cols, ws.cw, ws.b, ws.sym.perm
	for i := i0; i < i1; i++ {
		src := perm[i]
		xi := ws.x[i*cw : (i+1)*cw]
		vertexRow(xi[:cols], b, n, src)
		if ws.b2 == nil {
			clear(xi[cols:])
			continue
		}
		clear(xi[cols:ws.lane2])
		vertexRow(xi[ws.lane2:ws.lane2+cols], ws.b2, n, src)
		clear(xi[ws.lane2+cols:])
	}
}

// vertexRow copies the values of vertex v in the len(x) columns of the
// column-major block b of n rows into x.
func vertexRow(x, b []float64, n, v int) {
	for k := range x {
		x[k] = b[k*n+v]
	}
}

// scatter copies the values lane2.. of rows i0..i1-1 of x (the second
// block's, where there is one) back to the column-major dst (if not nil)
// and reports whether every value copied is finite.
func (ws *solveWork) scatter(i0, i1 int) bool {
	n, cols, cw, dst, perm := ws.sym.n, ws.cols, ws.cw, ws.dst, ws.sym.perm
	if dst == nil {
		return true
	}
	// An exponent of all ones (an infinity or a NaN) makes e+1 reach
	// 1<<11: integer ORs keep the loop free of branches and of a chain of
	// floating-point additions.
	var bad uint64
	for i := i0; i < i1; i++ {
		d := perm[i]
		for k, v := range ws.x[i*cw+ws.lane2 : i*cw+ws.lane2+cols] {
			dst[k*n+d] = v
			bad |= (math.Float64bits(v)>>52&0x7ff + 1) >> 11
		}
	}
	return bad == 0
}

// ScheduleTime models one solve of 16 right-hand sides on p workers
// (factor.ScheduleReporter) as the factor runs it: whole on the tree's
// schedule (treeTime), or in the strips that split chooses, each taking
// its team's tree time scaled by rowCost. work is the tree's work;
// synchronisation, memory and the sums of buffers cost nothing, so
// work/time bounds the speed-up that the schedule allows.
func (c *chol) ScheduleTime(p int) (work, time float64, err error) {
	c.check()
	if p < 1 {
		return 0, 0, fmt.Errorf("sparsechol: schedule of %d workers", p)
	}
	work = c.treeAt(1) // on one worker the time is the work
	q, _ := c.split(p, modelCols)
	return work, c.splitTime(p, modelCols, q) / rowCost(blockWidth(modelCols)), nil
}

// treeTime models one solve of the whole block on the tree's schedule on
// p workers: every task costs the entries of L it reads (forward and
// backward; a block of modelCols right-hand sides decides which phases are
// shared), each phase's tasks go in order to the first free worker and
// start there when those they wait for have ended, and a phase starts
// when the one before has ended. work is the sum of the costs, time the
// end of the last phase.
func (c *chol) treeTime(p int) (work, time float64) {
	sym := c.sym
	const cw = modelCols
	free := make([]float64, p)
	var end []float64
	// phase adds the phase of the tasks ts: shared when always is set (the
	// groups') or its work is large enough, as runTasks runs the top's.
	phase := func(ts []topTask, always bool) {
		sum := 0
		for _, t := range ts {
			sum += t.cost
		}
		work += float64(sum)
		if p == 1 || !always && !worthSharing(sum, cw) {
			time += float64(sum)
			return
		}
		clear(free)
		end = sized(end, len(ts))
		last := 0.0
		for k, t := range ts {
			w := slices.Index(free, slices.Min(free))
			at := free[w]
			for _, d := range t.after {
				if d >= 0 {
					at = max(at, end[d])
				}
			}
			end[k] = at + float64(t.cost)
			free[w] = end[k]
			last = max(last, end[k])
		}
		time += last
	}
	var groups []topTask
	for _, g := range sym.groupOrder {
		cost := 0
		for s := sym.gStart[g]; s < sym.gStart[g+1]; s++ {
			w, h := sym.first[s+1]-sym.first[s], sym.rowPtr[s+1]-sym.rowPtr[s]
			cost += w*(w+1)/2 + (h-w)*w
		}
		groups = append(groups, newTask(0, 0, 0, 0, 0, cost))
	}
	phase(groups, true)
	phase(groups, true)
	for v := range len(sym.waveStart) - 1 { // the phases' times add up in any order
		phase(sym.fwdPlan[sym.fwdAt[v]:sym.fwdAt[v+1]], false)
		phase(sym.bwdPlan[sym.bwdAt[v]:sym.bwdAt[v+1]], false)
	}
	return work, time
}
