//go:build goexperiment.simd && amd64

package sparsechol

import (
	"simd/archsimd"
	"unsafe"
)

// simdKernels reports whether the solves run on the vector kernels below:
// a GOEXPERIMENT=simd build on a processor with AVX2 and FMA.
var simdKernels = archsimd.X86.AVX2() && archsimd.X86.FMA()

// vecWidth is the multiple to which the solve pads a row of the vertex-major
// workspace: the vector kernels work on whole quads of right-hand sides.
func vecWidth() int {
	if simdKernels {
		return 4
	}
	return 1
}

func forward(sym *symbolic, num *numeric, s int, x, tgt []float64, base, cw int, pack []float64) {
	if simdKernels {
		forwardVec(sym, num, s, x, tgt, base, cw, pack)
		// The rest of the program is scalar SSE code, which runs slowly
		// while the upper halves of the vector registers are in use.
		archsimd.ClearAVXUpperBits()
	} else {
		forwardGo(sym, num, s, x, tgt, base, cw)
	}
}

func backward(sym *symbolic, num *numeric, s int, x []float64, cw int) {
	if simdKernels {
		backwardVec(sym, num, s, x, cw)
		archsimd.ClearAVXUpperBits()
	} else {
		backwardGo(sym, num, s, x, cw)
	}
}

// The kernels below address rows through unsafe pointers: each range is
// checked once by slicing before its loops run, which the compiler cannot
// prove of the offsets inside them. They use no scalar floating-point
// instruction, since one between vector instructions costs more than the
// vector work saves (see ClearAVXUpperBits above).

type f4 = archsimd.Float64x4

// ld loads the quad at p.
func ld(p unsafe.Pointer) f4 { return archsimd.LoadFloat64x4((*[4]float64)(p)) }

// st stores v at p.
func st(p unsafe.Pointer, v f4) { v.Store((*[4]float64)(p)) }

// bcast returns a quad of copies of *p. It loads p[0] and p[1], so p[1]
// must be addressable: numeric allocates lx and dinv with one element of
// slack. Its result must not be live across a call: the compiler spills
// vectors of two doubles with scalar (SSE) instructions.
func bcast(p *float64) f4 {
	return archsimd.LoadFloat64x2((*[2]float64)(unsafe.Pointer(p))).Broadcast1To4()
}

// row returns a pointer to row i of a vertex-major block of stride cw,
// checking that the whole row is inside x.
func row(x []float64, i, cw int) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(x[i*cw : (i+1)*cw]))
}

// packSize is the scratch the forward kernels take: the widest
// supernode's rows, cw values each.
func packSize(sym *symbolic, cw int) int {
	if !simdKernels {
		return 0
	}
	return sym.maxW * cw
}

// forwardVec is forwardGo on rows of cw values (a multiple of 4). As its
// rows are solved, the supernode's block x1 is copied into pack quad by
// quad: quad q of row k at pack[4(q·w+k):], so that the rows a product
// needs are adjacent. Each update of a row y is then, a quad at a time,
// y −= Σ_k l[k]·x_k, the products of up to eight columns summed with fused
// multiply-adds and subtracted once.
func forwardVec(sym *symbolic, num *numeric, s int, x, tgt []float64, base, cw int, pack []float64) {
	f := sym.first[s]
	w := sym.first[s+1] - f
	rows := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	ls := num.lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cw : (f+w)*cw]
	nq := cw / 4
	pk := unsafe.Pointer(unsafe.SliceData(pack[:w*cw]))
	for r := 0; r < w; r++ {
		xr := row(x1, r, cw)
		subPacked(xr, ls[r*w:r*w+r], pk, w, nq)
		inv := bcast(&num.dinv[f+r]) // after the call: see the note on bcast
		for q := 0; q < nq; q++ {
			v := ld(unsafe.Add(xr, 32*q)).Mul(inv)
			st(unsafe.Add(xr, 32*q), v)
			st(unsafe.Add(pk, 32*(q*w+r)), v)
		}
	}
	split := sym.split[s]
	r := w
	for ; r < split; r++ {
		subPacked(row(x, int(rows[r]), cw), ls[r*w:(r+1)*w], pk, w, nq)
	}
	for ; r < len(rows); r++ {
		subPacked(row(tgt, int(rows[r])-base, cw), ls[r*w:(r+1)*w], pk, w, nq)
	}
}

