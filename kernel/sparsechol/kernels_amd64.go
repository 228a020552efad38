//go:build amd64 && !noasm

package sparsechol

import (
	"fmt"

	"golang.org/x/sys/cpu"
)

// asmBuilt tells that this build has the assembly kernels (the tests say
// why they skip).
const asmBuilt = true

// useAVX selects the vector solve kernels of kernels_amd64.s: on processors
// with AVX2 and FMA (and an OS that saves their registers). Tests switch it
// off to compare the two.
var useAVX = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useWide lets the kernels that do most of the work hold two quads of a
// row in one 8-wide AVX-512 register, on processors that have AVX-512, and
// at 8, 16, 20, 24 or 32 values a row run the substitutions on the kernels
// that hold a row whole (rowKernels: forwardRangeRows, backwardRangeRows,
// fwdDiagRows, bwdColsRows, bwdDiagRows). Each lane does the same
// operations in the same order either way, so the solutions are bitwise
// the same.
var useWide = useAVX && cpu.X86.HasAVX512F

// Implemented in kernels_amd64.s, and the kernels of rowKernels and of
// runs of one-column supernodes in kernels_rows_amd64.s (declared in
// kernels_rows_amd64.go, which asmgen writes); see there. The
// pointers must address every element the loops read and write: the
// callers below slice first.

//go:noescape
func fwdBlockAVX(x *float64, rows *int32, nr int, l *float64, pk *float64, nk int, w int, nq int, wide bool)

//go:noescape
func fwdDiagAVX(x1 *float64, l *float64, w int, ld int, pk *float64, dinv *float64, nq int)

//go:noescape
func bwd4AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, cw int, nq int, wide bool)

//go:noescape
func bwdDiagAVX(x *float64, own *int32, x1 *float64, l *float64, w int, ld int, dinv *float64, cw int)

// rowKernels are the AVX-512 kernels for rows of cw values that stay in
// registers whole: 8 (one 8-wide register), 16 (two), 20 (two and a
// 4-wide one), 24 (three) or 32 (four; its bwdNx takes at most four
// columns at a time, maxCols). Each does in every lane what the 4-wide
// kernels do in theirs. The methods call the …RowsAVX entry points
// (kernels_rows_amd64.s), which jump to the width's kernel: cheaper than
// a Go-level switch or function values.
type rowKernels struct{ cw int }

// rowsOf holds the rowKernels of each width cw at cw/4.
var rowsOf = [9]rowKernels{2: {8}, 4: {16}, 5: {20}, 6: {24}, 8: {32}}

// maxCols is the most columns bwdNx takes at once: 8, or 4 at 32 values a
// row, whose eight accumulators would take every register (nxCols in
// asmgen's widths, which write the kernels).
func (k *rowKernels) maxCols() int {
	if k.cw == 32 {
		return 4
	}
	return 8
}

func (k *rowKernels) fwdBlock(x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int) {
	fwdBlockRowsAVX(x, rows, nr, l, xk, nk, w, k.cw)
}

func (k *rowKernels) fwdTri(x1 *float64, l *float64, b int, ld int, dinv *float64) {
	fwdTriRowsAVX(x1, l, b, ld, dinv, k.cw)
}

func (k *rowKernels) bwdNx(a *float64, x *float64, below *int32, nr int, l *float64, w int, n int) {
	bwdNxRowsAVX(a, x, below, nr, l, w, n, k.cw)
}

func (k *rowKernels) bwdTri(x1 *float64, l *float64, b int, ld int, dinv *float64) {
	bwdTriRowsAVX(x1, l, b, ld, dinv, k.cw)
}

// fwd1Run and bwd1Run take the one-column supernodes s0..s1-1 of x (see
// forward1AVX), which the caller has checked.
func (k *rowKernels) fwd1Run(sym *symbolic, num *numeric, s0, s1 int, x []float64) {
	fwd1RunRowsAVX(&x[0], s0, s1, &sym.first[0], &sym.rowPtr[0], &sym.rows[0], &sym.off[0], &num.lx[0], &num.dinv[0], k.cw)
}

