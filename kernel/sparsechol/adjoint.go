package sparsechol

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// AdjointSteps differentiates the backward Euler chain out = A⁻ˢ·src
// (factor.StepSolver): with u_l = A⁻ˡ·src and w_k = A⁻ᵏ·g it adds
//
//	coef · Σ_{l=1..S} Σ_cols (u_l[from[e]] − u_l[to[e]]) · (w_{S−l+1}[from[e]] − w_{S−l+1}[to[e]])
//
// to gw[e] and writes A⁻ˢ·g into gsrc unless gsrc is nil. Both chains stay
// in the solve's vertex-major layout and run side by side: each keeps its
// first h = ⌈S/2⌉ iterates, and each of its later iterates is paired, while
// it is in cache, with a kept iterate of the other chain (the middle pair,
// for odd S, from the kept ones). Neither chain is copied column-major, and
// 2h blocks are kept, where the kernel's column-major chains take 2S+1.
// With parallel the two chains run side by side, each on a team of half
// the workers, else one after the other on all of them (see both), or, on
// one worker, as one block (adjointPaired); the sums are the same in
// every case.
func (c *chol) AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error {
	c.check()
	n := c.sym.n
	if cols < 1 || steps < 1 || len(src) != n*cols || len(g) != n*cols || (gsrc != nil && len(gsrc) != n*cols) ||
		len(from) != len(to) || len(gw) != len(from) {
		panic(fmt.Sprintf("sparsechol: AdjointSteps: len(src)=%d, len(g)=%d, len(gsrc)=%d, cols=%d, steps=%d, N=%d, %d/%d/%d edges",
			len(src), len(g), len(gsrc), cols, steps, n, len(from), len(to), len(gw)))
	}
	for e := range from {
		if uint(from[e]) >= uint(n) || uint(to[e]) >= uint(n) {
			panic(fmt.Sprintf("sparsechol: AdjointSteps: edge %d = {%d, %d} of a graph of %d vertices", e, from[e], to[e], n))
		}
	}
	if !c.valid {
		return fmt.Errorf("sparsechol: adjoint: no valid factorisation (Factorize failed or was not called)")
	}
	sw := stripWidth(cols)
	if sw == 0 {
		sw = cols
	}
	// Strips of whole columns (stripWidth), each adding its edge sums to gw.
	for k0 := 0; k0 < cols; k0 += sw {
		k1 := min(k0+sw, cols)
		var gs []float64
		if gsrc != nil {
			gs = gsrc[k0*n : k1*n]
		}
		if err := c.adjointSteps(gs, gw, src[k0*n:k1*n], g[k0*n:k1*n], k1-k0, steps, from, to, coef, parallel); err != nil {
			return err
		}
	}
	return nil
}

// adjointSteps is AdjointSteps on a block of at most one strip of
// stripWidth, its arguments checked, each chain whole or in the strips
// that split chooses for its workers (the same for both, so that the edge
// sums pair their strips).
func (c *chol) adjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error {
	p := c.workers(cols)
	if !parallel && p == 1 && pairable(cols) {
		return c.adjointPaired(gsrc, gw, src, g, cols, steps, from, to, coef)
	}
	pu, pw := p, p
	if parallel {
		pu, pw = max(1, p/2), max(1, p-p/2)
	}
	q, _ := c.split(pu, cols)
	wu, ww := c.parts(src, cols, q), c.parts(g, cols, q)
	r := &wu.adj
	*r = adjointRun{c: c, wu: wu, ww: ww, gsrc: gsrc, from: from, to: to, steps: steps, h: (steps + 1) / 2,
		tu: c.teamSize(pu / q), tw: c.teamSize(pw / q), tp: p / q}
	defer func() {
		*r = adjointRun{}
		c.putParts(wu)
		c.putParts(ww)
	}()
	for _, cs := range []*solveWork{wu, ww} {
		cs.run = r
		cs.acc = sized(cs.acc, len(from))
		clear(cs.acc)
		cs.eu, cs.ew = slices.Grow(cs.eu[:0], q)[:q], slices.Grow(cs.ew[:0], q)[:q]
		for k, p := range cs.parts {
			p.chain = sized(p.chain, r.h*c.sym.n*p.cw)
			p.run, p.ok = r, true
			p.eLo, p.eHi = len(from)*k/q, len(from)*(k+1)/q
		}
	}
	r.both(1, r.h, parallel)
	if steps%2 == 1 {
		wu.start(r.tp, c)
		r.edges(wu, r.h, r.h)
		wu.stop()
	}
	r.both(r.h+1, steps, parallel)
	return addEdgeSums(gw, wu.acc, ww.acc, coef, r.okW)
}

