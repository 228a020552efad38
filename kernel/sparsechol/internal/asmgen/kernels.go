package main

import (
	"fmt"
	"math/bits"
	"strings"
)

// A kernel is one of the kernels written for every width: the width's
// kernel is named name(cw), and the entry point entryName() takes the
// same arguments and the width last and jumps to that width's kernel.
type kernel struct {
	base   string // fwdBlock → fwdBlock16AVX, fwdBlockRowsAVX
	params string // the Go parameters, each 8 bytes
	emit   func(*gen, kernel, width)
}

func (k kernel) name(cw int) string { return fmt.Sprintf("%s%dAVX", k.base, cw) }

func (k kernel) entryName() string { return k.base + "RowsAVX" }

// argBytes is the size of the width kernel's arguments.
func (k kernel) argBytes() int { return 8 * (strings.Count(k.params, ",") + 1) }

var kernels = []kernel{
	{"fwdBlock", "x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int", (*gen).fwdBlock},
	{"fwdTri", "x1 *float64, l *float64, b int, ld int, dinv *float64", (*gen).fwdTri},
	{"bwdTri", "x1 *float64, l *float64, b int, ld int, dinv *float64", (*gen).bwdTri},
	{"bwdNx", "a *float64, x *float64, below *int32, nr int, l *float64, w int, n int", (*gen).bwdNx},
	{"fwd1Run", run1Params, (*gen).fwd1Run},
	{"bwd1Run", run1Params, (*gen).bwd1Run},
}

// run1Params are the parameters of the kernels of runs of one-column
// supernodes.
const run1Params = "x *float64, s0 int, s1 int, first *int, rowPtr *int, rows *int32, off *int, lx *float64, dinv *float64"

// textKernel starts w's kernel k with its doc comment: the Go signature,
// then doc.
func (g *gen) textKernel(k kernel, w width, frame int, doc string) {
	name := k.name(w.cw)
	g.text(fmt.Sprintf("func %s(%s)\n\n%s", name, k.params, doc), "·"+name, "NOSPLIT", fmt.Sprintf("$%d-%d", frame, k.argBytes()))
}

// rowIndex sets dst to src·8·cw, the byte offset of row src, for rows of
// 1, 3, 5 or 9 times a power of 2 bytes (width.check): a copy or an LEAQ
// for the odd factor, then a shift.
func (g *gen) rowIndex(w width, src, dst string) {
	rb := w.rowBytes()
	shift := bits.TrailingZeros(uint(rb))
	switch m := rb >> shift; {
	case m > 1:
		g.op("LEAQ (%s)(%s*%d), %s", src, src, m-1, dst)
	case src != dst:
		g.op("MOVQ %s, %s", src, dst)
	}
	g.op("SHLQ $%d, %s", shift, dst)
}

// load loads the row at byte off of base into r; store stores it there.
func (g *gen) load(r row, off int, base string) {
	for p, reg := range r {
		g.op("VMOVUPD %d(%s), %v", off+64*p, base, reg)
	}
}

func (g *gen) store(r row, off int, base string) {
	for p, reg := range r {
		g.op("VMOVUPD %v, %d(%s)", reg, off+64*p, base)
	}
}

// zero sets register r to +0: VXORPD for a 4-wide one (VEX), VPXORQ
// for an 8-wide one (AVX-512F has no VXORPD of Z registers).
func (g *gen) zero(r reg) {
	if r.y {
		g.op("VXORPD %v, %v, %v", r, r, r)
	} else {
		g.op("VPXORQ %v, %v, %v", r, r, r)
	}
}