func (k *rowKernels) bwd1Run(sym *symbolic, num *numeric, s0, s1 int, x []float64) {
	bwd1RunRowsAVX(&x[0], s0, s1, &sym.first[0], &sym.rowPtr[0], &sym.rows[0], &sym.off[0], &num.lx[0], &num.dinv[0], k.cw)
}

// wideRows returns the kernels for rows of cw values, or nil where there
// are none (other widths, or no AVX-512).
func wideRows(cw int) *rowKernels {
	if !useAVX || !useWide || cw%4 != 0 || cw > 32 || rowsOf[cw/4].cw == 0 {
		return nil
	}
	return &rowsOf[cw/4]
}

//go:noescape
func bwd1AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, cw int, nq int)

//go:noescape
func edgeDotAVX(acc *float64, u *float64, w *float64, from *int, to *int, pinv *int, ne int, nq int, rb int)

//go:noescape
func addRowsAVX(x *float64, buf *float64, rows *int32, ptr *int, src *int32, j0 int, j1 int, nq int)

// sumRowsAVX is sumRowsGo on rows of cw values (a multiple of 4), a
// quad at a time: the same additions in the same order.
func sumRowsAVX(sym *symbolic, x, buf []float64, j0, j1, cw int) {
	if j0 >= j1 {
		return
	}
	checkBlock(x, sym.n, cw)
	checkBlock(buf, sym.maxBuf, cw)
	_, _ = sym.sumRows[j1-1], sym.sumPtr[j1]
	addRowsAVX(&x[0], &buf[0], &sym.sumRows[0], &sym.sumPtr[0], &sym.sumSrc[0], j0, j1, cw/4)
}

// forward1AVX eliminates the one-column supernodes s0..s1-1 (sym.single)
// in x, rows of cw values (a multiple of 4), the whole run in one kernel
// call per slice of the rows (runQuads): in 2-D most supernodes have one
// column and a few rows, and a call each would cost more than their
// arithmetic. (At the widths of rowKernels forwardRangeRows calls
// rowKernels.fwd1Run instead.)
func forward1AVX(sym *symbolic, num *numeric, s0, s1 int, x []float64, cw int) {
	checkBlock(x, sym.n, cw)
	runQuads(fwd1RunQuadsAVX, sym, num, s0, s1, x, cw)
}

// backward1AVX solves with the transposes of the one-column supernodes
// s1-1 down to s0 in x (see forward1AVX). (At the widths of rowKernels
// backwardRangeRows calls rowKernels.bwd1Run instead.)
func backward1AVX(sym *symbolic, num *numeric, s0, s1 int, x []float64, cw int) {
	checkBlock(x, sym.n, cw)
	runQuads(bwd1RunQuadsAVX, sym, num, s0, s1, x, cw)
}

// runQuads runs the 4-wide kernel of one-column supernodes run (the
// entry point of fwd1RunQuads or bwd1RunQuads) on the supernodes s0..s1-1
// of x, rows of cw values, in slices of up to maxQuads quads of each row
// (maxQuads, which asmgen writes, is the most a kernel takes): every lane
// does the same operations whichever slice it is in. x is checked.
func runQuads(run func(x *float64, s0, s1 int, first, rowPtr *int, rows *int32, off *int, lx, dinv *float64, rb, q int),
	sym *symbolic, num *numeric, s0, s1 int, x []float64, cw int) {
	for q, nq := 0, cw/4; q < nq; q += maxQuads {
		run(&x[4*q], s0, s1, &sym.first[0], &sym.rowPtr[0], &sym.rows[0], &sym.off[0], &num.lx[0], &num.dinv[0], 8*cw, min(maxQuads, nq-q))
	}
}

// checkBlock panics unless x holds n rows of cw values. It compares
// lengths rather than indexing the last value, which the race detector
// would count as a read of a row another worker may be writing.
func checkBlock(x []float64, n, cw int) {
	if len(x) < n*cw {
		panic(fmt.Sprintf("sparsechol: block of %d values for %d rows of %d", len(x), n, cw))
	}
}