// addEdgeSums adds coef·(accU[e] + accW[e]), the edge sums of the forward
// and the adjoint chain, to gw[e]. It returns an error where a sum is not
// finite (nor were a chain's iterates) or finite is false (the adjoint
// chain's last iterate, scattered into gsrc, was not).
func addEdgeSums(gw, accU, accW []float64, coef float64, finite bool) error {
	accU, accW = accU[:len(gw)], accW[:len(gw)]
	for e := range gw {
		a := accU[e] + accW[e]
		if math.IsNaN(a) || math.IsInf(a, 0) {
			finite = false
		}
		gw[e] += coef * a
	}
	if !finite {
		return errors.New("sparsechol: adjoint: a chain is not finite (check src and g for NaN/Inf)")
	}
	return nil
}

// pairable reports whether adjointPaired takes blocks of cols columns:
// whether the solves take a row of twice blockWidth(cols) values whole,
// neither in strips (stripWidth) nor padded further (blockWidth).
func pairable(cols int) bool {
	cw := 2 * blockWidth(cols)
	return blockWidth(cw) == cw && stripWidth(cw) == 0
}

// adjointPaired is adjointSteps on one worker with its two chains solved
// as one block: row i of the workspace holds the forward chain's row i in
// its first half and the adjoint chain's in the second, each half padded
// as the chain's own block (blockWidth), so that each iterate of both
// chains takes one pass over the factor instead of two, in kernels that
// are faster per column at twice the width (docs/design.md, "The
// adjoint's two chains in one block on one worker"). Every lane does the
// arithmetic it does in a block of any width, and each chain's edge sums
// take the products of its own half of the rows, in adjointSteps' order
// (the middle pair, for odd S, after iterate h and before the others), so
// every result is bitwise that of the chains solved apart.
func (c *chol) adjointPaired(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64) error {
	half := blockWidth(cols)
	ws := c.prepare(src, 2*half)
	defer c.putWork(ws)
	ws.cols, ws.b2, ws.lane2 = cols, g, half
	n, h, ne := c.sym.n, (steps+1)/2, len(from)
	nb := n * ws.cw
	ws.chain = sized(ws.chain, h*nb)
	ws.acc = sized(ws.acc, 2*ne)
	clear(ws.acc)
	accU, accW := ws.acc[:ne], ws.acc[ne:]
	kept := func(l int) []float64 { return ws.chain[(l-1)*nb : l*nb] }
	ws.tm.start(1, &c.helpers)
	defer ws.tm.stop()
	ok := true
	for l := 1; l <= steps; l++ {
		ws.first, ws.dst, ws.keep = l == 1, nil, nil
		if l == steps {
			ws.dst = gsrc
		}
		if l <= h {
			ws.keep = kept(l)
		}
		ok = ws.pass() && ok
		ws.keep = nil
		switch {
		case l == h && steps%2 == 1: // the middle pair: u_h and w_h
			k := kept(h)
			c.edgeHalves(accU, k, k[half:], from, to, half, ws.cw)
		case l > h: // u_l with w_{S−l+1}, w_l with u_{S−l+1}
			x, k := ws.x[:nb], kept(steps-l+1)
			c.edgeHalves(accU, x, k[half:], from, to, half, ws.cw)
			c.edgeHalves(accW, k, x[half:], from, to, half, ws.cw)
		}
	}
	return addEdgeSums(gw, accU, accW, coef, ok)
}

// edgeHalves adds to acc[e], for each edge e, the edge's products over
// the first cw values of the rows of u and w, stride values apart, as the
// edge sums of a whole block take them: edgeProductsAVX on the vector
// kernels, else diffDot.
func (c *chol) edgeHalves(acc, u, w []float64, from, to []int, cw, stride int) {
	if useAVX {
		edgeProductsAVX(acc, u, w, from, to, c.pinv, cw, stride)
		return
	}
	pinv := c.pinv
	for e := range acc {
		i, j := pinv[from[e]]*stride, pinv[to[e]]*stride
		acc[e] += diffDot(0, u[i:i+cw], u[j:j+cw], w[i:i+cw], w[j:j+cw])
	}
}

// adjointRun is the state of one AdjointSteps call. It lives in the forward
// chain's workspace, so that calls do not allocate.
type adjointRun struct {
	c          *chol
	wu, ww     *solveWork // the forward chain (u) and the adjoint one (w), with their strips
	gsrc       []float64
	from, to   []int
	steps, h   int  // S and the iterates each chain keeps
	tu, tw, tp int  // the team of a strip of each chain, and of both chains' work
	okW        bool // the adjoint chain's scattered values are finite
	l0, l1     int  // the iterates both runs
	wg         sync.WaitGroup
}

// kept returns the kept iterate l ≤ h of the strip of ws.
func (r *adjointRun) kept(ws *solveWork, l int) []float64 {
	nb := ws.sym.n * ws.cw
	return ws.chain[(l-1)*nb : l*nb]
}