// fwdrow writes fwdrow<cw><>, which fwdBlock calls for each row left over
// after the groups of four.
func (g *gen) fwdrow(w width) {
	rb := w.rowBytes()
	l := func(s string) string { return fmt.Sprintf("f%d%s", w.cw, s) }
	g.text(fmt.Sprintf(`fwdrow%[1]d<> subtracts from the row y = DI of %[1]d values Σ_{k<nl}
l[k]·x_k, l = SI, nl = CX, where x_k is the row of %[1]d values at DX +
%[2]dk, as fwdrow<> does quad by quad, with the same operations in every
lane: the products of eight columns at a time, then four, then the last
three, two or one (one at a time when fewer than four are left after the
chunks of eight), split between two accumulators to shorten the chain of
dependent multiply-adds: in each part of the row (%[3]s), the even columns
subtracted from the row in Z8, the odd ones summed in Z9 from a product,
then Z9 subtracted. It clobbers CX, DX, SI and Z0-Z9.`, w.cw, rb, partsDoc(w)), fmt.Sprintf("fwdrow%d<>", w.cw), "NOSPLIT|NOFRAME", "$0")
	// chunk applies the n columns whose entries of l are in Z0..Zn-1 to
	// each part of the row.
	chunk := func(n int) {
		for p, y := range w.shape() {
			off := 64 * p
			a, b := reg{8, y}, reg{9, y}
			e := func(k int) reg { return reg{k, y} }
			g.op("VMOVUPD %d(DI), %v", off, a)
			if n == 1 {
				g.op("VFNMADD231PD %d(DX), %v, %v", off, e(0), a)
				g.op("VMOVUPD %v, %d(DI)", a, off)
				continue
			}
			g.op("VMULPD %d(DX), %v, %v", rb+off, e(1), b)
			g.op("VFNMADD231PD %d(DX), %v, %v", off, e(0), a)
			k := 2
			for ; k+1 < n; k += 2 {
				g.op("VFMADD231PD %d(DX), %v, %v", rb*(k+1)+off, e(k+1), b)
				g.op("VFNMADD231PD %d(DX), %v, %v", rb*k+off, e(k), a)
			}
			if k < n {
				g.op("VFNMADD231PD %d(DX), %v, %v", rb*k+off, e(k), a)
			}
			g.op("VSUBPD %v, %v, %v", b, a, a)
			g.op("VMOVUPD %v, %d(DI)", a, off)
		}
	}
	// apply applies the next n columns, unless fewer are left (jumping to
	// skip); advance moves past them.
	apply := func(n int, skip string) {
		if n == 1 {
			g.op("TESTQ CX, CX")
			g.op("JEQ %s", skip)
		} else {
			g.op("CMPQ CX, $%d", n)
			g.op("JLT %s", skip)
		}
		for k := range n {
			g.op("VBROADCASTSD %d(SI), %v", 8*k, z(k))
		}
		chunk(n)
	}
	advance := func(n int) {
		g.op("ADDQ $%d, SI", 8*n)
		g.op("ADDQ $%d, DX", n*rb)
		if n == 1 {
			g.op("DECQ CX")
		} else {
			g.op("SUBQ $%d, CX", n)
		}
	}
	g.label(l("chunk8"))
	apply(8, l("chunk4"))
	advance(8)
	g.op("JMP %s", l("chunk8"))
	g.label(l("chunk4"))
	apply(4, l("one"))
	advance(4)
	apply(3, l("chunk2"))
	g.op("RET")
	g.label(l("chunk2"))
	apply(2, l("one"))
	g.op("RET")
	g.label(l("one"))
	apply(1, l("done"))
	advance(1)
	g.op("JMP %s", l("one"))
	g.label(l("done"))
	g.op("RET")
}

// partsDoc names the parts of a row for the doc comments.
func partsDoc(w width) string {
	var s []string
	for p, y := range w.shape() {
		if y {
			s = append(s, fmt.Sprintf("bytes %d-%d, 4-wide", 64*p, 64*p+31))
		} else {
			s = append(s, fmt.Sprintf("bytes %d-%d", 64*p, 64*p+63))
		}
	}
	return strings.Join(s, "; ")
}

// rowsDoc names the registers of rows rs for the doc comments.
func rowsDoc(rs ...row) string {
	var s []string
	for _, r := range rs {
		if len(r) == 1 {
			s = append(s, r[0].String())
			continue
		}
		var ps []string
		for _, p := range r {
			ps = append(ps, p.String())
		}
		s = append(s, "("+strings.Join(ps, ", ")+")")
	}
	if len(s) > 2 {
		return s[0] + ", …, " + s[len(s)-1]
	}
	return strings.Join(s, " and ")
}

// regsDoc names registers n0..n0+k-1.
func regsDoc(n0, k int) string {
	return fmt.Sprintf("Z%d-Z%d", n0, n0+k-1)
}