// edgeProductsAVX is edgeStrips on one strip, the first cw values (a
// multiple of 4) of the rows of u and w, stride values apart. Every
// from[e] and to[e] must be a vertex (AdjointSteps checks them once per
// call): the kernel does not check its indices.
func edgeProductsAVX(acc, u, w []float64, from, to, pinv []int, cw, stride int) {
	if len(acc) == 0 {
		return
	}
	n := len(pinv)
	if end := (n-1)*stride + cw; len(u) < end || len(w) < end {
		panic(fmt.Sprintf("sparsechol: edge sums on blocks of %d and %d values for %d rows of %d, %d apart", len(u), len(w), n, cw, stride))
	}
	_, _ = from[len(acc)-1], to[len(acc)-1]
	edgeDotAVX(&acc[0], &u[0], &w[0], &from[0], &to[0], &pinv[0], len(acc), cw/4, 8*stride)
}

// forwardAVX is forwardGo on rows of cw values (a multiple of 4). As its
// rows are solved, the supernode's block x1 is copied into pack quad by
// quad (quad q of row k at pack[4(q·w+k):]), so that the rows an update
// reads are adjacent; the rows below then take Σ_k l[k]·x_k four rows by
// three quads at a time, held in registers (fwdBlockAVX). The diagonal
// block is blocked the same way, four rows at a time. (Rows of the widths
// of rowKernels go through forwardRangeRows instead.) forwardAVX is
// topFwdDiagAVX and topFwdRowsAVX for one panel of all the supernode's
// columns, with the same arithmetic, written as one function because the
// groups call it for every supernode, where two calls would cost a
// measurable share of a solve (docs/design.md, "Kernels").
func forwardAVX(sym *symbolic, num *numeric, s int, x, tgt []float64, trows []int32, cw int, pack []float64) {
	f := sym.first[s]
	w := sym.first[s+1] - f
	rows := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	ls := num.lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cw : (f+w)*cw]
	dinv := num.dinv[f : f+w]
	nq := cw / 4
	pk := pack[:w*cw]
	// The diagonal block, four rows at a time: the columns before them
	// through fwdBlockAVX, then their own triangle.
	for r := 0; r < w; r += 4 {
		b := min(4, w-r)
		if r > 0 {
			fwdBlockAVX(&x[0], &rows[r], b, &ls[r*w], &pk[0], r, w, nq, useWide)
		}
		fwdDiagAVX(&x1[r*cw], &ls[r*w+r], b, w, &pk[r*4], &dinv[r], nq)
	}
	split := sym.split[s]
	if split > w {
		_ = x[int(rows[split-1]+1)*cw-1] // rows are sorted: the last is the largest
		fwdBlockAVX(&x[0], &rows[w], split-w, &ls[w*w], &pk[0], w, w, nq, useWide)
	}
	if h := len(rows); h > split {
		// trows is sorted from split on as rows is.
		trows = trows[sym.rowPtr[s]:sym.rowPtr[s+1]]
		_ = tgt[(int(trows[h-1])+1)*cw-1]
		_ = tgt[int(trows[split])*cw]
		fwdBlockAVX(&tgt[0], &trows[split], h-split, &ls[split*w], &pk[0], w, w, nq, useWide)
	}
}

