package sparsechol

import (
	"fmt"
	"math"
	"slices"
)

// The schedule of one solve on p workers (see team). Every pass runs the
// same tasks whatever p is, so that each value takes the same operations in
// the same order:
//
//   - forward, groups: each of the ng groups eliminates its subtrees, the
//     rows of its own supernodes in x, its updates of the top rows in x
//     (group 0) or in a buffer of its own (the others);
//   - forward, sums: the groups' buffers are added to the top rows, row by
//     row in group order, in chunks of sumChunk rows;
//   - forward, top: the top supernodes one after the other, each in panels
//     of panelWidth columns: the caller solves a panel's diagonal block,
//     then the rows below it take the panel's columns in chunks of
//     panelWidth rows;
//   - backward, top: the top supernodes from the last, each first taking
//     the rows below it (L21ᵀ) in chunks of panelWidth columns, then its
//     diagonal block panel by panel from the last: the caller solves the
//     panel's triangle, and the columns before it take the panel's rows in
//     chunks of panelWidth columns;
//   - backward, groups: each group solves its subtrees and scatters their
//     rows; one more task scatters the top rows.
//
// A chunk task is a few microseconds of work at least on the factors where
// the top matters; a phase too small to share (minPhaseWork) runs its tasks
// on the caller, in the same order.
type solveWork struct {
	x    []float64
	priv [][]float64 // per group from 1 on: its updates of the top rows

	// The current call.
	sym     *symbolic
	num     *numeric
	dst, b  []float64
	cols    int
	cw      int
	first   bool        // the pass gathers b
	finite  []bool      // per group, then the top rows: scatter wrote finite values
	pack    [][]float64 // per worker: scratch of the forward kernels
	tm      team
	s       int // the top supernode being eliminated
	p0, p1  int // its panel
	r0      int // the first row position the phase's chunks cover
	phaseFn [numPhases]func(worker, task int)

	chain  []float64   // AdjointSteps: the forward iterates
	acc    []float64   // AdjointSteps: the edge sums
	eu, ew []float64   // AdjointSteps: the iterates of the edge sums
	adj    adjointRun  // AdjointSteps: the call's state (forward chain's workspace)
	run    *adjointRun // AdjointSteps: the call's state, from either chain
}

const (
	phaseGroupsForward = iota
	phaseSums
	phaseTopRows
	phaseTopCols
	phaseGroupsBackward
	phaseEdges
	numPhases
)

// panelWidth is the columns of a panel and the rows or columns of a chunk
// in the top of the tree (factor.SpanBlock's choice: a chunk is
// microseconds of work, and the largest separators still cut into tens of
// panels).
const panelWidth = 32

// sumChunk is the top rows one task of the sums phase adds.
const sumChunk = 256

// minPhaseWork is the fewest multiply-adds (times the block's width) for
// which a phase of the top is shared between the workers; below it the
// caller runs its tasks.
const minPhaseWork = 1 << 15

// minParallelWork is the smallest cols·|L| for which a solve starts
// helpers; below it starting them costs more than they save.
const minParallelWork = 1 << 16

// workers is the number of workers a solve of cols columns runs on.
func (c *chol) workers(cols int) int {
	if cols*c.sym.lsize < minParallelWork {
		return 1
	}
	return c.threads
}

// solveSteps applies A⁻¹ steps times to the column-major N×cols block b
// (see factor.StepSolver for out, keep and reverse). The block stays in the
// vertex-major workspace from one step to the next: it is gathered once,
// and scattered only where out receives an iterate. It reports whether
// every value written to out is finite.
func (c *chol) solveSteps(out, b []float64, cols, steps int, keep, reverse bool) bool {
	ws := c.prepare(b, cols)
	ws.tm.start(c.workers(cols), &c.helpers)
	nb := c.sym.n * cols
	finite := true
	for l := 1; l <= steps; l++ {
		ws.dst = nil
		switch {
		case keep && reverse:
			ws.dst = out[(steps-l)*nb : (steps-l+1)*nb]
		case keep:
			ws.dst = out[(l-1)*nb : l*nb]
		case l == steps:
			ws.dst = out[:nb]
		}
		ws.first = l == 1
		if !ws.pass() {
			finite = false
		}
	}
	ws.tm.stop()
	c.putWork(ws)
	return finite
}