// fwdBlock writes fwdBlock<cw>AVX.
func (g *gen) fwdBlock(k kernel, w width) {
	rb := w.rowBytes()
	l := func(s string) string { return fmt.Sprintf("fb%d%s", w.cw, s) }
	n := w.blockRowsAtOnce()
	rows := w.rows(w.blockRows, n)
	col := w.row(w.blockCol, 0)
	at := "eight rows at a time while eight are left and nk ≤ 64, each column then serving eight rows, four while four are left"
	if !w.eight {
		at = "four rows at a time (eight would take more registers than there are)"
	}
	g.textKernel(k, w, 0, fmt.Sprintf(`fwdBlockAVX for rows of %[1]d values, reading the columns where they were
solved, as rows of %[1]d values from xk (row k at xk[%[1]dk:]), with the same
operations in every lane: for j < nr, row rows[j] of x −= Σ_{k<nk}
l[j·w+k]·x_k, each row held in registers from load to store, one chain
of multiply-adds in k order for each of its parts; %[2]s, then one at a
time through fwdrow%[1]d<>. The rows in %[3]s, the column in %[4]s, the
factor entries of four rows in %[5]s.`, w.cw, at, rowsDoc(rows...), rowsDoc(col), regsDoc(w.blockL, 4)))
	g.op("MOVQ x+0(FP), R9")
	g.op("MOVQ w+48(FP), R8")
	g.op("SHLQ $3, R8 // bytes per row of l")
	g.op("LEAQ (R8)(R8*2), R11")
	g.op("XORQ R13, R13 // j")
	// rowAddr sets AX to row rows[j+a] of x: BX = &rows[j].
	rowAddr := func(a int) {
		g.op("MOVLQSX %d(BX), AX", 4*a)
		g.rowIndex(w, "AX", "AX")
		g.op("ADDQ R9, AX")
	}
	loadRows := func(from, to int) {
		for a := from; a < to; a++ {
			rowAddr(a)
			g.load(rows[a], 0, "AX")
		}
	}
	storeRows := func(to int) {
		for a := range to {
			rowAddr(a)
			g.store(rows[a], 0, "AX")
		}
	}
	// fnma4 subtracts the column's products with the factor entries of
	// four rows from them: the entries at p, p+R8, p+2·R8 and p+R11.
	fnma4 := func(p string, first int) {
		for i, addr := range []string{"(%s)", "(%s)(R8*1)", "(%s)(R8*2)", "(%s)(R11*1)"} {
			e := z(w.blockL + i)
			g.op("VBROADCASTSD "+addr+", %v", p, e)
			for q, c := range col {
				g.op("VFNMADD231PD %v, %v, %v", c, e.as(c), rows[first+i][q])
			}
		}
	}
	// columns applies the nk columns to rows 0..4·len(ls)-1, whose entries
	// of l are at ls.
	columns := func(loop string, ls ...string) {
		g.label(loop)
		g.load(col, 0, "DX")
		for i, p := range ls {
			fnma4(p, 4*i)
		}
		for _, p := range ls {
			g.op("ADDQ $8, %s", p)
		}
		g.op("ADDQ $%d, DX", rb)
		g.op("DECQ CX")
		g.op("JNZ %s", loop)
	}
	g.label(l("rows"))
	g.op("MOVQ nr+16(FP), R10")
	g.op("SUBQ R13, R10 // rows left")
	g.op("CMPQ R10, $4")
	g.op("JLT %s", l("one"))
	g.op("MOVQ R13, BX")
	g.op("SHLQ $2, BX")
	g.op("ADDQ rows+8(FP), BX // &rows[j]")
	g.op("MOVQ R13, SI")
	g.op("IMULQ R8, SI")
	g.op("ADDQ l+24(FP), SI // &l[j·w]")
	g.op("MOVQ xk+32(FP), DX")
	g.op("MOVQ nk+40(FP), CX")
	loadRows(0, 4)
	if w.eight {
		g.op("CMPQ R10, $8")
		g.op("JLT %s", l("four"))
		g.op("CMPQ CX, $64")
		g.op("JLE %s", l("eight"))
		g.label(l("four"))
	}
	g.op("TESTQ CX, CX")
	g.op("JEQ %s", l("store4"))
	columns(l("col4"), "SI")
	g.label(l("store4"))
	storeRows(4)
	g.op("ADDQ $4, R13")
	g.op("JMP %s", l("rows"))
	if w.eight {
		g.label(l("eight"))
		loadRows(4, 8)
		g.op("LEAQ (SI)(R8*4), DI // &l[(j+4)·w]")
		g.op("TESTQ CX, CX")
		g.op("JEQ %s", l("store8"))
		columns(l("col8"), "SI", "DI")
		g.label(l("store8"))
		storeRows(8)
		g.op("ADDQ $8, R13")
		g.op("JMP %s", l("rows"))
	}
	g.label(l("one"))
	g.op("CMPQ R13, nr+16(FP)")
	g.op("JGE %s", l("done"))
	g.op("MOVQ rows+8(FP), BX")
	g.op("MOVLQSX (BX)(R13*4), DI")
	g.rowIndex(w, "DI", "DI")
	g.op("ADDQ R9, DI // row rows[j]")
	g.op("MOVQ R13, SI")
	g.op("IMULQ R8, SI")
	g.op("ADDQ l+24(FP), SI // &l[j·w]")
	g.op("MOVQ xk+32(FP), DX")
	g.op("MOVQ nk+40(FP), CX")
	g.op("CALL fwdrow%d<>(SB)", w.cw)
	g.op("INCQ R13")
	g.op("JMP %s", l("one"))
	g.label(l("done"))
	g.op("VZEROUPPER")
	g.op("RET")
}

// scale multiplies the row r by the value at addr, broadcast into
// register s, and stores it at byte off of DI.
func (g *gen) scale(r row, s reg, addr string, off int) {
	g.op("VBROADCASTSD %s, %v", addr, s)
	for _, p := range r {
		g.op("VMULPD %v, %v, %v", p, s.as(p), p)
	}
	g.store(r, off, "DI")
}