// block returns iterate l of the strip of ws: kept, or the one it has
// just solved.
func (r *adjointRun) block(ws *solveWork, l int) []float64 {
	if l <= r.h {
		return r.kept(ws, l)
	}
	return ws.x[:ws.sym.n*ws.cw]
}

// both runs iterates l0..l1 of the two chains: with parallel side by side,
// each on half the call's workers, else one after the other, each on all
// of them.
func (r *adjointRun) both(l0, l1 int, parallel bool) {
	if !parallel {
		r.wu.start(r.tu, r.c)
		r.chain(r.wu, l0, l1)
		r.wu.stop()
		r.ww.start(r.tu, r.c)
		r.okW = r.chain(r.ww, l0, l1)
		r.ww.stop()
		return
	}
	r.wu.start(r.tu, r.c)
	r.ww.start(r.tw, r.c)
	r.wg.Add(1)
	r.l0, r.l1 = l0, l1
	go r.wu.adjointAsync() // a func value made once: no allocation
	r.chain(r.wu, l0, l1)
	r.wg.Wait()
	r.ww.stop()
	r.wu.stop()
}

// adjointAsyncRun runs the adjoint chain's iterates l0..l1 of the call whose
// state ws holds (the forward chain's workspace).
func (ws *solveWork) adjointAsyncRun() {
	r := &ws.adj
	r.okW = r.chain(r.ww, r.l0, r.l1)
	r.wg.Done()
}

// chain runs iterates l0..l1 of the chain cs, its strips side by side:
// each solve (the last adjoint iterate scattered into gsrc), its iterate
// kept (l ≤ h: copied by the pass's last phase, group by group, while in
// cache) or paired with the other chain's iterate S−l+1. Only the adjoint
// chain is scattered, so only it reports non-finite values (false); the
// edge sums catch the others.
func (r *adjointRun) chain(cs *solveWork, l0, l1 int) bool {
	for l := l0; l <= l1; l++ {
		cs.l = l
		cs.each(cs.phaseFn[phasePass])
		switch {
		case l <= r.h:
		case cs == r.wu:
			r.edges(cs, l, r.steps-l+1)
		default:
			r.edges(cs, r.steps-l+1, l)
		}
	}
	return cs.allOK()
}

// passTask solves iterate cs.l of strip k of the chain cs.
func (cs *solveWork) passTask(_, k int) {
	r, p, l := cs.run, cs.parts[k], cs.l
	p.first, p.dst, p.keep = l == 1, nil, nil
	if cs == r.ww && l == r.steps && r.gsrc != nil {
		p.dst = r.gsrc[p.k0*p.sym.n : (p.k0+p.cols)*p.sym.n]
	}
	if l <= r.h {
		p.keep = r.kept(p, l)
	}
	p.ok = p.pass() && p.ok
	p.keep = nil
}

// edgeChunk is the edges one task of the edge sums takes: each edge reads
// four rows of the blocks, so a task is some microseconds of work, enough
// to outweigh handing it out (a grain chosen, not tuned).
const edgeChunk = 2048

// edges adds the products of the forward chain's iterate lu and the
// adjoint chain's lw over every edge of the call to cs.acc (edgeStrips):
// each strip's team takes a range of the edges, in chunks of edgeChunk.
// Each edge's sum is its own, so neither changes it.
func (r *adjointRun) edges(cs *solveWork, lu, lw int) {
	for k := range cs.parts {
		cs.eu[k], cs.ew[k] = r.block(r.wu.parts[k], lu), r.block(r.ww.parts[k], lw)
	}
	cs.each(cs.phaseFn[phaseEdgeRange])
}

// edgeRangeTask runs the edge sums of strip k's range on its team.
func (cs *solveWork) edgeRangeTask(_, k int) {
	p := cs.parts[k]
	p.tm.run((p.eHi-p.eLo+edgeChunk-1)/edgeChunk, p.phaseFn[phaseEdges])
}

// edgeTask is chunk k of the edge sums of the strip of ws: on the vector
// kernels, those of a whole block through edgeProductsAVX; else
// edgeStrips, which takes them in the same order.
func (ws *solveWork) edgeTask(_, k int) {
	r, h := ws.run, ws.home
	e0 := ws.eLo + k*edgeChunk
	e1 := min(e0+edgeChunk, ws.eHi)
	if useAVX && len(h.parts) == 1 {
		edgeProductsAVX(h.acc[e0:e1], h.eu[0], h.ew[0], r.from[e0:e1], r.to[e0:e1], r.c.pinv, ws.cw, ws.cw)
	} else {
		r.c.edgeStrips(h.acc[e0:e1], h.eu, h.ew, r.from[e0:e1], r.to[e0:e1])
	}
}
