package sparsechol

import (
	"math"
	"slices"
	"sync"
)

// solveWork is the workspace of one Solve or SolveSteps call, or of one
// chain of an AdjointSteps call. The right-hand sides are held
// vertex-major: the values of pivot i are x[i*cw:(i+1)*cw], its cols
// right-hand sides padded with zeros to cw, a multiple of vecWidth().
type solveWork struct {
	x    []float64
	priv [][]float64 // per group from 1 on: its updates of the top rows

	// The current call.
	sym      *symbolic
	num      *numeric
	dst, b   []float64
	cols, cw int
	first    bool // the pass gathers b
	parallel bool
	wg       sync.WaitGroup
	finite   []bool      // per worker, then the top: scatter wrote finite values
	pack     [][]float64 // per worker: scratch of the forward kernels
	chain    []float64   // AdjointSteps: the forward iterates
	acc      []float64   // AdjointSteps: the edge sums
	adj      adjointRun  // AdjointSteps: the call's state (forward chain's workspace)
	top      [][]float64 // per worker: its columns of the top rows
	windows  int         // number of column windows of the top phase
}

// minParallelWork is the smallest cols·|L| for which Solve splits the work
// between goroutines; below it the goroutine start-up costs more than it
// saves.
const minParallelWork = 1 << 16

// minWindow is the fewest right-hand sides a worker gets when the top of the
// tree is split by columns.
const minWindow = 4

// SolveKernels names the kernels Solve and SolveSteps run on in this
// process: "avx2-fma" (assembly, on amd64 processors with AVX2 and FMA) or
// "scalar" (portable Go). The two agree to rounding, not bitwise.
func SolveKernels() string {
	if useAVX {
		return "avx2-fma"
	}
	return "scalar"
}

// VectorWidth is the widest vector, in float64 values, that the solve
// kernels use in this process: 8 where the vector kernels have AVX-512
// paths, 4 for the AVX2 kernels, 1 for the scalar ones. The results do not
// depend on the choice between 8 and 4.
func VectorWidth() int {
	switch {
	case useWide:
		return 8
	case useAVX:
		return 4
	}
	return 1
}

// vecWidth is the multiple to which the solve pads a row of the
// vertex-major workspace: 4 for the vector kernels, which work on whole
// quads of right-hand sides, else 1.
func vecWidth() int {
	if useAVX {
		return 4
	}
	return 1
}

// packSize is the scratch the forward kernels take: the widest supernode's
// rows for the vector kernels (see forwardAVX), none for the others.
func packSize(sym *symbolic, cw int) int {
	if useAVX {
		return sym.maxW * cw
	}
	return 0
}

// forward eliminates supernode s (see forwardGo).
func forward(sym *symbolic, num *numeric, s int, x, tgt []float64, trows []int32, cw int, pack []float64) {
	if useAVX {
		forwardAVX(sym, num, s, x, tgt, trows, cw, pack)
	} else {
		forwardGo(sym, num, s, x, tgt, trows, cw)
	}
}

// forwardRange eliminates supernodes s0..s1-1 in order (see forward); the
// vector kernels take each run of sym.single supernodes in one call.
func forwardRange(sym *symbolic, num *numeric, s0, s1 int, x, tgt []float64, trows []int32, cw int, pack []float64) {
	for s := s0; s < s1; s++ {
		if useAVX && sym.single[s] {
			e := s + 1
			for e < s1 && sym.single[e] {
				e++
			}
			forward1AVX(sym, num, s, e, x, cw)
			s = e - 1
			continue
		}
		forward(sym, num, s, x, tgt, trows, cw, pack)
	}
}

// backwardRange solves with the transposes of supernodes s1-1 down to s0
// (see backward); the vector kernels take each run of one-column
// supernodes in one call.
func backwardRange(sym *symbolic, num *numeric, s0, s1 int, x []float64, cw int) {
	for s := s1 - 1; s >= s0; s-- {
		if useAVX && sym.first[s+1]-sym.first[s] == 1 {
			b := s
			for b > s0 && sym.first[b]-sym.first[b-1] == 1 {
				b--
			}
			backward1AVX(sym, num, b, s+1, x, cw)
			s = b
			continue
		}
		backward(sym, num, s, x, cw)
	}
}