// fwdTri writes fwdTri<cw>AVX.
func (g *gen) fwdTri(k kernel, w width) {
	rb := w.rowBytes()
	done := fmt.Sprintf("ft%ddone", w.cw)
	rows := w.rows(w.triRows, 4)
	s, e := z(w.triScale), z(w.fwdTriL)
	g.textKernel(k, w, 0, fmt.Sprintf(`fwdDiagAVX for a triangle of b ≤ 4 rows of %d values, the rows held
in registers from load to store: for r < b, x_r = (x_r − l[r·ld]·x_0 − …
− l[r·ld+r−1]·x_{r−1})·dinv[r], each product subtracted from the row in
that order, as fwdrow<> takes fewer than four columns. Each row waits for
the ones before it; the registers keep a store and a load out of that
wait. The rows in %s.`, w.cw, rowsDoc(rows...)))
	g.op("MOVQ x1+0(FP), DI")
	g.op("MOVQ l+8(FP), SI")
	g.op("MOVQ b+16(FP), CX")
	g.op("MOVQ ld+24(FP), R8")
	g.op("SHLQ $3, R8 // bytes per row of l")
	g.op("MOVQ dinv+32(FP), BX")
	g.load(rows[0], 0, "DI")
	g.scale(rows[0], s, "0(BX)", 0)
	for r := 1; r < 4; r++ {
		g.note("row %d, after the rows before it; SI = &l[%d·ld]", r, r)
		g.op("CMPQ CX, $%d", r)
		g.op("JEQ %s", done)
		g.op("ADDQ R8, SI")
		g.load(rows[r], r*rb, "DI")
		for i := range r {
			g.op("VBROADCASTSD %d(SI), %v", 8*i, e)
			for q, p := range rows[r] {
				g.op("VFNMADD231PD %v, %v, %v", rows[i][q], e.as(p), p)
			}
		}
		g.scale(rows[r], s, fmt.Sprintf("%d(BX)", 8*r), r*rb)
	}
	g.label(done)
	g.op("VZEROUPPER")
	g.op("RET")
}

// bwdTri writes bwdTri<cw>AVX.
func (g *gen) bwdTri(k kernel, w width) {
	rb := w.rowBytes()
	done := fmt.Sprintf("bt%ddone", w.cw)
	rows := w.rows(w.triRows, 4)
	acc := w.row(w.triAcc, 0)
	s, e := z(w.triScale), z(w.bwdTriL)
	g.textKernel(k, w, 0, fmt.Sprintf(`bwdDiagAVX for the transposed triangle of b ≤ 4 columns of rows of %d
values, the rows held in registers: for r from b−1 down to 0, x_r = (x_r
− Σ_{r<i<b} l[i·ld+r]·x_i)·dinv[r], the sum taken from i = b−1 down in an
accumulator that starts at zero and subtracted once, as bwd1<> takes it.
The addresses are taken from the last row, so that the code for the row j
places before the last is the same whatever b is. The rows in %s, the
accumulator in %s.`, w.cw, rowsDoc(rows...), rowsDoc(acc)))
	g.op("MOVQ b+16(FP), CX")
	g.op("LEAQ -1(CX), AX // b−1")
	g.rowIndex(w, "AX", "DI")
	g.op("ADDQ x1+0(FP), DI // the last row")
	g.op("MOVQ ld+24(FP), R8")
	g.op("SHLQ $3, R8 // bytes per row of l")
	g.op("MOVQ AX, R9")
	g.op("IMULQ R8, R9")
	g.op("LEAQ (R9)(AX*8), R9")
	g.op("ADDQ l+8(FP), R9 // &l[(b−1)·ld+b−1]")
	g.op("MOVQ R9, R10")
	g.op("SUBQ R8, R10 // one row of l up")
	g.op("MOVQ R10, R11")
	g.op("SUBQ R8, R11 // two rows up")
	g.op("MOVQ dinv+32(FP), BX")
	g.op("LEAQ (BX)(AX*8), BX // &dinv[b−1]")
	g.load(rows[0], 0, "DI")
	g.scale(rows[0], s, "0(BX)", 0)
	lrows := []string{"R9", "R10", "R11"}
	for r := 1; r < 4; r++ {
		g.note("the row %d before the last", r)
		g.op("CMPQ CX, $%d", r)
		g.op("JEQ %s", done)
		g.load(rows[r], -r*rb, "DI")
		// The accumulator is zeroed whole, its 4-wide part too.
		for _, a := range acc {
			g.op("VPXORQ %v, %v, %v", z(a.n), z(a.n), z(a.n))
		}
		for i := range r {
			g.op("VBROADCASTSD %d(%s), %v", -8*r, lrows[i], e)
			for q, a := range acc {
				g.op("VFMADD231PD %v, %v, %v", rows[i][q], e.as(a), a)
			}
		}
		for q, p := range rows[r] {
			g.op("VSUBPD %v, %v, %v", acc[q], p, p)
		}
		g.scale(rows[r], s, fmt.Sprintf("%d(BX)", -8*r), -r*rb)
	}
	g.label(done)
	g.op("VZEROUPPER")
	g.op("RET")
}

// bwdPrefetchShift is log₂ of bwdPrefetch, how many rows below bwdNx
// fetches the factor entries ahead of their use. bwdNx reads a few
// columns of every row of a supernode's block below its diagonal, rows w
// values apart: beyond 512 columns (the top separators of a 32³ grid's
// factor) each row's entries lie in a page of their own, where the
// processor's prefetchers do not follow, and every row would wait for
// memory. Sixteen rows ahead hide that wait; eight, 32 or 64 do no
// better (docs/design.md, "Kernels"). The rows are walked from the last up,
// so the first 16 prefetch addresses before the block, which a prefetch
// may: it never faults.
const bwdPrefetchShift = 4

