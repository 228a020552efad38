package main

import (
	"fmt"
	"math/bits"
)

// A width describes the kernels for rows of cw values: a row is cw/8
// parts of 8 values, each in a Z register, and, where cw/8 leaves 4, a
// last part of 4 values in a Y register; the parts are 64 bytes apart.
// The other fields place the kernels' operands in registers: a placement
// names where the first row goes, and row i then takes the Z registers
// after the i rows before it and, for a 4-wide part, Y register y+i (see
// row).
type width struct {
	cw int

	// fwdBlock: the four or eight rows, the column of xk being applied,
	// and the first of the four registers that take the rows' factor
	// entries. eight: eight rows at a time while eight are left and the
	// panel has at most 64 columns, each column loaded then serving eight
	// rows; without it (at 32 values, four rows take half the registers)
	// four at a time only.
	blockRows, blockCol placement
	blockL              int
	eight               bool

	// fwdTri and bwdTri: the four rows of the triangle, the register the
	// pivot's reciprocal is broadcast into, the one each factor entry is
	// (fwdTriL, bwdTriL), and bwdTri's accumulator.
	triRows                    placement
	triScale, fwdTriL, bwdTriL int
	triAcc                     placement

	// bwdNx: the accumulators of the nxCols columns taken at a time (8,
	// or 4 where eight accumulators would not fit), the row below, and the
	// nxLn registers the factor entries are broadcast into in turn.
	nxAcc, nxRow placement
	nxL, nxLn    int
	nxCols       int
}

// placement places rows in registers: see width.
type placement struct{ z, y int }

// widths are the kernels' row widths, narrowest first; the entry points
// fall back to the first. The placements keep apart what is live at the
// same time (width.check) and match the kernels this generator replaced,
// instruction for instruction, so that their speed is unchanged: 4-wide
// parts take registers below 16, and the 8-wide and 16-wide kernels leave
// Z18 up for the factor entries of bwdNx's eight columns.
var widths = []width{
	{
		cw:        8,
		blockRows: placement{0, 0}, blockCol: placement{16, 0}, blockL: 18, eight: true,
		triRows: placement{0, 0}, triScale: 20, fwdTriL: 21, bwdTriL: 21, triAcc: placement{8, 0},
		nxAcc: placement{0, 0}, nxRow: placement{16, 0}, nxL: 18, nxLn: 8, nxCols: 8,
	},
	{
		cw:        16,
		blockRows: placement{0, 0}, blockCol: placement{16, 0}, blockL: 18, eight: true,
		triRows: placement{0, 0}, triScale: 20, fwdTriL: 21, bwdTriL: 21, triAcc: placement{8, 0},
		nxAcc: placement{0, 0}, nxRow: placement{16, 0}, nxL: 18, nxLn: 8, nxCols: 8,
	},
	{
		cw:        20,
		blockRows: placement{13, 0}, blockCol: placement{29, 8}, blockL: 9, eight: true,
		triRows: placement{4, 0}, triScale: 15, fwdTriL: 12, bwdTriL: 15, triAcc: placement{12, 14},
		nxAcc: placement{16, 0}, nxRow: placement{8, 10}, nxL: 11, nxLn: 4, nxCols: 8,
	},
	{
		cw:        24,
		blockRows: placement{0, 0}, blockCol: placement{24, 0}, blockL: 27, eight: true,
		triRows: placement{0, 0}, triScale: 15, fwdTriL: 12, bwdTriL: 15, triAcc: placement{12, 0},
		nxAcc: placement{0, 0}, nxRow: placement{24, 0}, nxL: 27, nxLn: 4, nxCols: 8,
	},
	{
		cw:        32,
		blockRows: placement{0, 0}, blockCol: placement{16, 0}, blockL: 20, eight: false,
		triRows: placement{0, 0}, triScale: 20, fwdTriL: 21, bwdTriL: 21, triAcc: placement{16, 0},
		nxAcc: placement{0, 0}, nxRow: placement{16, 0}, nxL: 20, nxLn: 4, nxCols: 4,
	},
}

// reg is vector register n: all 8 values (Zn) or, with y, its low 4 (Yn).
type reg struct {
	n int
	y bool
}

func (r reg) String() string {
	if r.y {
		return fmt.Sprintf("Y%d", r.n)
	}
	return fmt.Sprintf("Z%d", r.n)
}

// as is register r in the width of part p: a factor entry broadcast into
// all of r is applied to each part of a row.
func (r reg) as(p reg) reg { return reg{r.n, p.y} }

