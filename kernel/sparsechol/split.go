package sparsechol

import (
	"math"
	"slices"
)

// stripCols is the width unit of a strip: a row of 8 values is one
// AVX-512 register, and no narrower row solves faster (a row of 4 takes
// as long as a row of 8 on AVX-512). Strip boundaries at multiples of 4
// keep the lanes of the adjoint's edge sums (edgeStrips).
const stripCols = 8

// minRowCost is the fewest values a row of the block costs per entry of
// L in the model (rowCost): the AVX-512 kernels solve a row of 8 values in
// 0.80–0.85 of the time of a row of 16, and wider rows in proportion to
// their width (BENCHMARKS.md, "Kernels"). The 4-wide and scalar kernels
// gain more from narrower rows, so the model splits less than it could.
const minRowCost = 13

// rowCost is the modelled time per entry of L of a row of cw values.
func rowCost(cw int) float64 { return float64(max(cw, minRowCost)) }

// coreCache is the bytes of the caches a core may count on (chol.fits):
// the L2 of a current server core (1–2 MiB) and its share of the L3
// (1.5–4 MiB). A constant, so that the model, and gmlg bench's schedule
// column, is the same on every machine; the factors of the paper's table
// are far from it (2.6 MB for 16³'s with a strip, 45 MB for 32³'s).
const coreCache = 4 << 20

// modelCols is the block width that the schedule's model prices
// (ScheduleTime, treeTime): the learner's 2·(frames − 2) with ten frames.
const modelCols = 16

// stripUnits is the stripCols-wide units of cols columns, the last partial.
func stripUnits(cols int) int { return (cols + stripCols - 1) / stripCols }

// splitAll makes every solve split its block into as many strips as it
// has columns of stripCols and workers (tests).
var splitAll = false

// split returns how a solve of cols columns on up to p workers runs: q
// strips side by side, each on up to t workers, or q = 1, the whole block
// on t. The model (treeAt) gives each the time of its team's tree
// schedule, times rowCost of its widest strip; a split must be faster.
func (c *chol) split(p, cols int) (q, t int) {
	q, t = 1, p
	u := stripUnits(cols)
	if !c.fits && !splitAll || u < 2 || p < 2 {
		return q, t
	}
	best := c.splitTime(p, cols, 1)
	for k := 2; k <= min(u, p); k++ {
		if tk := c.splitTime(p, cols, k); tk < best || splitAll {
			q, t, best = k, p/k, tk
		}
	}
	return q, t
}

// splitTime is the modelled time of a solve of cols columns in q strips
// on p workers: the tree's time on p/q workers (treeAt) times rowCost of
// the widest strip.
func (c *chol) splitTime(p, cols, q int) float64 {
	u := stripUnits(cols)
	return c.treeAt(p/q) * rowCost(blockWidth(min(cols, (u+q-1)/q*stripCols)))
}

// treeAt is the tree schedule's modelled time of a solve on p workers.
func (c *chol) treeAt(p int) float64 {
	if p < len(c.tree) {
		return c.tree[p]
	}
	_, t := c.treeTime(p)
	return t
}

// parts returns a workspace for a call on the N×cols block b in q strips
// (q = 1: the whole block): ws.parts holds the workspace of each strip,
// its first column in k0.
func (c *chol) parts(b []float64, cols, q int) *solveWork {
	ws := c.getWork()
	ws.sym, ws.num, ws.cols, ws.parts = c.sym, c.num, cols, ws.parts[:0]
	n, u, k0 := c.sym.n, stripUnits(cols), 0
	for k := range q {
		units := u / q // the first u%q strips take one unit more
		if k < u%q {
			units++
		}
		k1 := min(cols, k0+units*stripCols)
		p := c.prepare(b[k0*n:k1*n], k1-k0)
		p.home, p.k0 = ws, k0
		ws.parts = append(ws.parts, p)
		k0 = k1
	}
	return ws
}

// putParts returns the workspaces of parts to the free list.
func (c *chol) putParts(ws *solveWork) {
	for _, p := range ws.parts {
		c.putWork(p)
	}
	c.putWork(ws)
}