// subPacked computes y −= Σ_k l[k]·x_k for the row of 4·nq values at y,
// x_k being row k of the packed block pk of w rows (see forwardVec).
func subPacked(y unsafe.Pointer, l []float64, pk unsafe.Pointer, w, nq int) {
	qs := uintptr(32 * w) // from one quad of a row to the next
	k := 0
	for ; k+8 <= len(l); k += 8 {
		c0, c1, c2, c3 := bcast(&l[k]), bcast(&l[k+1]), bcast(&l[k+2]), bcast(&l[k+3])
		c4, c5, c6, c7 := bcast(&l[k+4]), bcast(&l[k+5]), bcast(&l[k+6]), bcast(&l[k+7])
		p, yq := unsafe.Add(pk, 32*k), y
		for range nq {
			t := c0.Mul(ld(p))
			t = c1.MulAdd(ld(unsafe.Add(p, 32)), t)
			t = c2.MulAdd(ld(unsafe.Add(p, 64)), t)
			t = c3.MulAdd(ld(unsafe.Add(p, 96)), t)
			t = c4.MulAdd(ld(unsafe.Add(p, 128)), t)
			t = c5.MulAdd(ld(unsafe.Add(p, 160)), t)
			t = c6.MulAdd(ld(unsafe.Add(p, 192)), t)
			t = c7.MulAdd(ld(unsafe.Add(p, 224)), t)
			st(yq, ld(yq).Sub(t))
			p, yq = unsafe.Add(p, qs), unsafe.Add(yq, 32)
		}
	}
	if k+4 <= len(l) {
		c0, c1, c2, c3 := bcast(&l[k]), bcast(&l[k+1]), bcast(&l[k+2]), bcast(&l[k+3])
		p, yq := unsafe.Add(pk, 32*k), y
		for range nq {
			t := c0.Mul(ld(p))
			t = c1.MulAdd(ld(unsafe.Add(p, 32)), t)
			t = c2.MulAdd(ld(unsafe.Add(p, 64)), t)
			t = c3.MulAdd(ld(unsafe.Add(p, 96)), t)
			st(yq, ld(yq).Sub(t))
			p, yq = unsafe.Add(p, qs), unsafe.Add(yq, 32)
		}
		k += 4
	}
	p, yq := unsafe.Add(pk, 32*k), y
	switch len(l) - k {
	case 3:
		c0, c1, c2 := bcast(&l[k]), bcast(&l[k+1]), bcast(&l[k+2])
		for range nq {
			t := c0.Mul(ld(p))
			t = c1.MulAdd(ld(unsafe.Add(p, 32)), t)
			t = c2.MulAdd(ld(unsafe.Add(p, 64)), t)
			st(yq, ld(yq).Sub(t))
			p, yq = unsafe.Add(p, qs), unsafe.Add(yq, 32)
		}
	case 2:
		c0, c1 := bcast(&l[k]), bcast(&l[k+1])
		for range nq {
			t := c0.Mul(ld(p))
			t = c1.MulAdd(ld(unsafe.Add(p, 32)), t)
			st(yq, ld(yq).Sub(t))
			p, yq = unsafe.Add(p, qs), unsafe.Add(yq, 32)
		}
	case 1:
		c0 := bcast(&l[k])
		for range nq {
			st(yq, ld(yq).Sub(c0.Mul(ld(p))))
			p, yq = unsafe.Add(p, qs), unsafe.Add(yq, 32)
		}
	}
}

