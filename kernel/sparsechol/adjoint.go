package sparsechol

import (
	"errors"
	"fmt"
	"math"
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
// the workers, else one after the other on all of them (see both); the
// sums are the same either way.
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
		return c.adjointSteps(gsrc, gw, src, g, cols, steps, from, to, coef, parallel)
	}
	// Strips of whole columns, each adding its edge sums to gw.
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

// adjointSteps is AdjointSteps on a block of at most one strip, its
// arguments checked.
func (c *chol) adjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error {
	n := c.sym.n
	wu, ww := c.prepare(src, cols), c.prepare(g, cols)
	r := &wu.adj
	*r = adjointRun{c: c, wu: wu, ww: ww, gsrc: gsrc, from: from, to: to, steps: steps, h: (steps + 1) / 2, nb: n * wu.cw}
	wu.run, ww.run = r, r
	defer func() {
		*r = adjointRun{}
		wu.run, ww.run = nil, nil
		c.putWork(wu)
		c.putWork(ww)
	}()
	for _, ws := range []*solveWork{wu, ww} {
		if cap(ws.chain) < r.h*r.nb {
			ws.chain = make([]float64, r.h*r.nb)
		}
		if cap(ws.acc) < len(from) {
			ws.acc = make([]float64, len(from))
		}
		ws.chain, ws.acc = ws.chain[:r.h*r.nb], ws.acc[:len(from)]
		clear(ws.acc)
	}
	r.p = c.workers(cols)
	r.both(1, r.h, parallel)
	finite := r.okW
	if steps%2 == 1 {
		wu.tm.start(r.p, &c.helpers)
		wu.edges(r.kept(wu, r.h), r.kept(ww, r.h))
		wu.tm.stop()
	}
	r.both(r.h+1, steps, parallel)
	finite = finite && r.okW
	for e := range gw {
		a := wu.acc[e] + ww.acc[e]
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

// adjointRun is the state of one AdjointSteps call. It lives in the forward
// chain's workspace, so that calls do not allocate.
type adjointRun struct {
	c            *chol
	wu, ww       *solveWork // the forward chain (u) and the adjoint one (w)
	gsrc         []float64
	from, to     []int
	steps, h, nb int  // S, the iterates each chain keeps, the size of one
	okW          bool // the adjoint chain's scattered values are finite
	l0, l1       int  // the iterates both runs
	p            int  // the workers of the call (chol.workers)
	wg           sync.WaitGroup
}

// kept returns the kept iterate l ≤ h of the chain of ws.
func (r *adjointRun) kept(ws *solveWork, l int) []float64 {
	return ws.chain[(l-1)*r.nb : l*r.nb]
}

// both runs iterates l0..l1 of the two chains: with parallel side by side,
// each on a team of half the call's workers, else one after the other,
// each on a team of all of them.
func (r *adjointRun) both(l0, l1 int, parallel bool) {
	helpers := &r.c.helpers
	if !parallel {
		r.wu.tm.start(r.c.teamSize(r.p), helpers)
		r.chain(r.wu, l0, l1)
		r.wu.tm.stop()
		r.ww.tm.start(r.c.teamSize(r.p), helpers)
		r.okW = r.chain(r.ww, l0, l1)
		r.ww.tm.stop()
		return
	}
	r.wu.tm.start(r.c.teamSize(max(1, r.p/2)), helpers)
	r.ww.tm.start(r.c.teamSize(max(1, r.p-r.p/2)), helpers)
	r.wg.Add(1)
	r.l0, r.l1 = l0, l1
	go r.wu.adjointAsync() // a func value made once: no allocation
	r.chain(r.wu, l0, l1)
	r.wg.Wait()
	r.ww.tm.stop()
	r.wu.tm.stop()
}

// adjointAsyncRun runs the adjoint chain's iterates l0..l1 of the call whose
// state ws holds (the forward chain's workspace).
func (ws *solveWork) adjointAsyncRun() {
	r := &ws.adj
	r.okW = r.chain(r.ww, r.l0, r.l1)
	r.wg.Done()
}

// chain runs iterates l0..l1 of the chain of ws: each solve (the last
// adjoint iterate scattered into gsrc), its iterate kept (l ≤ h: the
// pass's last phase copies each group's rows while they are in cache, so
// the copy is shared by the team) or paired with the other chain's
// iterate S−l+1. Only the adjoint chain is
// scattered, so only it reports non-finite values (false); the edge sums
// catch the others.
func (r *adjointRun) chain(ws *solveWork, l0, l1 int) bool {
	ok := true
	for l := l0; l <= l1; l++ {
		ws.first, ws.dst, ws.keep = l == 1, nil, nil
		if ws == r.ww && l == r.steps {
			ws.dst = r.gsrc
		}
		if l <= r.h {
			ws.keep = r.kept(ws, l)
		}
		ok = ws.pass() && ok
		ws.keep = nil
		x := ws.x[:r.nb]
		switch {
		case l <= r.h:
			// Kept: the pass copied each group's rows as it solved them.
		case ws == r.wu:
			ws.edges(x, r.kept(r.ww, r.steps-l+1))
		default:
			ws.edges(r.kept(r.wu, r.steps-l+1), x)
		}
	}
	return ok
}

// edgeChunk is the edges one task of the edge sums takes: each edge reads
// four rows of the blocks, so a task is some microseconds of work, enough
// to outweigh handing it out (a grain chosen, not tuned).
const edgeChunk = 2048

// edges adds the products of the vertex-major iterates u and w over every
// edge of the call to ws.acc (see edgeProducts), on ws's team in chunks of
// edgeChunk edges: each edge's sum is its own, so the chunks do not
// change it.
func (ws *solveWork) edges(u, w []float64) {
	ws.eu, ws.ew = u, w
	ws.tm.run((len(ws.acc)+edgeChunk-1)/edgeChunk, ws.phaseFn[phaseEdges])
	ws.eu, ws.ew = nil, nil
}

// edgeTask is chunk k of edges.
func (ws *solveWork) edgeTask(_, k int) {
	r := ws.run
	e0, e1 := k*edgeChunk, min((k+1)*edgeChunk, len(ws.acc))
	r.c.edgeProducts(ws.acc[e0:e1], ws.eu, ws.ew, r.from[e0:e1], r.to[e0:e1], ws.cw)
}

// edgeProducts adds Σ_c (u_i−u_j)·(w_i−w_j) over the cw values of the
// vertex-major blocks u and w to acc[e], for each edge e = {from[e], to[e]}
// (original numbering).
func (c *chol) edgeProducts(acc, u, w []float64, from, to []int, cw int) {
	pinv := c.pinv
	if useAVX {
		edgeProductsAVX(acc, u, w, from, to, pinv, cw)
		return
	}
	for e := range acc {
		i, j := pinv[from[e]]*cw, pinv[to[e]]*cw
		ui, uj := u[i:i+cw], u[j:j+cw]
		wi, wj := w[i:i+cw], w[j:j+cw]
		s := 0.0
		for k := range ui {
			s += (ui[k] - uj[k]) * (wi[k] - wj[k])
		}
		acc[e] += s
	}
}