// bwdNx writes bwdNx<cw>AVX.
func (g *gen) bwdNx(k kernel, w width) {
	rb := w.rowBytes()
	l := func(s string) string { return fmt.Sprintf("bn%d%s", w.cw, s) }
	accs := w.rows(w.nxAcc, w.nxCols)
	below := w.row(w.nxRow, 0)
	ns := "1, 2, 3, 4 or 8"
	if w.nxCols == 4 {
		ns = "1, 2, 3 or 4"
	}
	g.textKernel(k, w, 0, fmt.Sprintf(`bwd4AVX's 8-wide path for n = %s rows of %d values (AVX-512): for j
< n, a[%[2]dj:%[2]dj+%[2]d] -= Σ_{r<nr} l[r·w+j]·x[below[r]·%[2]d:+%[2]d], each sum taken from r
= nr−1 down to 0 (nr ≥ 1) in an accumulator of its own and subtracted
once, the arithmetic of bwd4AVX and bwd1AVX in every lane. One pass over
the rows below serves the n rows and every part of them, where bwd4AVX
makes a pass for each four rows and group of quads. The accumulators in
%s, the row below in %s, the factor entries in %s, in turn;
the entries %d rows on are prefetched (bwdPrefetchShift).`, ns, w.cw, rowsDoc(accs...), rowsDoc(below), regsDoc(w.nxL, w.nxLn), 1<<bwdPrefetchShift))
	g.op("MOVQ a+0(FP), DI")
	g.op("MOVQ x+8(FP), SI")
	g.op("MOVQ below+16(FP), BX")
	g.op("MOVQ nr+24(FP), CX")
	g.op("MOVQ l+32(FP), DX")
	g.op("MOVQ w+40(FP), R8")
	g.op("SHLQ $3, R8 // bytes per row of l")
	g.op("MOVQ CX, R13")
	g.op("DECQ R13")
	g.op("IMULQ R8, R13")
	g.op("ADDQ R13, DX // &l[(nr-1)·w]")
	// The accumulators' 8-wide parts, then their 4-wide ones.
	for _, y := range []bool{false, true} {
		for _, a := range accs {
			for _, p := range a {
				if p.y == y {
					g.zero(p)
				}
			}
		}
	}
	g.op("MOVQ n+48(FP), R9")
	g.op("MOVQ R8, R10")
	g.op("SHLQ $%d, R10 // bwdPrefetch rows of l", bwdPrefetchShift)
	// until ends the sequence after row j when n = j+1 (jumping to
	// label): n is 1, 2, 3, 4 or nxCols.
	until := func(j int, label string) {
		if j < 4 && j+1 < w.nxCols {
			g.op("CMPQ R9, $%d", j+1)
			g.op("JEQ %s", label)
		}
	}
	g.label(l("rows"))
	g.note("the factor entries bwdPrefetch rows on, the lines of the n columns")
	g.op("MOVQ DX, R11")
	g.op("SUBQ R10, R11")
	g.op("PREFETCHT0 (R11)")
	g.op("PREFETCHT0 %d(R11)", 8*w.nxCols-8)
	g.note("the next row below, r = CX−1: row below[r] of x")
	g.op("DECQ CX")
	g.op("MOVLQSX (BX)(CX*4), AX")
	g.rowIndex(w, "AX", "AX")
	g.op("ADDQ SI, AX")
	g.load(below, 0, "AX")
	for j, a := range accs {
		e := z(w.nxL + j%w.nxLn)
		g.op("VBROADCASTSD %d(DX), %v", 8*j, e)
		for q, p := range a {
			g.op("VFMADD231PD %v, %v, %v", below[q], e.as(p), p)
		}
		until(j, l("next"))
	}
	g.label(l("next"))
	g.op("SUBQ R8, DX")
	g.op("TESTQ CX, CX")
	g.op("JNZ %s", l("rows"))
	for j, a := range accs {
		for q, p := range a {
			off := rb*j + 64*q
			g.op("VMOVUPD %d(DI), %v", off, below[q])
			g.op("VSUBPD %v, %v, %v", p, below[q], below[q])
			g.op("VMOVUPD %v, %d(DI)", below[q], off)
		}
		until(j, l("done"))
	}
	g.label(l("done"))
	g.op("VZEROUPPER")
	g.op("RET")
}

// entry writes k's entry point, which jumps to the kernel of the width
// given last, or of the first width for any other.
func (g *gen) entry(k kernel) {
	l := func(i int) string { return fmt.Sprintf("%s%d", k.base, i) }
	var ws []string
	for _, w := range widths {
		ws = append(ws, fmt.Sprint(w.cw))
	}
	cwOff := k.argBytes()
	g.text(fmt.Sprintf(`func %s(%s, cw int)

%[1]s takes the row width cw (%[3]s) as a last argument and
jumps to that width's kernel (%[4]d's for any other), whose arguments lie
at the same places: one call from Go whatever the width.`, k.entryName(), k.params, strings.Join(ws, ", "), widths[0].cw),
		"·"+k.entryName(), "NOSPLIT", fmt.Sprintf("$0-%d", cwOff+8))
	g.op("MOVQ cw+%d(FP), AX", cwOff)
	for i, w := range widths[1:] {
		g.op("CMPQ AX, $%d", w.cw)
		g.op("JNE %s", l(i+1))
		g.op("JMP ·%s(SB)", k.name(w.cw))
		g.label(l(i + 1))
	}
	g.op("JMP ·%s(SB)", k.name(widths[0].cw))
}