// forwardRangeRows is forwardRange at k.cw values a row on AVX-512 (a
// width of rowKernels): each run of one-column supernodes through
// k.fwd1Run, the others as forwardAVX takes them, but with each row whole
// in registers, read where it is, so that nothing is packed (fwdDiagRows,
// k.fwdBlock). It walks the supernodes itself: at this width the calls
// and slicing of forwardAVX's layers would cost a measurable share of a
// solve (docs/design.md, "Kernels").
func forwardRangeRows(k *rowKernels, sym *symbolic, num *numeric, s0, s1 int, x, tgt []float64, trows []int32) {
	cw := k.cw
	checkBlock(x, sym.n, cw)
	first, rowPtr, off, split, single := sym.first[s0:s1+1], sym.rowPtr[s0:s1+1], sym.off[s0:s1+1], sym.split[s0:s1], sym.single[s0:s1]
	lx, dinv := num.lx, num.dinv
	for i := 0; i < len(single); i++ {
		if single[i] {
			e := i + 1
			for e < len(single) && single[e] {
				e++
			}
			k.fwd1Run(sym, num, s0+i, s0+e, x)
			i = e - 1
			continue
		}
		f, w := first[i], first[i+1]-first[i]
		rows := sym.rows[rowPtr[i]:rowPtr[i+1]]
		ls := lx[off[i]:off[i+1]]
		x1 := x[f*cw : (f+w)*cw]
		fwdDiagRows(k, x, x1, rows, ls, dinv[f:f+w], 0, w)
		sp := split[i]
		if sp > w {
			_ = x[int(rows[sp-1]+1)*cw-1] // rows are sorted: the last is the largest
			k.fwdBlock(&x[0], &rows[w], sp-w, &ls[w*w], &x1[0], w, w)
		}
		if h := len(rows); h > sp {
			tr := trows[rowPtr[i]:rowPtr[i+1]]
			_ = tgt[(int(tr[h-1])+1)*cw-1]
			_ = tgt[int(tr[sp])*cw]
			k.fwdBlock(&tgt[0], &tr[sp], h-sp, &ls[sp*w], &x1[0], w, w)
		}
	}
}

// backwardRangeRows is backwardRange at k.cw values a row on AVX-512 (a
// width of rowKernels): each run of one-column supernodes through
// k.bwd1Run, the others as backwardAVX takes them (bwdColsRows, then
// bwdDiagRows), the same kernels in the same order. It walks the
// supernodes itself, for the reason given at forwardRangeRows.
func backwardRangeRows(k *rowKernels, sym *symbolic, num *numeric, s0, s1 int, x []float64) {
	cw := k.cw
	checkBlock(x, sym.n, cw)
	first := sym.first
	for s := s1 - 1; s >= s0; s-- {
		f, w := first[s], first[s+1]-first[s]
		if w == 1 {
			b := s
			for b > s0 && first[b]-first[b-1] == 1 {
				b--
			}
			k.bwd1Run(sym, num, b, s+1, x)
			s = b
			continue
		}
		p0, p1 := sym.rowPtr[s], sym.rowPtr[s+1]
		ls := num.lx[sym.off[s]:sym.off[s+1]]
		x1 := x[f*cw : (f+w)*cw]
		if p1-p0 > w {
			below := sym.rows[p0+w : p1]
			_ = x[int(below[len(below)-1]+1)*cw-1] // rows are sorted: the last is the largest
			bwdColsRows(k, x1, x, below, ls[w*w:], w, 0, w)
		}
		bwdDiagRows(k, x1, x, sym.rows[p0:p0+w], ls, num.dinv[f:f+w], 0, w)
	}
}

// fwdDiagRows solves the rows p0..p1-1 of a supernode's diagonal block
// with its columns from p0 on (rows, ls and dinv as in forwardAVX), at
// k.cw values a row on AVX-512, four rows at a time: the columns before
// them through k.fwdBlock, then their own triangle through k.fwdTri.
func fwdDiagRows(k *rowKernels, x, x1 []float64, rows []int32, ls, dinv []float64, p0, p1 int) {
	w, cw := len(dinv), k.cw
	for r := p0; r < p1; r += 4 {
		b := min(4, p1-r)
		if r > p0 {
			k.fwdBlock(&x[0], &rows[r], b, &ls[r*w+p0], &x1[p0*cw], r-p0, w)
		}
		k.fwdTri(&x1[r*cw], &ls[r*w+r], b, w, &dinv[r])
	}
}