// prepare takes a workspace for solves of the N×cols block b and sizes it.
func (c *chol) prepare(b []float64, cols int) *solveWork {
	sym := c.sym
	n := sym.n
	ws := c.getWork()
	vw := vecWidth()
	cw := (cols + vw - 1) / vw * vw
	if cap(ws.x) < n*cw {
		ws.x = make([]float64, n*cw)
	}
	ws.sym, ws.num, ws.b, ws.cols, ws.cw = sym, c.num, b, cols, cw
	if len(ws.finite) < sym.ng+1 {
		ws.finite = make([]bool, sym.ng+1)
	}
	if len(ws.pack) < c.threads {
		ws.pack = append(ws.pack, make([][]float64, c.threads-len(ws.pack))...)
	}
	for t := range ws.pack {
		if np := packSize(sym, cw); cap(ws.pack[t]) < np {
			ws.pack[t] = make([]float64, np)
		}
	}
	if len(ws.priv) < sym.ng {
		ws.priv = make([][]float64, sym.ng)
	}
	for g := 1; g < sym.ng; g++ {
		if m := len(sym.topRows[g]) * cw; cap(ws.priv[g]) < m {
			ws.priv[g] = make([]float64, m)
		}
	}
	if ws.phaseFn[0] == nil {
		ws.phaseFn = [numPhases]func(worker, task int){
			phaseGroupsForward:  ws.groupForward,
			phaseSums:           ws.sumTop,
			phaseTopRows:        ws.topRowsTask,
			phaseTopCols:        ws.topColsTask,
			phaseGroupsBackward: ws.groupBackward,
			phaseEdges:          ws.edgeTask,
		}
	}
	return ws
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
	if sym.ng > 1 {
		ws.tm.run((sym.n-sym.topCol+sumChunk-1)/sumChunk, ws.phaseFn[phaseSums])
	}
	for s := sym.gStart[sym.ng]; s < sym.ns; s++ {
		ws.topForward(s)
	}
	for s := sym.ns - 1; s >= sym.gStart[sym.ng]; s-- {
		ws.topBackward(s)
	}
	ws.tm.run(sym.ng+1, ws.phaseFn[phaseGroupsBackward])
	return !slices.Contains(ws.finite[:sym.ng+1], false)
}

// groupForward eliminates the subtrees of group g.
func (ws *solveWork) groupForward(worker, g int) {
	sym, cw := ws.sym, ws.cw
	x := ws.x[:sym.n*cw]
	s0, s1 := sym.gStart[g], sym.gStart[g+1]
	if ws.first {
		ws.gather(sym.first[s0], sym.first[s1])
	}
	tgt, trows := x, sym.rows
	if g > 0 {
		tgt, trows = ws.priv[g][:len(sym.topRows[g])*cw], sym.trows
		clear(tgt)
	}
	forwardRange(sym, ws.num, s0, s1, x, tgt, trows, cw, ws.pack[worker])
}

// sumTop adds the buffers of groups 1.. to the top rows of chunk k, each
// row's in group order.
func (ws *solveWork) sumTop(_, k int) {
	sym, cw := ws.sym, ws.cw
	x := ws.x[:sym.n*cw]
	i1 := int32(min(sym.topCol+(k+1)*sumChunk, sym.n))
	for g := 1; g < sym.ng; g++ {
		list, buf := sym.topRows[g], ws.priv[g]
		for p := int(sym.sumFrom[k*sym.ng+g]); p < len(list) && list[p] < i1; p++ {
			xi := x[int(list[p])*cw : int(list[p]+1)*cw]
			for c, v := range buf[p*cw : (p+1)*cw] {
				xi[c] += v
			}
		}
	}
}