// run1 places the operands of fwd1Run and bwd1Run, the same at every
// width: the pivot's row (fwd1Run) or the sums (bwd1Run), the row below
// (fwd1Run) or the pivot's row (bwd1Run), and the registers that the
// factor entries and the pivot's reciprocal are broadcast into.
var run1 = struct {
	first, second placement
	l, scale      int
}{placement{0, 8}, placement{4, 9}, 10, 11}

// run1Form is what the kernels of one-column supernodes of one row
// layout differ in: how a row index becomes its byte offset (in place, in
// register r), and the registers the factor entries and the pivot's
// reciprocal are broadcast into, 8-wide or 4-wide.
type run1Form struct {
	index    func(g *gen, r string)
	l, scale reg
}

// rowsForm is the run1Form of rows of w.cw values held in AVX-512
// registers.
func rowsForm(w width) run1Form {
	return run1Form{func(g *gen, r string) { g.rowIndex(w, r, r) }, z(run1.l), z(run1.scale)}
}

// quadsForm is the run1Form of the 4-wide kernels, whose rows are R12
// bytes apart.
var quadsForm = run1Form{func(g *gen, r string) { g.op("IMULQ R12, %s", r) }, reg{run1.l, true}, reg{run1.scale, true}}

// run1Supernode loads supernode CX, of one column f = first[CX]: AX =
// &x_f (R9 = x), the pivot's reciprocal dinv[f] broadcast into f.scale,
// R8 and R11 the positions of its own row and of the end of its rows,
// and SI such that SI + 8p is the factor entry of row position p.
func (g *gen) run1Supernode(f run1Form) {
	g.op("MOVQ first+24(FP), BX")
	g.op("MOVQ (BX)(CX*8), AX // f")
	g.op("MOVQ dinv+64(FP), BX")
	g.op("VBROADCASTSD (BX)(AX*8), %v", f.scale)
	f.index(g, "AX")
	g.op("ADDQ R9, AX // x_f")
	g.op("MOVQ rowPtr+32(FP), BX")
	g.op("MOVQ (BX)(CX*8), R8 // the own row's position")
	g.op("MOVQ 8(BX)(CX*8), R11 // the end of the rows")
	g.op("MOVQ off+48(FP), BX")
	g.op("MOVQ (BX)(CX*8), SI")
	g.op("SUBQ R8, SI")
	g.op("SHLQ $3, SI")
	g.op("ADDQ lx+56(FP), SI // SI + 8p: the entry of row position p")
}

// run1Row broadcasts the factor entry of row position DX into f.l and
// points DI at its row rows[DX] of x (R10 = rows).
func (g *gen) run1Row(f run1Form) {
	g.op("VBROADCASTSD (SI)(DX*8), %v", f.l)
	g.op("MOVLQSX (R10)(DX*4), DI")
	f.index(g, "DI")
	g.op("ADDQ R9, DI")
}

// run1Start starts a kernel of one-column supernodes: R9 = x, R10 = rows,
// CX = the first supernode (s0 or s1).
func (g *gen) run1Start(s string) {
	g.op("MOVQ x+0(FP), R9")
	g.op("MOVQ rows+40(FP), R10")
	g.op("MOVQ %s, CX", s)
}

// run1End ends a kernel of one-column supernodes at label done.
func (g *gen) run1End(done string) {
	g.label(done)
	g.op("VZEROUPPER")
	g.op("RET")
}

// fwd1Run writes fwd1Run<cw>AVX.
func (g *gen) fwd1Run(k kernel, w width) {
	l := func(s string) string { return fmt.Sprintf("f1r%d%s", w.cw, s) }
	pivot, below := w.row(run1.first, 0), w.row(run1.second, 0)
	g.textKernel(k, w, 0, fmt.Sprintf(`rowKernels.fwd1Run for rows of %d values (AVX-512), the operations of
fwd1RunQuads in every lane: eliminates the supernodes s0..s1-1, each of one column f =
first[s] whose rows below all lie in x: x_f ·= dinv[f], then x_i −= l·x_f
for each row i below, in one pass over them. x_f in %s, the row below in
%s, its factor entry in %v, the pivot's reciprocal in %v.`,
		w.cw, rowsDoc(pivot), rowsDoc(below), z(run1.l), z(run1.scale)))
	f := rowsForm(w)
	g.fwd1Loop(l, f, func() {
		for q, p := range pivot {
			g.op("VMULPD %d(AX), %v, %v", 64*q, f.scale.as(p), p)
		}
		g.store(pivot, 0, "AX")
	}, func() {
		g.load(below, 0, "DI")
		for q, p := range below {
			g.op("VFNMADD231PD %v, %v, %v", pivot[q], f.l.as(p), p)
		}
		g.store(below, 0, "DI")
	})
}