// backwardAVX is backwardGo on rows of cw values (a multiple of 4): x1 −=
// L21ᵀ x2, in groups of columns as topBwdColsAVX takes them, each column's
// products summed from its farthest row to its nearest and subtracted
// once; then the transposed diagonal block (bwdDiagBlockAVX), so that
// most of the triangle's products run four columns at a time too. It is
// topBwdColsAVX and topBwdDiagAVX for one panel of all the supernode's
// columns, with the same arithmetic, without their checks and slicing,
// for the reason given at forwardAVX.
func backwardAVX(sym *symbolic, num *numeric, s int, x []float64, cw int) {
	f := sym.first[s]
	w := sym.first[s+1] - f
	own := sym.rows[sym.rowPtr[s] : sym.rowPtr[s]+w] // own[i] = f+i
	below := sym.rows[sym.rowPtr[s]+w : sym.rowPtr[s+1]]
	ls := num.lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cw : (f+w)*cw]
	if nb := len(below); nb > 0 {
		_ = x[int(below[nb-1]+1)*cw-1] // rows are sorted: the last is the largest
		bwdColsAVX(x1, x, below, ls[w*w:], w, 0, w, cw)
	}
	bwdDiagBlockAVX(x, x1, own, ls, num.dinv[f:f+w], 0, w, cw)
}

// bwdDiagBlockAVX solves with the transpose of the columns p0..p1-1 of a
// supernode's diagonal block (own, ls, dinv as in backwardAVX), four
// columns at a time from the last: the block's rows after the four
// through bwd4AVX, then their own triangle (bwdDiagAVX); at the widths of
// rowKernels through bwdDiagRows.
func bwdDiagBlockAVX(x, x1 []float64, own []int32, ls, dinv []float64, p0, p1, cw int) {
	if k := wideRows(cw); k != nil {
		bwdDiagRows(k, x1, x, own, ls, dinv, p0, p1)
		return
	}
	w, nq := len(dinv), cw/4
	k := p0 + (p1-p0)&^3
	if k < p1 {
		bwdDiagAVX(&x[0], &own[k], &x1[k*cw], &ls[k*w+k], p1-k, w, &dinv[k], cw)
	}
	for k -= 4; k >= p0; k -= 4 {
		if nr := p1 - k - 4; nr > 0 {
			bwd4AVX(&x1[k*cw], &x[0], &own[k+4], nr, &ls[(k+4)*w+k], w, cw, nq, useWide)
		}
		bwdDiagAVX(&x[0], &own[k], &x1[k*cw], &ls[k*w+k], 4, w, &dinv[k], cw)
	}
}

// bwdDiagRows is bwdDiagBlockAVX at kr.cw values a row on AVX-512: the
// rows after each four columns through kr.bwdNx, the triangles through
// kr.bwdTri, the same arithmetic with each row whole in registers.
func bwdDiagRows(kr *rowKernels, x1, x []float64, own []int32, ls, dinv []float64, p0, p1 int) {
	w, cw := len(dinv), kr.cw
	k := p0 + (p1-p0)&^3
	if k < p1 {
		kr.bwdTri(&x1[k*cw], &ls[k*w+k], p1-k, w, &dinv[k])
	}
	for k -= 4; k >= p0; k -= 4 {
		if nr := p1 - k - 4; nr > 0 {
			kr.bwdNx(&x1[k*cw], &x[0], &own[k+4], nr, &ls[(k+4)*w+k], w, 4)
		}
		kr.bwdTri(&x1[k*cw], &ls[k*w+k], 4, w, &dinv[k])
	}
}

// topFwdDiagAVX is topFwdDiag on rows of cw values (a multiple of 4), four
// rows at a time as in forwardAVX; the solved rows go to pack, except at
// the widths of rowKernels (fwdDiagRows).
func topFwdDiagAVX(sym *symbolic, num *numeric, s, p0, p1 int, x, pack []float64, cw int) {
	f, w, rows, ls := supernode(sym, num, s)
	checkBlock(x, sym.n, cw)
	x1 := x[f*cw : (f+w)*cw]
	dinv := num.dinv[f : f+w]
	if k := wideRows(cw); k != nil {
		fwdDiagRows(k, x, x1, rows, ls, dinv, p0, p1)
		return
	}
	pk := pack[:w*cw]
	nq := cw / 4
	for r := p0; r < p1; r += 4 {
		b := min(4, p1-r)
		if r > p0 {
			fwdBlockAVX(&x[0], &rows[r], b, &ls[r*w+p0], &pk[4*p0], r-p0, w, nq, useWide)
		}
		fwdDiagAVX(&x1[r*cw], &ls[r*w+r], b, w, &pk[r*4], &dinv[r], nq)
	}
}