// topForward eliminates the top supernode s, panel by panel.
func (ws *solveWork) topForward(s int) {
	sym := ws.sym
	w := sym.first[s+1] - sym.first[s]
	h := sym.rowPtr[s+1] - sym.rowPtr[s]
	ws.s = s
	for p0 := 0; p0 < w; p0 += panelWidth {
		p1 := min(p0+panelWidth, w)
		topFwdDiag(sym, ws.num, s, p0, p1, ws.x, ws.pack[0], ws.cw)
		ws.p0, ws.p1, ws.r0 = p0, p1, p1
		ws.share(phaseTopRows, h-p1, p1-p0)
	}
}

// topBackward solves with the transpose of the top supernode s: the rows
// below it, then its diagonal block panel by panel from the last.
func (ws *solveWork) topBackward(s int) {
	sym := ws.sym
	w := sym.first[s+1] - sym.first[s]
	h := sym.rowPtr[s+1] - sym.rowPtr[s]
	ws.s = s
	if h > w {
		ws.p0, ws.p1, ws.r0 = w, h, 0
		ws.share(phaseTopCols, w, h-w)
	}
	for p0 := (w - 1) / panelWidth * panelWidth; p0 >= 0; p0 -= panelWidth {
		p1 := min(p0+panelWidth, w)
		topBwdDiag(sym, ws.num, s, p0, p1, ws.x, ws.cw)
		ws.p0, ws.p1, ws.r0 = p0, p1, 0
		ws.share(phaseTopCols, p0, p1-p0)
	}
}

// share runs a top phase over n rows (phaseTopRows) or columns
// (phaseTopCols) from ws.r0, in chunks of panelWidth, each chunk taking
// depth rows or columns of the supernode: on the team when it is worth
// sharing, else on the caller.
func (ws *solveWork) share(phase, n, depth int) {
	if n <= 0 {
		return
	}
	nt := (n + panelWidth - 1) / panelWidth
	job := ws.phaseFn[phase]
	if n*depth*ws.cw < minPhaseWork {
		for k := range nt {
			job(0, k)
		}
		return
	}
	ws.tm.run(nt, job)
}

// topRowsTask takes the columns p0..p1-1 of the current top supernode into
// its rows r0+k·panelWidth on (at most panelWidth of them).
func (ws *solveWork) topRowsTask(_, k int) {
	s := ws.s
	h := ws.sym.rowPtr[s+1] - ws.sym.rowPtr[s]
	r0 := ws.r0 + k*panelWidth
	topFwdRows(ws.sym, ws.num, s, ws.p0, ws.p1, r0, min(r0+panelWidth, h), ws.x, ws.pack[0], ws.cw)
}

// topColsTask takes the rows p0..p1-1 of the current top supernode into
// its columns k·panelWidth on (at most panelWidth of them, before p0: the
// rows below the block have p0 = w).
func (ws *solveWork) topColsTask(_, k int) {
	k0 := k * panelWidth
	topBwdCols(ws.sym, ws.num, ws.s, k0, min(k0+panelWidth, ws.p0), ws.p0, ws.p1, ws.x, ws.cw)
}

// groupBackward solves with the transposes of group g's supernodes and
// scatters their rows; task ng scatters the top rows.
func (ws *solveWork) groupBackward(_, g int) {
	sym := ws.sym
	if g == sym.ng {
		ws.finite[g] = ws.scatter(sym.topCol, sym.n)
		return
	}
	s0, s1 := sym.gStart[g], sym.gStart[g+1]
	backwardRange(sym, ws.num, s0, s1, ws.x[:sym.n*ws.cw], ws.cw)
	ws.finite[g] = ws.scatter(sym.first[s0], sym.first[s1])
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
	return new(solveWork)
}

// putWork drops the call's references from ws and returns it to the free
// list.
func (c *chol) putWork(ws *solveWork) {
	ws.sym, ws.num, ws.dst, ws.b = nil, nil, nil, nil
	c.mu.Lock()
	c.free = append(c.free, ws)
	c.mu.Unlock()
}