// bwd1Run writes bwd1Run<cw>AVX.
func (g *gen) bwd1Run(k kernel, w width) {
	l := func(s string) string { return fmt.Sprintf("b1r%d%s", w.cw, s) }
	acc, pivot := w.row(run1.first, 0), w.row(run1.second, 0)
	g.textKernel(k, w, 0, fmt.Sprintf(`rowKernels.bwd1Run for rows of %d values (AVX-512), the operations of
bwd1RunQuads in every lane: solves with the transposes of the supernodes s1-1 down to s0,
each of one column f = first[s]: x_f = (x_f − Σ_i l_i·x_i)·dinv[f] over
the rows i below, summed from the last to the first in one pass over
them. The sums in %s, x_f in %s, the factor entry in %v, the pivot's
reciprocal in %v.`, w.cw, rowsDoc(acc), rowsDoc(pivot), z(run1.l), z(run1.scale)))
	f := rowsForm(w)
	g.bwd1Loop(l, f, func() {
		for _, p := range acc {
			g.zero(p)
		}
	}, func() {
		for q, p := range acc {
			g.op("VFMADD231PD %d(DI), %v, %v", 64*q, f.l.as(p), p)
		}
	}, func() {
		g.load(pivot, 0, "AX")
		for q, p := range pivot {
			g.op("VSUBPD %v, %v, %v", acc[q], p, p)
			g.op("VMULPD %v, %v, %v", f.scale.as(p), p, p)
		}
		g.store(pivot, 0, "AX")
	})
}

// fwd1Loop writes the loops of a forward kernel of one-column
// supernodes (labels from l, rows of form f): for each supernode
// (run1Supernode) scale, then for each row below (run1Row) update.
func (g *gen) fwd1Loop(l func(string) string, f run1Form, scale, update func()) {
	g.run1Start("s0+8(FP)")
	g.label(l("snode"))
	g.op("CMPQ CX, s1+16(FP)")
	g.op("JGE %s", l("done"))
	g.run1Supernode(f)
	scale()
	g.op("MOVQ R8, DX")
	g.label(l("row"))
	g.op("INCQ DX")
	g.op("CMPQ DX, R11")
	g.op("JGE %s", l("next"))
	g.run1Row(f)
	update()
	g.op("JMP %s", l("row"))
	g.label(l("next"))
	g.op("INCQ CX")
	g.op("JMP %s", l("snode"))
	g.run1End(l("done"))
}

// bwd1Loop writes the loops of a backward kernel of one-column
// supernodes: for each supernode from the last (run1Supernode) zero, then
// for each row below from the last (run1Row) add, then finish.
func (g *gen) bwd1Loop(l func(string) string, f run1Form, zero, add, finish func()) {
	g.run1Start("s1+16(FP)")
	g.label(l("snode"))
	g.op("CMPQ CX, s0+8(FP)")
	g.op("JLE %s", l("done"))
	g.op("DECQ CX")
	g.run1Supernode(f)
	zero()
	g.op("MOVQ R11, DX")
	g.label(l("row"))
	g.op("DECQ DX")
	g.op("CMPQ DX, R8")
	g.op("JLE %s", l("sub"))
	g.run1Row(f)
	add()
	g.op("JMP %s", l("row"))
	g.label(l("sub"))
	finish()
	g.op("JMP %s", l("snode"))
	g.run1End(l("done"))
}

// maxQuads is the most quads of a row the 4-wide kernels of one-column
// supernodes take at once: a row's sums in Y0-Y7, the registers below 16
// being all that AVX2 has (checkQuads). The caller takes wider rows in
// slices of maxQuads quads; goFile declares it for the caller.
const maxQuads = 8

// checkQuads reports a maxQuads m whose quads, in Y0 to Y(m−1), would
// reach the registers that the 4-wide kernels of one-column supernodes
// use besides.
func checkQuads(m int) error {
	if most := min(run1.second.y, run1.l, run1.scale); m < 1 || m > most {
		return fmt.Errorf("%d quads: the 4-wide kernels of one-column supernodes hold at most %d", m, most)
	}
	return nil
}

// quadKernels are the 4-wide kernels of one-column supernodes, written for
// 1 to maxQuads quads: the kernel for q quads is named name(q) and the
// entry point (entryQuads) takes q last. x points at the first value of
// the slice of row 0 they take; its rows are rb bytes apart.
var quadKernels = []quadKernel{
	{kernel{base: "fwd1RunQuads", params: run1Params + ", rb int"}, (*gen).fwd1Quads},
	{kernel{base: "bwd1RunQuads", params: run1Params + ", rb int"}, (*gen).bwd1Quads},
}

// A quadKernel is a kernel written for each number of quads.
type quadKernel struct {
	kernel
	emitQuads func(*gen, kernel, int)
}