// start starts the teams of a call's strips: up to t workers each, and
// the strips' leaders, one worker each, on ws's own team.
func (ws *solveWork) start(t int, c *chol) {
	if len(ws.parts) > 1 {
		ws.tm.start(len(ws.parts), &c.helpers)
	}
	for _, p := range ws.parts {
		p.tm.start(t, &c.helpers)
	}
}

// stop stops the teams that start started.
func (ws *solveWork) stop() {
	for _, p := range ws.parts {
		p.tm.stop()
	}
	if len(ws.parts) > 1 {
		ws.tm.stop()
	}
}

// each runs job for every strip, side by side on the leaders' team; with
// one strip, on the caller.
func (ws *solveWork) each(job func(worker, task int)) {
	ws.tm.run(len(ws.parts), job)
}

// stepsTask runs strip k of a SolveSteps call (ws.out, ws.steps, ws.every
// for keep, ws.reverse): every step on the strip's team, each iterate
// scattered where out receives it.
func (ws *solveWork) stepsTask(_, k int) {
	p := ws.parts[k]
	n := ws.sym.n
	nb, m := n*ws.cols, n*p.cols
	p.ok = true
	for l := 1; l <= ws.steps; l++ {
		p.dst = nil
		if at := l - 1; ws.every || l == ws.steps { // x_l goes to block at of out
			switch {
			case !ws.every:
				at = 0
			case ws.reverse:
				at = ws.steps - l
			}
			p.dst = ws.out[at*nb+p.k0*n : at*nb+p.k0*n+m]
		}
		p.first = l == 1
		p.ok = p.pass() && p.ok
	}
}

// allOK reports whether every strip's scattered values were finite.
func (ws *solveWork) allOK() bool {
	return !slices.ContainsFunc(ws.parts, func(p *solveWork) bool { return !p.ok })
}

// edgeStrips adds Σ_c (u_i−u_j)·(w_i−w_j) over the columns of the
// vertex-major blocks u and w to acc[e], for each edge e = {from[e],
// to[e]} (original numbering), the blocks held in strips: us[k] and ws[k]
// hold the rows of strip k, the strips in column order, each but the last
// of a multiple of 4 columns without padding. It takes the products in the
// order of edgeProductsAVX over whole rows: with the vector kernels four
// lanes (column c in lane c mod 4), each lane's first product rounded and
// the next ones fused multiply-adds, the lanes added as (l0+l2)+(l1+l3)
// (the zero quads that pad a whole row further change no sum); else one
// running sum.
func (c *chol) edgeStrips(acc []float64, us, ws [][]float64, from, to []int) {
	pinv := c.pinv
	for e := range acc {
		i, j := pinv[from[e]], pinv[to[e]]
		var l [4]float64
		s, first := 0.0, true
		for k, u := range us {
			cw := len(u) / len(pinv)
			ui, uj := u[i*cw:(i+1)*cw], u[j*cw:(j+1)*cw]
			wi, wj := ws[k][i*cw:(i+1)*cw], ws[k][j*cw:(j+1)*cw]
			if !useAVX {
				s = diffDot(s, ui, uj, wi, wj)
				continue
			}
			for c := 0; c < cw; c += 4 {
				for m := range 4 {
					a, b := ui[c+m]-uj[c+m], wi[c+m]-wj[c+m]
					if first {
						l[m] = a * b
					} else {
						l[m] = math.FMA(a, b, l[m])
					}
				}
				first = false
			}
		}
		if useAVX {
			s = (l[0] + l[2]) + (l[1] + l[3])
		}
		acc[e] += s
	}
}

// diffDot returns s + Σ_c (ui[c]−uj[c])·(wi[c]−wj[c]), in one running sum
// in c order: an edge's sum on the scalar kernels.
func diffDot(s float64, ui, uj, wi, wj []float64) float64 {
	uj, wi, wj = uj[:len(ui)], wi[:len(ui)], wj[:len(ui)]
	for c := range ui {
		s += (ui[c] - uj[c]) * (wi[c] - wj[c])
	}
	return s
}
