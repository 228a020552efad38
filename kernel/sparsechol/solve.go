package sparsechol

// SolveKernels names the kernels Solve and SolveSteps run on in this
// process: "avx512-fma" (assembly, on amd64 processors with AVX-512),
// "avx2-fma" (the same with AVX2 and FMA only) or "scalar" (portable Go).
// They agree to rounding, not bitwise: the solves of the first two are
// bitwise the same, the adjoint's edge sums of blocks of more than 32
// columns are not (stripWidth).
func SolveKernels() string {
	switch {
	case useWide:
		return "avx512-fma"
	case useAVX:
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

// blockWidth is the values a row of the solve's vertex-major workspace
// holds for cols right-hand sides: cols, rounded up to a multiple of 4 for
// the vector kernels (which work on whole quads of right-hand sides), and
// on processors with AVX-512 12 and 28 to 16 and 32, which the kernels
// that hold a row whole (rowKernels: 8, 16, 20, 24 and 32 values) solve
// in less time than the 4-wide kernels solve 12 or 28. The columns added
// are zero, and every lane does the same arithmetic whatever the width,
// so no value changes.
func blockWidth(cols int) int {
	switch cw := (cols + 3) &^ 3; {
	case !useAVX:
		return cols
	case useWide && (cw == 12 || cw == 28):
		return cw + 4
	default:
		return cw
	}
}

// stripWidth is the widest block the solves take at once: on processors
// with AVX-512, blocks of more than 32 columns are solved in strips of 32
// (the last one what is left), each on the kernels of rowKernels, which
// hold a row of up to 32 values whole and take less time than the 4-wide
// kernels on the whole block. Every lane does the same arithmetic either
// way, so only the adjoint's edge sums, added strip by strip, round
// differently; that is why SolveKernels names these kernels apart. 0 means
// no strips.
func stripWidth(cols int) int {
	if useAVX && useWide && cols > 32 {
		return 32
	}
	return 0
}

// packSize is the scratch the forward kernels take: the widest supernode's
// rows for the vector kernels (see forwardAVX), none for the others nor
// for rows of the widths of rowKernels (see forwardRangeRows).
func packSize(sym *symbolic, cw int) int {
	if useAVX && wideRows(cw) == nil {
		return sym.maxW * cw
	}
	return 0
}

// sumRows adds the buffer rows of sums j0..j1-1 to the block x (see
// sumRowsGo).
func sumRows(sym *symbolic, x, buf []float64, j0, j1, cw int) {
	if useAVX {
		sumRowsAVX(sym, x, buf, j0, j1, cw)
	} else {
		sumRowsGo(sym, x, buf, j0, j1, cw)
	}
}

// sumRowsGo adds to row sumRows[j] of x, for j0 ≤ j < j1, the buffer rows
// sumSrc[sumPtr[j]:sumPtr[j+1]] of buf in that order (rows of cw values).
func sumRowsGo(sym *symbolic, x, buf []float64, j0, j1, cw int) {
	for j := j0; j < j1; j++ {
		xi := x[int(sym.sumRows[j])*cw : int(sym.sumRows[j]+1)*cw]
		for _, src := range sym.sumSrc[sym.sumPtr[j]:sym.sumPtr[j+1]] {
			for c, v := range buf[int(src)*cw : int(src+1)*cw] {
				xi[c] += v
			}
		}
	}
}

// forwardRange eliminates supernodes s0..s1-1 in order (forwardGo,
// forwardAVX); the vector kernels take each run of sym.single supernodes
// in one call.
func forwardRange(sym *symbolic, num *numeric, s0, s1 int, x, tgt []float64, trows []int32, cw int, pack []float64) {
	if k := wideRows(cw); k != nil {
		forwardRangeRows(k, sym, num, s0, s1, x, tgt, trows)
		return
	}
	for s := s0; s < s1; s++ {
		switch {
		case !useAVX:
			forwardGo(sym, num, s, x, tgt, trows, cw)
		case !sym.single[s]:
			forwardAVX(sym, num, s, x, tgt, trows, cw, pack)
		default:
			e := s + 1
			for e < s1 && sym.single[e] {
				e++
			}
			forward1AVX(sym, num, s, e, x, cw)
			s = e - 1
		}
	}
}

// backwardRange solves with the transposes of supernodes s1-1 down to s0
// (backwardGo, backwardAVX; backwardRangeRows for rows of the widths of
// rowKernels); the vector kernels take each run of one-column supernodes
// in one call.
func backwardRange(sym *symbolic, num *numeric, s0, s1 int, x []float64, cw int) {
	if k := wideRows(cw); k != nil {
		backwardRangeRows(k, sym, num, s0, s1, x)
		return
	}
	for s := s1 - 1; s >= s0; s-- {
		switch {
		case !useAVX:
			backwardGo(sym, num, s, x, cw)
		case sym.first[s+1]-sym.first[s] > 1:
			backwardAVX(sym, num, s, x, cw)
		default:
			b := s
			for b > s0 && sym.first[b]-sym.first[b-1] == 1 {
				b--
			}
			backward1AVX(sym, num, b, s+1, x, cw)
			s = b
		}
	}
}

// forwardGo eliminates supernode s: it solves its diagonal block in place
// in x and subtracts its contributions from the rows below, two rows at a
// time. Rows at or beyond sym.topCol go to tgt, row position r from
// split[s] on to row trows[r] (trows is sym.rows or sym.trows), the
// others to x.
func forwardGo(sym *symbolic, num *numeric, s int, x, tgt []float64, trows []int32, cols int) {
	w, h, sp, r0 := sym.first[s+1]-sym.first[s], sym.rowPtr[s+1]-sym.rowPtr[s], sym.split[s], sym.rowPtr[s]
	topFwdDiag(sym, num, s, 0, w, x, nil, cols)
	topFwdRows(sym, num, s, 0, w, w, sp, x, x, sym.rows[r0+w:r0+sp], nil, cols)
	topFwdRows(sym, num, s, 0, w, sp, h, x, tgt, trows[r0+sp:r0+h], nil, cols)
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

// The kernels of the top of the tree (see schedule.go) work on one panel
// of columns p0..p1-1 of supernode s, in x, rows of cw values; pack is the
// supernode's packed block (forwardAVX), which the panel's diagonal task
// writes and its chunks of rows read.

// supernode returns the first column, the width, the rows and the values
// of supernode s.
func supernode(sym *symbolic, num *numeric, s int) (f, w int, rows []int32, ls []float64) {
	f = sym.first[s]
	return f, sym.first[s+1] - f, sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]], num.lx[sym.off[s]:sym.off[s+1]]
}

// topFwdDiag solves the diagonal block of the panel: the rows p0..p1-1 of
// s take the panel's earlier columns and are scaled by their pivots.
func topFwdDiag(sym *symbolic, num *numeric, s, p0, p1 int, x, pack []float64, cw int) {
	if useAVX {
		topFwdDiagAVX(sym, num, s, p0, p1, x, pack, cw)
		return
	}
	f, w, _, ls := supernode(sym, num, s)
	x1 := x[f*cw : (f+w)*cw]
	for r := p0; r < p1; r++ {
		xr := x1[r*cw : (r+1)*cw]
		subRows(xr, ls[r*w+p0:r*w+r], x1[p0*cw:], cw)
		inv := num.dinv[f+r]
		for k := range xr {
			xr[k] *= inv
		}
	}
}

// topFwdRows subtracts the panel's columns from the rows at positions
// r0..r1-1 of s (all at or below the panel), the row at position r0+k
// being row trows[k] of tgt.
func topFwdRows(sym *symbolic, num *numeric, s, p0, p1, r0, r1 int, x, tgt []float64, trows []int32, pack []float64, cw int) {
	if useAVX {
		topFwdRowsAVX(sym, num, s, p0, p1, r0, r1, x, tgt, trows, pack, cw)
		return
	}
	f, w, _, ls := supernode(sym, num, s)
	xs := x[(f+p0)*cw : (f+p1)*cw]
	trows = trows[:r1-r0]
	k := 0
	for ; k+2 <= len(trows); k += 2 {
		i, j, r := int(trows[k]), int(trows[k+1]), r0+k
		subRows2(tgt[i*cw:(i+1)*cw], tgt[j*cw:(j+1)*cw], ls[r*w+p0:r*w+p1], ls[(r+1)*w+p0:(r+1)*w+p1], xs, cw)
	}
	if k < len(trows) {
		i, r := int(trows[k]), r0+k
		subRows(tgt[i*cw:(i+1)*cw], ls[r*w+p0:r*w+p1], xs, cw)
	}
}

// topBwdCols subtracts from the columns k0..k1-1 of s the products of
// their entries in the rows at positions p0..p1-1 with those rows of x.
func topBwdCols(sym *symbolic, num *numeric, s, k0, k1, p0, p1 int, x []float64, cw int) {
	if useAVX {
		topBwdColsAVX(sym, num, s, k0, k1, p0, p1, x, cw)
		return
	}
	f, w, rows, ls := supernode(sym, num, s)
	x1 := x[f*cw : (f+w)*cw]
	r := p0
	for ; r+4 <= p1; r += 4 {
		y0 := x[int(rows[r])*cw : int(rows[r]+1)*cw]
		y1 := x[int(rows[r+1])*cw : int(rows[r+1]+1)*cw]
		y2 := x[int(rows[r+2])*cw : int(rows[r+2]+1)*cw]
		y3 := x[int(rows[r+3])*cw : int(rows[r+3]+1)*cw]
		for k := k0; k < k1; k++ {
			sub4(x1[k*cw:(k+1)*cw], y0, y1, y2, y3, ls[r*w+k], ls[(r+1)*w+k], ls[(r+2)*w+k], ls[(r+3)*w+k])
		}
	}
	for ; r < p1; r++ {
		y := x[int(rows[r])*cw : int(rows[r]+1)*cw]
		for k := k0; k < k1; k++ {
			sub1(x1[k*cw:(k+1)*cw], y, ls[r*w+k])
		}
	}
}

// topBwdDiag solves the panel's transposed triangle, from its last column.
func topBwdDiag(sym *symbolic, num *numeric, s, p0, p1 int, x []float64, cw int) {
	if useAVX {
		topBwdDiagAVX(sym, num, s, p0, p1, x, cw)
		return
	}
	f, w, _, ls := supernode(sym, num, s)
	x1 := x[f*cw : (f+w)*cw]
	for r := p1 - 1; r >= p0; r-- {
		xr := x1[r*cw : (r+1)*cw]
		for i := r + 1; i < p1; i++ {
			sub1(xr, x1[i*cw:(i+1)*cw], ls[i*w+r])
		}
		inv := num.dinv[f+r]
		for k := range xr {
			xr[k] *= inv
		}
	}
}
