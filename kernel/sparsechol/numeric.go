package sparsechol

import (
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
)

// fworker is the private workspace of one worker of the numeric
// factorisation.
type fworker struct {
	rmap []int32   // rmap[row] = position of row in the current supernode
	upd  []float64 // dense update block
	fail int       // failing column (permuted numbering), -1 if none
}

// numeric holds the values of L and the factorisation workspaces. It is
// owned by the Factor and reused by every Factorize.
type numeric struct {
	bl   blas.Float64 // dense BLAS of the supernode updates
	lx   []float64
	dinv []float64 // 1/L[j][j] for every column j
	// heads[g][s] is the first descendant waiting to update s in the list
	// of group g (g = ng: of the top). Each group links its own
	// descendants, so the order in which updates are applied is that of
	// the groups, whatever worker ran them.
	heads [][]int32
	link  []int32 // next descendant in the same list
	next  []int   // next row position of a finished supernode
	ws    []fworker
	fail  []int // per group: its first failing column, -1 if none

	// The current call's: its team, which shares the groups, and
	// groupFn, groupTask made once so that a call allocates nothing.
	sym     *symbolic
	tm      team
	groupFn func(worker, task int)
}

// newNumeric makes the values and workspaces of L for factorisations on
// up to nw workers.
func newNumeric(sym *symbolic, bl blas.Float64, nw int) *numeric {
	num := &numeric{
		bl:    bl,
		lx:    make([]float64, sym.lsize),
		dinv:  make([]float64, sym.n),
		heads: make([][]int32, sym.ng+1),
		link:  make([]int32, sym.ns),
		next:  make([]int, sym.ns),
		ws:    make([]fworker, min(nw, sym.ng)),
		fail:  make([]int, sym.ng),
	}
	num.groupFn = num.groupTask
	for g := range num.heads {
		num.heads[g] = make([]int32, sym.ns)
	}
	for t := range num.ws {
		w := &num.ws[t]
		w.rmap = make([]int32, sym.n)
		w.upd = make([]float64, sym.maxUpd)
	}
	return num
}

// factorize computes L for the values aligned with the original pattern,
// the groups on a team of up to len(ws) workers drawn from budget, then
// the top on the caller. It returns the permuted column of the first
// non-positive pivot, or -1.
func (num *numeric) factorize(sym *symbolic, values []float64, budget *atomic.Int32) int {
	lx := num.lx
	clear(lx)
	for k, v := range values {
		lx[sym.dest[k]] = v
	}
	for _, h := range num.heads {
		for s := range h {
			h[s] = -1
		}
	}
	num.sym = sym
	num.tm.start(len(num.ws), budget)
	num.tm.run(sym.ng, num.groupFn)
	num.tm.stop()
	// Each group stops at its first failure, so the smallest is the first
	// failure of a serial run.
	fail := -1
	for _, f := range num.fail {
		if f >= 0 && (fail < 0 || f < fail) {
			fail = f
		}
	}
	if fail >= 0 {
		return fail
	}
	w := &num.ws[0]
	w.fail = -1
	for s := sym.gStart[sym.ng]; s < sym.ns && w.fail < 0; s++ {
		num.eliminate(sym, w, s, 0, sym.ng)
	}
	if fail = w.fail; fail < 0 {
		fail = num.invertDiagonal(sym)
	}
	return fail
}

// invertDiagonal stores the reciprocals of L's diagonal in dinv: the solves
// multiply by them. It returns the first column whose diagonal entry is not
// positive and finite, or -1.
func (num *numeric) invertDiagonal(sym *symbolic) int {
	for s := range sym.ns {
		f := sym.first[s]
		w := sym.first[s+1] - f
		ls := num.lx[sym.off[s]:]
		for r := range w {
			d := ls[r*w+r]
			if !(d > 0 && d <= math.MaxFloat64) {
				return f + r
			}
			num.dinv[f+r] = 1 / d
		}
	}
	return -1
}

// groupTask factorises group g of the current call with the workspace of
// the worker, up to the group's first failure. Each group links its own
// descendants, so no value depends on the worker.
func (num *numeric) groupTask(worker, g int) {
	sym, w := num.sym, &num.ws[worker]
	w.fail = -1
	for s := sym.gStart[g]; s < sym.gStart[g+1] && w.fail < 0; s++ {
		num.eliminate(sym, w, s, g, g)
	}
	num.fail[g] = w.fail
}

// eliminate factorises supernode s with workspace ws: it applies the
// updates waiting in the lists of groups g0..g1 in that order, factorises
// the diagonal block and the rows below it, and links s into the list of
// group g1 for the next supernode it updates. A failure is recorded in
// ws.fail.
func (num *numeric) eliminate(sym *symbolic, ws *fworker, s, g0, g1 int) {
	f := sym.first[s]
	w := sym.first[s+1] - f
	rows := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	h := len(rows)
	ls := num.lx[sym.off[s]:sym.off[s+1]]
	for r, i := range rows {
		ws.rmap[i] = int32(r)
	}
	relink := num.heads[g1]
	for g := g0; g <= g1; g++ {
		num.applyList(sym, num.heads[g], relink, ws, s, f, w, ls)
	}
	if c := potrf(num.bl, ls[:w*w], w); c >= 0 {
		ws.fail = f + c
		return
	}
	if h > w {
		trsmRight(num.bl, ls, w, h-w)
		num.next[s] = w
		q := sym.snode[rows[w]]
		num.link[s] = relink[q]
		relink[q] = int32(s)
	}
}