// gather copies rows i0..i1-1 (pivot order) of b into the vertex-major x,
// with zeros in the padding.
func (ws *solveWork) gather(i0, i1 int) {
	n, cols, cw, b, perm := ws.sym.n, ws.cols, ws.cw, ws.b, ws.sym.perm
	for i := i0; i < i1; i++ {
		src := perm[i]
		xi := ws.x[i*cw : (i+1)*cw]
		for k := range cols {
			xi[k] = b[k*n+src]
		}
		clear(xi[cols:])
	}
}

// scatter copies rows i0..i1-1 of x back to the column-major dst (if not
// nil) and reports whether every value copied is finite.
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
		for k, v := range ws.x[i*cw : i*cw+cols] {
			dst[k*n+d] = v
			bad |= (math.Float64bits(v)>>52&0x7ff + 1) >> 11
		}
	}
	return bad == 0
}

// ScheduleTime models one solve's schedule on p workers
// (factor.ScheduleReporter): every task costs the entries of L it reads
// (forward and backward, for a block of 16 right-hand sides, which decides
// which phases are shared), each phase's tasks go in order to the first
// free worker, and a phase starts when the one before has ended. work is
// the sum of the costs, time the end of the last phase; synchronisation
// and memory cost nothing, so work/time bounds the speed-up that the
// schedule allows.
func (c *chol) ScheduleTime(p int) (work, time float64, err error) {
	c.check()
	if p < 1 {
		return 0, 0, fmt.Errorf("sparsechol: schedule of %d workers", p)
	}
	sym := c.sym
	const cw = 16
	free := make([]float64, p)
	var costs []float64
	// phase adds a phase of the tasks in costs, shared unless serial.
	phase := func(serial bool) {
		var sum float64
		for _, v := range costs {
			sum += v
		}
		work += sum
		if serial || p == 1 {
			time += sum
		} else {
			clear(free)
			for _, v := range costs {
				free[slices.Index(free, slices.Min(free))] += v
			}
			time += slices.Max(free)
		}
		costs = costs[:0]
	}
	// chunks adds the tasks of a top phase over n rows or columns of depth
	// entries each, as share runs it.
	chunks := func(n, depth int) {
		for k0 := 0; k0 < n; k0 += panelWidth {
			costs = append(costs, float64(min(panelWidth, n-k0)*depth))
		}
		phase(n*depth*cw < minPhaseWork)
	}
	// A supernode's own work: its triangle and the rows below it.
	entries := func(s int) float64 {
		w, h := sym.first[s+1]-sym.first[s], sym.rowPtr[s+1]-sym.rowPtr[s]
		return float64(w*(w+1)/2 + (h-w)*w)
	}
	groups := func() {
		for g := range sym.ng {
			var sum float64
			for s := sym.gStart[g]; s < sym.gStart[g+1]; s++ {
				sum += entries(s)
			}
			costs = append(costs, sum)
		}
		phase(false)
	}
	groups()
	for s := sym.gStart[sym.ng]; s < sym.ns; s++ {
		w, h := sym.first[s+1]-sym.first[s], sym.rowPtr[s+1]-sym.rowPtr[s]
		for p0 := 0; p0 < w; p0 += panelWidth {
			pw := min(panelWidth, w-p0)
			costs = append(costs, float64(pw*(pw+1)/2))
			phase(true)
			chunks(h-p0-pw, pw)
		}
	}
	for s := sym.ns - 1; s >= sym.gStart[sym.ng]; s-- {
		w, h := sym.first[s+1]-sym.first[s], sym.rowPtr[s+1]-sym.rowPtr[s]
		chunks(w, h-w)
		for p0 := (w - 1) / panelWidth * panelWidth; p0 >= 0; p0 -= panelWidth {
			pw := min(panelWidth, w-p0)
			costs = append(costs, float64(pw*(pw+1)/2))
			phase(true)
			chunks(p0, pw)
		}
	}
	groups()
	return work, time, nil
}