// quadsName is the name of k's kernel for q quads.
func quadsName(k kernel, q int) string { return fmt.Sprintf("%s%dAVX", k.base, q) }

// textQuads starts k's kernel for q quads with its doc comment, and
// loads its last argument, rb, into R12 (quadsForm).
func (g *gen) textQuads(k kernel, q int, doc string) {
	name := quadsName(k, q)
	g.text(fmt.Sprintf("func %s(%s)\n\n%s", name, k.params, doc), "·"+name, "NOSPLIT", fmt.Sprintf("$0-%d", k.argBytes()))
	g.op("MOVQ rb+%d(FP), R12", k.argBytes()-8)
}

// quadsDoc describes the rows of a 4-wide kernel of one-column
// supernodes for q quads.
func quadsDoc(q int) string {
	n := fmt.Sprintf("%d quads", q)
	if q == 1 {
		n = "one quad"
	}
	return fmt.Sprintf("%s of each row (x at row 0's first, the rows rb bytes apart)", n)
}

// quads returns q 4-wide registers from Y0.
func quads(q int) row {
	r := make(row, q)
	for i := range r {
		r[i] = reg{i, true}
	}
	return r
}

// fwd1Quads writes fwd1RunQuads<q>AVX for q = 1..maxQuads.
func (g *gen) fwd1Quads(k kernel, q int) {
	l := func(s string) string { return fmt.Sprintf("f1q%d%s", q, s) }
	pivot, tmp := quads(q), reg{run1.second.y, true}
	g.textQuads(k, q, fmt.Sprintf(`4-wide (AVX2), on %s: eliminates the supernodes s0..s1-1, each of one
column f = first[s] whose rows below all lie in x: x_f ·= dinv[f], then
x_i −= l·x_f (fused) for each row i below, in one pass over them, x_f in
%s, each quad of the row below in %v in turn.`, quadsDoc(q), rowsDoc(pivot), tmp))
	g.fwd1Loop(l, quadsForm, func() {
		for i, p := range pivot {
			g.op("VMULPD %d(AX), %v, %v", 32*i, quadsForm.scale, p)
			g.op("VMOVUPD %v, %d(AX)", p, 32*i)
		}
	}, func() {
		for i, p := range pivot {
			g.op("VMOVUPD %d(DI), %v", 32*i, tmp)
			g.op("VFNMADD231PD %v, %v, %v", p, quadsForm.l, tmp)
			g.op("VMOVUPD %v, %d(DI)", tmp, 32*i)
		}
	})
}

// bwd1Quads writes bwd1RunQuads<q>AVX for q = 1..maxQuads.
func (g *gen) bwd1Quads(k kernel, q int) {
	l := func(s string) string { return fmt.Sprintf("b1q%d%s", q, s) }
	acc, tmp := quads(q), reg{run1.second.y, true}
	g.textQuads(k, q, fmt.Sprintf(`4-wide (AVX2), on %s: solves with the transposes of the supernodes
s1-1 down to s0, each of one column f = first[s]: x_f = (x_f − Σ_i
l_i·x_i)·dinv[f] over the rows i below, the sum from +0 and from the last
row to the first in fused multiply-adds, in one pass over them. The sums
in %s, each quad of x_f in %v in turn.`, quadsDoc(q), rowsDoc(acc), tmp))
	g.bwd1Loop(l, quadsForm, func() {
		for _, p := range acc {
			g.zero(p)
		}
	}, func() {
		for i, p := range acc {
			g.op("VFMADD231PD %d(DI), %v, %v", 32*i, quadsForm.l, p)
		}
	}, func() {
		for i, p := range acc {
			g.op("VMOVUPD %d(AX), %v", 32*i, tmp)
			g.op("VSUBPD %v, %v, %v", p, tmp, tmp)
			g.op("VMULPD %v, %v, %v", quadsForm.scale, tmp, tmp)
			g.op("VMOVUPD %v, %d(AX)", tmp, 32*i)
		}
	})
}

// entryQuads writes k's entry point, which jumps to the kernel for the
// number of quads given last (maxQuads, the common case, tested first;
// 1's, the narrowest, for any number not in 1..maxQuads).
func (g *gen) entryQuads(k kernel) {
	l := func(i int) string { return fmt.Sprintf("%s%d", k.base, i) }
	qOff := k.argBytes()
	g.text(fmt.Sprintf(`func %s(%s, q int)

%[1]s takes the number of quads q (1 to %[3]d) as a last argument and
jumps to that kernel (1's for any other), whose arguments lie at the
same places.`, k.base+"AVX", k.params, maxQuads), "·"+k.base+"AVX", "NOSPLIT", fmt.Sprintf("$0-%d", qOff+8))
	g.op("MOVQ q+%d(FP), AX", qOff)
	for q := maxQuads; q > 1; q-- {
		g.op("CMPQ AX, $%d", q)
		g.op("JNE %s", l(q))
		g.op("JMP ·%s(SB)", quadsName(k, q))
		g.label(l(q))
	}
	g.op("JMP ·%s(SB)", quadsName(k, 1))
}