// backwardVec is backwardGo on rows of cw values (a multiple of 4): x1 −=
// L21ᵀ x2, four columns and two quads at a time, each column's products
// summed from its farthest row to its nearest and subtracted once; then the
// transposed diagonal block.
func backwardVec(sym *symbolic, num *numeric, s int, x []float64, cw int) {
	f := sym.first[s]
	w := sym.first[s+1] - f
	own := sym.rows[sym.rowPtr[s] : sym.rowPtr[s]+w] // own[i] = f+i
	below := sym.rows[sym.rowPtr[s]+w : sym.rowPtr[s+1]]
	ls := num.lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cw : (f+w)*cw]
	nb := uintptr(cw) * 8
	px := unsafe.Pointer(unsafe.SliceData(x))
	if len(below) > 0 {
		_ = x[int(below[len(below)-1]+1)*cw-1] // the farthest row is the largest
		l21 := ls[w*w:]
		k := 0
		for ; k+4 <= w; k += 4 {
			a := row(x1, k, cw)
			q := uintptr(0)
			for ; q+64 <= nb; q += 64 {
				backward4x2(a, px, below, l21[k:], w, q, nb)
			}
			if q < nb {
				backward4x1(a, px, below, l21[k:], w, q, nb)
			}
		}
		for ; k < w; k++ {
			a := row(x1, k, cw)
			q := uintptr(0)
			for ; q+64 <= nb; q += 64 {
				backward1x2(a, px, below, l21[k:], w, q, nb)
			}
			if q < nb {
				backward1x1(a, px, below, l21[k:], w, q, nb)
			}
		}
	}
	// Diagonal block: x_r = (x_r − Σ_{i>r} L[i][r]·x_i) / L[r][r], the
	// sum from the farthest i.
	for r := w - 1; r >= 0; r-- {
		xr := row(x1, r, cw)
		if r < w-1 {
			q := uintptr(0)
			for ; q+64 <= nb; q += 64 {
				backward1x2(xr, px, own[r+1:], ls[(r+1)*w+r:], w, q, nb)
			}
			if q < nb {
				backward1x1(xr, px, own[r+1:], ls[(r+1)*w+r:], w, q, nb)
			}
		}
		inv := bcast(&num.dinv[f+r])
		for q := uintptr(0); q < nb; q += 32 {
			st(unsafe.Add(xr, q), ld(unsafe.Add(xr, q)).Mul(inv))
		}
	}
}

// backward4x2 subtracts from the rows a, a+nb, a+2nb and a+3nb (four
// columns of a supernode) their products with the rows below, for the two
// quads at byte offset q. l holds the four columns' values from row 0 of
// below, at stride w.
func backward4x2(a, px unsafe.Pointer, below []int32, l []float64, w int, q, nb uintptr) {
	last := len(below) - 1
	_ = l[last*w+3]
	p := unsafe.Add(px, uintptr(below[last])*nb+q)
	t0, t1 := ld(p), ld(unsafe.Add(p, 32))
	c0, c1, c2, c3 := bcast(&l[last*w]), bcast(&l[last*w+1]), bcast(&l[last*w+2]), bcast(&l[last*w+3])
	s00, s01 := c0.Mul(t0), c0.Mul(t1)
	s10, s11 := c1.Mul(t0), c1.Mul(t1)
	s20, s21 := c2.Mul(t0), c2.Mul(t1)
	s30, s31 := c3.Mul(t0), c3.Mul(t1)
	for r := last - 1; r >= 0; r-- {
		p := unsafe.Add(px, uintptr(below[r])*nb+q)
		t0, t1 := ld(p), ld(unsafe.Add(p, 32))
		lr := l[r*w : r*w+4]
		c0, c1, c2, c3 := bcast(&lr[0]), bcast(&lr[1]), bcast(&lr[2]), bcast(&lr[3])
		s00, s01 = c0.MulAdd(t0, s00), c0.MulAdd(t1, s01)
		s10, s11 = c1.MulAdd(t0, s10), c1.MulAdd(t1, s11)
		s20, s21 = c2.MulAdd(t0, s20), c2.MulAdd(t1, s21)
		s30, s31 = c3.MulAdd(t0, s30), c3.MulAdd(t1, s31)
	}
	p = unsafe.Add(a, q)
	st(p, ld(p).Sub(s00))
	st(unsafe.Add(p, 32), ld(unsafe.Add(p, 32)).Sub(s01))
	p = unsafe.Add(p, nb)
	st(p, ld(p).Sub(s10))
	st(unsafe.Add(p, 32), ld(unsafe.Add(p, 32)).Sub(s11))
	p = unsafe.Add(p, nb)
	st(p, ld(p).Sub(s20))
	st(unsafe.Add(p, 32), ld(unsafe.Add(p, 32)).Sub(s21))
	p = unsafe.Add(p, nb)
	st(p, ld(p).Sub(s30))
	st(unsafe.Add(p, 32), ld(unsafe.Add(p, 32)).Sub(s31))
}