// applyList subtracts from supernode s (columns f..f+w-1, values ls) the
// updates of every descendant in list[s], relinking each descendant into
// relink at the next supernode it updates.
func (num *numeric) applyList(sym *symbolic, list, relink []int32, ws *fworker, s, f, w int, ls []float64) {
	d := list[s]
	list[s] = -1
	for d >= 0 {
		dn := num.link[d]
		dw := sym.first[d+1] - sym.first[d]
		drows := sym.rows[sym.rowPtr[d]:sym.rowPtr[d+1]]
		ld := num.lx[sym.off[d]:sym.off[d+1]]
		p1 := num.next[d]
		p2 := p1
		for p2 < len(drows) && int(drows[p2]) < f+w {
			p2++
		}
		m, nc := len(drows)-p1, p2-p1
		if dw*m*nc >= 2048 && dw >= 8 {
			// C = L_d[p1:, :] · L_d[p1:p2, :]ᵀ through BLAS.
			c := ws.upd[:m*nc]
			a := ld[p1*dw:]
			num.bl.Dsyrk(blas.Lower, blas.NoTrans, nc, dw, 1, a, dw, 0, c, nc)
			if m > nc {
				num.bl.Dgemm(blas.NoTrans, blas.Trans, m-nc, nc, dw, 1, ld[p2*dw:], dw, a, dw, 0, c[nc*nc:], nc)
			}
			for i := 0; i < m; i++ {
				ti := int(ws.rmap[drows[p1+i]]) * w
				ci := c[i*nc : i*nc+min(i+1, nc)]
				for j, v := range ci {
					ls[ti+int(drows[p1+j])-f] -= v
				}
			}
		} else {
			for i := 0; i < m; i++ {
				ti := int(ws.rmap[drows[p1+i]]) * w
				li := ld[(p1+i)*dw : (p1+i+1)*dw]
				for j := 0; j < min(i+1, nc); j++ {
					lj := ld[(p1+j)*dw : (p1+j+1)*dw]
					lj = lj[:len(li)]
					sum := 0.0
					for k, v := range li {
						sum += v * lj[k]
					}
					ls[ti+int(drows[p1+j])-f] -= sum
				}
			}
		}
		if p2 < len(drows) {
			num.next[d] = p2
			q := sym.snode[drows[p2]]
			num.link[d] = relink[q]
			relink[q] = d
		}
		d = dn
	}
}

// potrfBlock is the block size of the dense Cholesky factorisation.
const potrfBlock = 48

// potrf overwrites the lower triangle of the row-major n×n matrix a with its
// Cholesky factor, with the trailing updates of the blocked form through bl.
// It returns the first column with a non-positive (or NaN) pivot, or -1.
func potrf(bl blas.Float64, a []float64, n int) int {
	if n <= potrfBlock {
		return potrfUnblocked(a, n, n)
	}
	for j := 0; j < n; j += potrfBlock {
		nb := min(potrfBlock, n-j)
		if c := potrfUnblocked(a[j*n+j:], nb, n); c >= 0 {
			return j + c
		}
		rest := n - j - nb
		if rest == 0 {
			break
		}
		l11 := a[j*n+j:]
		a21 := a[(j+nb)*n+j:]
		bl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, rest, nb, 1, l11, n, a21, n)
		bl.Dsyrk(blas.Lower, blas.NoTrans, rest, nb, -1, a21, n, 1, a[(j+nb)*n+j+nb:], n)
	}
	return -1
}

// potrfUnblocked is the left-looking dot-product Cholesky of the n×n lower
// triangle of a (row stride lda).
func potrfUnblocked(a []float64, n, lda int) int {
	for j := 0; j < n; j++ {
		aj := a[j*lda : j*lda+j+1]
		d := aj[j]
		for _, v := range aj[:j] {
			d -= v * v
		}
		if !(d > 0) || math.IsInf(d, 1) {
			return j
		}
		d = math.Sqrt(d)
		aj[j] = d
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			ai := a[i*lda : i*lda+j+1]
			s := ai[j]
			for k, v := range aj[:j] {
				s -= v * ai[k]
			}
			ai[j] = s * inv
		}
	}
	return -1
}

// trsmRight overwrites the m×w block B stored row-major after the w×w
// diagonal block of ls with B·L11⁻ᵀ, through bl when the block is large.
func trsmRight(bl blas.Float64, ls []float64, w, m int) {
	if w*m >= 4096 {
		bl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, m, w, 1, ls, w, ls[w*w:], w)
		return
	}
	for r := 0; r < m; r++ {
		x := ls[(w+r)*w : (w+r+1)*w]
		for j := 0; j < w; j++ {
			lj := ls[j*w : j*w+j+1]
			s := x[j]
			for k, v := range lj[:j] {
				s -= v * x[k]
			}
			x[j] = s / lj[j]
		}
	}
}