// topFwdRowsAVX is topFwdRows on rows of cw values (a multiple of 4),
// through fwdBlockAVX on the panel's part of pack, or at the widths of
// rowKernels on the panel's rows of x (see forwardRangeRows).
func topFwdRowsAVX(sym *symbolic, num *numeric, s, p0, p1, r0, r1 int, x, tgt []float64, trows []int32, pack []float64, cw int) {
	f, w, _, ls := supernode(sym, num, s)
	_ = ls[(r1-1)*w+p1-1]
	trows = trows[:r1-r0]
	for _, i := range trows {
		_ = tgt[int(i+1)*cw-1]
	}
	if k := wideRows(cw); k != nil {
		xs := x[(f+p0)*cw : (f+p1)*cw]
		k.fwdBlock(&tgt[0], &trows[0], r1-r0, &ls[r0*w+p0], &xs[0], p1-p0, w)
		return
	}
	pk := pack[:w*cw]
	fwdBlockAVX(&tgt[0], &trows[0], r1-r0, &ls[r0*w+p0], &pk[4*p0], p1-p0, w, cw/4, useWide)
}

// topBwdColsAVX is topBwdCols on rows of cw values (a multiple of 4),
// through bwdColsAVX.
func topBwdColsAVX(sym *symbolic, num *numeric, s, k0, k1, p0, p1 int, x []float64, cw int) {
	f, w, rows, ls := supernode(sym, num, s)
	checkBlock(x, sym.n, cw)
	x1 := x[f*cw : (f+w)*cw]
	_ = ls[(p1-1)*w+k1-1]
	bwdColsAVX(x1, x, rows[p0:p1], ls[p0*w:], w, k0, k1, cw)
}

// bwdColsAVX subtracts from the columns k0..k1−1 of a supernode (rows of
// x1, cw values each) their products with the rows below[r] of x: column
// k takes Σ_r l[r·w+k]·x_{below[r]}, summed from the last row to the
// first (bwd4AVX): four columns at a time through bwd4AVX, the rest
// through bwd1AVX; at the widths of rowKernels through bwdColsRows. below must not be empty.
func bwdColsAVX(x1, x []float64, below []int32, l []float64, w, k0, k1, cw int) {
	if k := wideRows(cw); k != nil {
		bwdColsRows(k, x1, x, below, l, w, k0, k1)
		return
	}
	nb, nq := len(below), cw/4
	k := k0
	for ; k+4 <= k1; k += 4 {
		bwd4AVX(&x1[k*cw], &x[0], &below[0], nb, &l[k], w, cw, nq, useWide)
	}
	for ; k < k1; k++ {
		bwd1AVX(&x1[k*cw], &x[0], &below[0], nb, &l[k], w, cw, nq)
	}
}

// bwdColsRows is bwdColsAVX at kr.cw values a row on AVX-512: eight
// columns at a time through kr.bwdNx, then four, then those left.
func bwdColsRows(kr *rowKernels, x1, x []float64, below []int32, l []float64, w, k0, k1 int) {
	nb, cw := len(below), kr.cw
	for k := k0; k < k1; {
		n := k1 - k
		switch {
		case n >= 8 && kr.maxCols() >= 8:
			n = 8
		case n > 4:
			n = 4
		}
		kr.bwdNx(&x1[k*cw], &x[0], &below[0], nb, &l[k], w, n)
		k += n
	}
}

// topBwdDiagAVX is topBwdDiag on rows of cw values (a multiple of 4), four
// columns at a time from the last as in backwardAVX.
func topBwdDiagAVX(sym *symbolic, num *numeric, s, p0, p1 int, x []float64, cw int) {
	f, w, rows, ls := supernode(sym, num, s)
	checkBlock(x, sym.n, cw)
	bwdDiagBlockAVX(x, x[f*cw:(f+w)*cw], rows[:w], ls, num.dinv[f:f+w], p0, p1, cw)
}