// backward solves with the transpose of supernode s (see backwardGo).
func backward(sym *symbolic, num *numeric, s int, x []float64, cw int) {
	if useAVX {
		backwardAVX(sym, num, s, x, cw)
	} else {
		backwardGo(sym, num, s, x, cw)
	}
}

// solveSteps applies A⁻¹ steps times to the column-major N×cols block b
// (see factor.StepSolver for out, keep and reverse). The block stays in the
// vertex-major workspace from one step to the next: it is gathered once,
// and scattered only where out receives an iterate. It reports whether
// every value written to out is finite.
func (c *chol) solveSteps(out, b []float64, cols, steps int, keep, reverse bool) bool {
	ws := c.prepare(b, cols)
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
	if len(ws.finite) < sym.nw+1 {
		ws.finite = make([]bool, sym.nw+1)
		ws.pack = make([][]float64, sym.nw)
	}
	for t := range ws.pack {
		if np := packSize(sym, cw); cap(ws.pack[t]) < np {
			ws.pack[t] = make([]float64, np)
		}
	}
	ws.parallel = sym.nw > 1 && cols*sym.lsize >= minParallelWork
	if len(ws.priv) < sym.ng {
		ws.priv = make([][]float64, sym.ng)
	}
	for g := 1; g < sym.ng; g++ {
		if m := len(sym.topRows[g]) * cw; cap(ws.priv[g]) < m {
			ws.priv[g] = make([]float64, m)
		}
	}
	// The top: split by columns (in whole vectors) when parallel.
	ws.windows = 1
	if ws.parallel && sym.topCol < n {
		ws.windows = min(sym.nw, cw/max(minWindow, vw))
	}
	if ws.windows > 1 {
		if len(ws.top) < sym.nw {
			ws.top = make([][]float64, sym.nw)
		}
		for t := 0; t < ws.windows; t++ {
			if c0, c1 := ws.window(t); cap(ws.top[t]) < n*(c1-c0) {
				ws.top[t] = make([]float64, n*(c1-c0))
			}
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
	n, cw := sym.n, ws.cw
	x := ws.x[:n*cw]
	// Forward substitution: subtrees, then the top.
	if ws.first {
		ws.gather(sym.topCol, n)
	}
	ws.run(phaseForward)
	// Group 0 updated the top rows in place, the others in their own
	// buffers, added here in group order: the sums do not depend on
	// which worker ran which group.
	for g := 1; g < sym.ng; g++ {
		buf := ws.priv[g]
		for k, i := range sym.topRows[g] {
			xi := x[int(i)*cw : int(i+1)*cw]
			for c, v := range buf[k*cw : (k+1)*cw] {
				xi[c] += v
			}
		}
	}
	// The top, forward and backward.
	if ws.windows > 1 {
		ws.run(phaseTop)
	} else {
		forwardRange(sym, ws.num, sym.gStart[sym.ng], sym.ns, x, x, sym.rows, cw, ws.pack[0])
		backwardRange(sym, ws.num, sym.gStart[sym.ng], sym.ns, x, cw)
	}
	// Backward substitution of the subtrees.
	ws.finite[sym.nw] = ws.scatter(sym.topCol, n)
	ws.run(phaseBackward)
	return !slices.Contains(ws.finite[:sym.nw+1], false)
}

// window returns the workspace columns c0..c1-1 of window t of the top
// phase: whole vectors of vecWidth() columns, as evenly as they divide.
func (ws *solveWork) window(t int) (c0, c1 int) {
	vw := vecWidth()
	nv := ws.cw / vw
	return t * nv / ws.windows * vw, (t + 1) * nv / ws.windows * vw
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

const (
	phaseForward = iota
	phaseTop
	phaseBackward
)

// run calls ws.work(phase, t) for every worker t, concurrently when
// ws.parallel.
func (ws *solveWork) run(phase int) {
	nw := ws.sym.nw
	if !ws.parallel {
		for t := 0; t < nw; t++ {
			ws.work(phase, t)
		}
		return
	}
	ws.wg.Add(nw - 1)
	for t := 1; t < nw; t++ {
		go ws.work(phase, t)
	}
	ws.work(phase, 0)
	ws.wg.Wait()
}

// work runs one phase of worker t on its subtrees.
func (ws *solveWork) work(phase, t int) {
	sym, cw := ws.sym, ws.cw
	x := ws.x[:sym.n*cw]
	s0, s1 := sym.gStart[sym.wGroup[t]], sym.gStart[sym.wGroup[t+1]] // its supernodes
	switch phase {
	case phaseForward:
		if ws.first {
			ws.gather(sym.first[s0], sym.first[s1])
		}
		for g := sym.wGroup[t]; g < sym.wGroup[t+1]; g++ {
			tgt, trows := x, sym.rows
			if g > 0 {
				tgt, trows = ws.priv[g][:len(sym.topRows[g])*cw], sym.trows
				clear(tgt)
			}
			forwardRange(sym, ws.num, sym.gStart[g], sym.gStart[g+1], x, tgt, trows, cw, ws.pack[t])
		}
	case phaseTop:
		if t >= ws.windows {
			break
		}
		// Columns c0..c1-1 of the top rows, in a private block of stride
		// m (rows below topCol unused), so workers share no cache lines.
		c0, c1 := ws.window(t)
		m := c1 - c0
		buf := ws.top[t][:sym.n*m]
		for i := sym.topCol; i < sym.n; i++ {
			copy(buf[i*m:(i+1)*m], x[i*cw+c0:i*cw+c1])
		}
		forwardRange(sym, ws.num, sym.gStart[sym.ng], sym.ns, buf, buf, sym.rows, m, ws.pack[t])
		backwardRange(sym, ws.num, sym.gStart[sym.ng], sym.ns, buf, m)
		for i := sym.topCol; i < sym.n; i++ {
			copy(x[i*cw+c0:i*cw+c1], buf[i*m:(i+1)*m])
		}
	case phaseBackward:
		backwardRange(sym, ws.num, s0, s1, x, cw)
		ws.finite[t] = ws.scatter(sym.first[s0], sym.first[s1])
	}
	if ws.parallel && t > 0 {
		ws.wg.Done()
	}
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

// forwardGo eliminates supernode s: it solves its diagonal block in place in x
// and subtracts its contributions from the rows below. Rows at or beyond
// sym.topCol go to tgt, row position r from split[s] on to row trows[r]
// (trows is sym.rows or sym.trows), the others to x.
func forwardGo(sym *symbolic, num *numeric, s int, x, tgt []float64, trows []int32, cols int) {
	f := sym.first[s]
	w := sym.first[s+1] - f
	rows := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	trows = trows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	ls := num.lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cols : (f+w)*cols]
	for r := 0; r < w; r++ {
		xr := x1[r*cols : (r+1)*cols]
		subRows(xr, ls[r*w:r*w+r], x1, cols)
		inv := num.dinv[f+r]
		for k := range xr {
			xr[k] *= inv
		}
	}
	split := sym.split[s]
	r := w
	for ; r+2 <= split; r += 2 {
		i, j := int(rows[r]), int(rows[r+1])
		subRows2(x[i*cols:(i+1)*cols], x[j*cols:(j+1)*cols], ls[r*w:(r+1)*w], ls[(r+1)*w:(r+2)*w], x1, cols)
	}
	for ; r < split; r++ {
		i := int(rows[r])
		subRows(x[i*cols:(i+1)*cols], ls[r*w:(r+1)*w], x1, cols)
	}
	for ; r+2 <= len(rows); r += 2 {
		i, j := int(trows[r]), int(trows[r+1])
		subRows2(tgt[i*cols:(i+1)*cols], tgt[j*cols:(j+1)*cols], ls[r*w:(r+1)*w], ls[(r+1)*w:(r+2)*w], x1, cols)
	}
	for ; r < len(rows); r++ {
		i := int(trows[r])
		subRows(tgt[i*cols:(i+1)*cols], ls[r*w:(r+1)*w], x1, cols)
	}
}

// backwardGo solves with the transpose of supernode s: x1 -= L21ᵀ x2 and then
// the transposed diagonal block.
func backwardGo(sym *symbolic, num *numeric, s int, x []float64, cols int) {
	f := sym.first[s]
	w := sym.first[s+1] - f
	rows := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	ls := num.lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cols : (f+w)*cols]
	h := len(rows)
	r := w
	for ; r+4 <= h; r += 4 {
		i0, i1, i2, i3 := int(rows[r]), int(rows[r+1]), int(rows[r+2]), int(rows[r+3])
		y0 := x[i0*cols : (i0+1)*cols]
		y1 := x[i1*cols : (i1+1)*cols]
		y2 := x[i2*cols : (i2+1)*cols]
		y3 := x[i3*cols : (i3+1)*cols]
		l0 := ls[r*w : (r+1)*w]
		l1 := ls[(r+1)*w : (r+2)*w]
		l2 := ls[(r+2)*w : (r+3)*w]
		l3 := ls[(r+3)*w : (r+4)*w]
		k := 0
		for ; k+2 <= w; k += 2 {
			sub4x2(x1[k*cols:(k+1)*cols], x1[(k+1)*cols:(k+2)*cols], y0, y1, y2, y3,
				l0[k], l1[k], l2[k], l3[k], l0[k+1], l1[k+1], l2[k+1], l3[k+1])
		}
		for ; k < w; k++ {
			sub4(x1[k*cols:(k+1)*cols], y0, y1, y2, y3, l0[k], l1[k], l2[k], l3[k])
		}
	}
	switch h - r {
	case 3:
		i0, i1, i2 := int(rows[r]), int(rows[r+1]), int(rows[r+2])
		y0, y1, y2 := x[i0*cols:(i0+1)*cols], x[i1*cols:(i1+1)*cols], x[i2*cols:(i2+1)*cols]
		l0, l1, l2 := ls[r*w:(r+1)*w], ls[(r+1)*w:(r+2)*w], ls[(r+2)*w:(r+3)*w]
		for k := range l0 {
			sub3(x1[k*cols:(k+1)*cols], y0, y1, y2, l0[k], l1[k], l2[k])
		}
	case 2:
		i0, i1 := int(rows[r]), int(rows[r+1])
		y0, y1 := x[i0*cols:(i0+1)*cols], x[i1*cols:(i1+1)*cols]
		l0, l1 := ls[r*w:(r+1)*w], ls[(r+1)*w:(r+2)*w]
		for k := range l0 {
			sub2(x1[k*cols:(k+1)*cols], y0, y1, l0[k], l1[k])
		}
	case 1:
		i := int(rows[r])
		y := x[i*cols : (i+1)*cols]
		for k, l := range ls[r*w : (r+1)*w] {
			sub1(x1[k*cols:(k+1)*cols], y, l)
		}
	}
	// Diagonal block: x_r = (x_r − Σ_{i>r} L[i][r]·x_i) / L[r][r].
	for r := w - 1; r >= 0; r-- {
		xr := x1[r*cols : (r+1)*cols]
		i := r + 1
		for ; i+4 <= w; i += 4 {
			sub4(xr, x1[i*cols:(i+1)*cols], x1[(i+1)*cols:(i+2)*cols], x1[(i+2)*cols:(i+3)*cols], x1[(i+3)*cols:(i+4)*cols],
				ls[i*w+r], ls[(i+1)*w+r], ls[(i+2)*w+r], ls[(i+3)*w+r])
		}
		switch w - i {
		case 3:
			sub3(xr, x1[i*cols:(i+1)*cols], x1[(i+1)*cols:(i+2)*cols], x1[(i+2)*cols:(i+3)*cols], ls[i*w+r], ls[(i+1)*w+r], ls[(i+2)*w+r])
		case 2:
			sub2(xr, x1[i*cols:(i+1)*cols], x1[(i+1)*cols:(i+2)*cols], ls[i*w+r], ls[(i+1)*w+r])
		case 1:
			sub1(xr, x1[i*cols:(i+1)*cols], ls[i*w+r])
		}
		inv := num.dinv[f+r]
		for k := range xr {
			xr[k] *= inv
		}
	}
}

// subRows computes y -= Σ_k l[k]·xs[k*cols:(k+1)*cols].
func subRows(y, l, xs []float64, cols int) {
	k := 0
	for ; k+4 <= len(l); k += 4 {
		sub4(y, xs[k*cols:(k+1)*cols], xs[(k+1)*cols:(k+2)*cols], xs[(k+2)*cols:(k+3)*cols], xs[(k+3)*cols:(k+4)*cols],
			l[k], l[k+1], l[k+2], l[k+3])
	}
	switch len(l) - k {
	case 3:
		sub3(y, xs[k*cols:(k+1)*cols], xs[(k+1)*cols:(k+2)*cols], xs[(k+2)*cols:(k+3)*cols], l[k], l[k+1], l[k+2])
	case 2:
		sub2(y, xs[k*cols:(k+1)*cols], xs[(k+1)*cols:(k+2)*cols], l[k], l[k+1])
	case 1:
		sub1(y, xs[k*cols:(k+1)*cols], l[k])
	}
}

// subRows2 computes y0 -= Σ_k l0[k]·xs_k and y1 -= Σ_k l1[k]·xs_k, sharing
// the loads of xs.
func subRows2(y0, y1, l0, l1, xs []float64, cols int) {
	l1 = l1[:len(l0)]
	k := 0
	for ; k+4 <= len(l0); k += 4 {
		a0 := xs[k*cols : (k+1)*cols]
		a1 := xs[(k+1)*cols : (k+2)*cols]
		a2 := xs[(k+2)*cols : (k+3)*cols]
		a3 := xs[(k+3)*cols : (k+4)*cols]
		sub4x2(y0, y1, a0, a1, a2, a3, l0[k], l0[k+1], l0[k+2], l0[k+3], l1[k], l1[k+1], l1[k+2], l1[k+3])
	}
	for ; k < len(l0); k++ {
		sub1x2(y0, y1, xs[k*cols:(k+1)*cols], l0[k], l1[k])
	}
}

// sub4x2 computes y0 -= Σ_k c0k·ak and y1 -= Σ_k c1k·ak for k = 0..3.
func sub4x2(y0, y1, a0, a1, a2, a3 []float64, c00, c01, c02, c03, c10, c11, c12, c13 float64) {
	y1 = y1[:len(y0)]
	a0 = a0[:len(y0)]
	a1 = a1[:len(y0)]
	a2 = a2[:len(y0)]
	a3 = a3[:len(y0)]
	for i := range y0 {
		v0, v1, v2, v3 := a0[i], a1[i], a2[i], a3[i]
		y0[i] -= c00*v0 + c01*v1 + c02*v2 + c03*v3
		y1[i] -= c10*v0 + c11*v1 + c12*v2 + c13*v3
	}
}

// sub4 computes y -= c0·a0 + c1·a1 + c2·a2 + c3·a3.
func sub4(y, a0, a1, a2, a3 []float64, c0, c1, c2, c3 float64) {
	a0 = a0[:len(y)]
	a1 = a1[:len(y)]
	a2 = a2[:len(y)]
	a3 = a3[:len(y)]
	for i := range y {
		y[i] -= c0*a0[i] + c1*a1[i] + c2*a2[i] + c3*a3[i]
	}
}

// sub3 computes y -= c0·a0 + c1·a1 + c2·a2.
func sub3(y, a0, a1, a2 []float64, c0, c1, c2 float64) {
	a0 = a0[:len(y)]
	a1 = a1[:len(y)]
	a2 = a2[:len(y)]
	for i := range y {
		y[i] -= c0*a0[i] + c1*a1[i] + c2*a2[i]
	}
}

// sub2 computes y -= c0·a0 + c1·a1.
func sub2(y, a0, a1 []float64, c0, c1 float64) {
	a0 = a0[:len(y)]
	a1 = a1[:len(y)]
	for i := range y {
		y[i] -= c0*a0[i] + c1*a1[i]
	}
}

// sub1x2 computes y0 -= c0·a and y1 -= c1·a.
func sub1x2(y0, y1, a []float64, c0, c1 float64) {
	y1 = y1[:len(y0)]
	a = a[:len(y0)]
	for i := range y0 {
		v := a[i]
		y0[i] -= c0 * v
		y1[i] -= c1 * v
	}
}

// sub1 computes y -= c·a.
func sub1(y, a []float64, c float64) {
	a = a[:len(y)]
	for i := range y {
		y[i] -= c * a[i]
	}
}