// backward4x1 is backward4x2 for the one quad at byte offset q.
func backward4x1(a, px unsafe.Pointer, below []int32, l []float64, w int, q, nb uintptr) {
	last := len(below) - 1
	_ = l[last*w+3]
	t := ld(unsafe.Add(px, uintptr(below[last])*nb+q))
	s0 := bcast(&l[last*w]).Mul(t)
	s1 := bcast(&l[last*w+1]).Mul(t)
	s2 := bcast(&l[last*w+2]).Mul(t)
	s3 := bcast(&l[last*w+3]).Mul(t)
	for r := last - 1; r >= 0; r-- {
		t := ld(unsafe.Add(px, uintptr(below[r])*nb+q))
		lr := l[r*w : r*w+4]
		s0 = bcast(&lr[0]).MulAdd(t, s0)
		s1 = bcast(&lr[1]).MulAdd(t, s1)
		s2 = bcast(&lr[2]).MulAdd(t, s2)
		s3 = bcast(&lr[3]).MulAdd(t, s3)
	}
	p := unsafe.Add(a, q)
	st(p, ld(p).Sub(s0))
	p = unsafe.Add(p, nb)
	st(p, ld(p).Sub(s1))
	p = unsafe.Add(p, nb)
	st(p, ld(p).Sub(s2))
	p = unsafe.Add(p, nb)
	st(p, ld(p).Sub(s3))
}

// backward1x2 subtracts from the row a its products with the rows below,
// for the two quads at byte offset q: backward4x2 for one column.
func backward1x2(a, px unsafe.Pointer, below []int32, l []float64, w int, q, nb uintptr) {
	last := len(below) - 1
	_ = l[last*w]
	p := unsafe.Add(px, uintptr(below[last])*nb+q)
	c := bcast(&l[last*w])
	s0, s1 := c.Mul(ld(p)), c.Mul(ld(unsafe.Add(p, 32)))
	for r := last - 1; r >= 0; r-- {
		p := unsafe.Add(px, uintptr(below[r])*nb+q)
		c := bcast(&l[r*w])
		s0, s1 = c.MulAdd(ld(p), s0), c.MulAdd(ld(unsafe.Add(p, 32)), s1)
	}
	p = unsafe.Add(a, q)
	st(p, ld(p).Sub(s0))
	st(unsafe.Add(p, 32), ld(unsafe.Add(p, 32)).Sub(s1))
}

// backward1x1 is backward1x2 for the one quad at byte offset q.
func backward1x1(a, px unsafe.Pointer, below []int32, l []float64, w int, q, nb uintptr) {
	last := len(below) - 1
	_ = l[last*w]
	s0 := bcast(&l[last*w]).Mul(ld(unsafe.Add(px, uintptr(below[last])*nb+q)))
	for r := last - 1; r >= 0; r-- {
		s0 = bcast(&l[r*w]).MulAdd(ld(unsafe.Add(px, uintptr(below[r])*nb+q)), s0)
	}
	p := unsafe.Add(a, q)
	st(p, ld(p).Sub(s0))
}