// z is Z register n.
func z(n int) reg { return reg{n: n} }

// row is the registers of a row's parts, in order.
type row []reg

// shape is the parts of a row, 8-wide (false) or 4-wide (true).
func (w width) shape() []bool {
	s := make([]bool, w.cw/8, w.cw/8+1)
	if w.cw%8 == 4 {
		s = append(s, true)
	}
	return s
}

// row returns the registers of row i of the rows placed at pl.
func (w width) row(pl placement, i int) row {
	n8 := w.cw / 8
	var r row
	for p, y := range w.shape() {
		if y {
			r = append(r, reg{pl.y + i, true})
		} else {
			r = append(r, z(pl.z+i*n8+p))
		}
	}
	return r
}

// rows returns rows 0..n-1 placed at pl.
func (w width) rows(pl placement, n int) []row {
	rs := make([]row, n)
	for i := range rs {
		rs[i] = w.row(pl, i)
	}
	return rs
}

// rowBytes is the bytes of a row, 8·cw.
func (w width) rowBytes() int { return 8 * w.cw }

// blockRowsAtOnce is how many rows fwdBlock takes at a time at most.
func (w width) blockRowsAtOnce() int {
	if w.eight {
		return 8
	}
	return 4
}

// check reports a width whose rows are not whole quads, whose row size
// the kernels cannot compute (see gen.rowIndex), or whose placements put
// two operands that are live at the same time in one register, use a
// register beyond Z31 or a 4-wide operand beyond Y15.
func (w width) check() error {
	if w.cw <= 0 || w.cw%4 != 0 {
		return fmt.Errorf("width %d: not a positive multiple of 4", w.cw)
	}
	if m := w.rowBytes() >> bits.TrailingZeros(uint(w.rowBytes())); m != 1 && m != 3 && m != 5 && m != 9 {
		return fmt.Errorf("width %d: a row of %d bytes is not 1, 3, 5 or 9 times a power of 2", w.cw, w.rowBytes())
	}
	if w.nxCols != 4 && w.nxCols != 8 {
		return fmt.Errorf("width %d: bwdNx takes 4 or 8 columns, not %d", w.cw, w.nxCols)
	}
	var quad []reg // every register used 4-wide
	regs := func(rs ...row) []int {
		var ns []int
		for _, r := range rs {
			for _, p := range r {
				ns = append(ns, p.n)
				if p.y {
					quad = append(quad, p)
				}
			}
		}
		return ns
	}
	// bcast is the registers a factor entry is broadcast into, which
	// rows with a 4-wide part also use 4-wide.
	bcast := func(n0, k int) []int {
		var ns []int
		for i := range k {
			ns = append(ns, n0+i)
			if w.cw%8 == 4 {
				quad = append(quad, reg{n0 + i, true})
			}
		}
		return ns
	}
	tri := regs(w.rows(w.triRows, 4)...)
	acc := regs(w.row(w.triAcc, 0))
	for _, k := range []struct {
		what   string
		groups [][]int
	}{
		{"fwdBlock", [][]int{regs(w.rows(w.blockRows, w.blockRowsAtOnce())...), regs(w.row(w.blockCol, 0)), bcast(w.blockL, 4)}},
		{"fwdTri", [][]int{tri, bcast(w.triScale, 1), bcast(w.fwdTriL, 1)}},
		// The pivot's reciprocal and the factor entries are not live at
		// the same time: they may share a register.
		{"bwdTri", [][]int{tri, acc, bcast(w.triScale, 1)}},
		{"bwdTri", [][]int{tri, acc, bcast(w.bwdTriL, 1)}},
		{"bwdNx", [][]int{regs(w.rows(w.nxAcc, w.nxCols)...), regs(w.row(w.nxRow, 0)), bcast(w.nxL, w.nxLn)}},
		{"fwd1Run and bwd1Run", [][]int{regs(w.row(run1.first, 0)), regs(w.row(run1.second, 0)), bcast(run1.l, 1), bcast(run1.scale, 1)}},
	} {
		seen := map[int]bool{}
		for _, grp := range k.groups {
			for _, n := range grp {
				if n < 0 || n > 31 {
					return fmt.Errorf("width %d: %s uses register %d", w.cw, k.what, n)
				}
				if seen[n] {
					return fmt.Errorf("width %d: %s puts two operands in register %d", w.cw, k.what, n)
				}
				seen[n] = true
			}
		}
	}
	for _, r := range quad {
		if r.n > 15 {
			return fmt.Errorf("width %d: a 4-wide operand in %v", w.cw, r)
		}
	}
	return nil
}
