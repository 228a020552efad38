//go:build goexperiment.simd && amd64

package sparsechol

import "simd/archsimd"

// simdKernels reports whether the solve uses SIMD kernels: built with
// GOEXPERIMENT=simd on a CPU with AVX2 and FMA.
var simdKernels = archsimd.X86.AVX2() && archsimd.X86.FMA()

func forward(sym *symbolic, lx []float64, s int, x, tgt []float64, base, cols int) {
	if !simdKernels || cols < 4 {
		forwardGo(sym, lx, s, x, tgt, base, cols)
		return
	}
	f := sym.first[s]
	w := sym.first[s+1] - f
	rows := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	ls := lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cols : (f+w)*cols]
	for r := 0; r < w; r++ {
		xr := x1[r*cols : (r+1)*cols]
		subDot(xr, ls[r*w:r*w+r], x1, cols)
		inv := 1 / ls[r*w+r]
		for k := range xr {
			xr[k] *= inv
		}
	}
	split := sym.split[s]
	for r := w; r < split; r++ {
		i := int(rows[r])
		subDot(x[i*cols:(i+1)*cols], ls[r*w:(r+1)*w], x1, cols)
	}
	for r := split; r < len(rows); r++ {
		i := int(rows[r]) - base
		subDot(tgt[i*cols:(i+1)*cols], ls[r*w:(r+1)*w], x1, cols)
	}
}

func backward(sym *symbolic, lx []float64, s int, x []float64, cols int) {
	if !simdKernels || cols < 4 {
		backwardGo(sym, lx, s, x, cols)
		return
	}
	f := sym.first[s]
	w := sym.first[s+1] - f
	rows := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
	ls := lx[sym.off[s]:sym.off[s+1]]
	x1 := x[f*cols : (f+w)*cols]
	h := len(rows)
	if h > w {
		l21 := ls[w*w:]
		k := 0
		for ; k+2 <= w; k += 2 {
			subGather2(x1[k*cols:(k+1)*cols], x1[(k+1)*cols:(k+2)*cols], l21[k:], w, x, rows[w:], cols)
		}
		for ; k < w; k++ {
			subGather(x1[k*cols:(k+1)*cols], l21[k:], w, x, rows[w:], cols)
		}
	}
	for r := w - 1; r >= 0; r-- {
		xr := x1[r*cols : (r+1)*cols]
		if r+1 < w {
			subStrided(xr, ls[(r+1)*w+r:], w, x1[(r+1)*cols:], w-r-1, cols)
		}
		inv := 1 / ls[r*w+r]
		for k := range xr {
			xr[k] *= inv
		}
	}
}

// subDot computes y -= Σ_k l[k]·xs[k*cols : k*cols+len(y)]: subStrided with
// contiguous coefficients.
func subDot(y, l, xs []float64, cols int) {
	subStrided(y, l, 1, xs, len(l), cols)
}

// subGather computes y -= Σ_r l[r*stride]·x[idx[r]*cols : idx[r]*cols+len(y)].
func subGather(y, l []float64, stride int, x []float64, idx []int32, cols int) {
	c := 0
	for ; c+16 <= len(y); c += 16 {
		var a0, a1, a2, a3 archsimd.Float64x4
		for r, i := range idx {
			v := archsimd.BroadcastFloat64x4(l[r*stride])
			o := int(i)*cols + c
			p := x[o : o+16]
			a0 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[0:4]), a0)
			a1 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[4:8]), a1)
			a2 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[8:12]), a2)
			a3 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[12:16]), a3)
		}
		q := y[c : c+16]
		archsimd.LoadFloat64x4Slice(q[0:4]).Sub(a0).StoreSlice(q[0:4])
		archsimd.LoadFloat64x4Slice(q[4:8]).Sub(a1).StoreSlice(q[4:8])
		archsimd.LoadFloat64x4Slice(q[8:12]).Sub(a2).StoreSlice(q[8:12])
		archsimd.LoadFloat64x4Slice(q[12:16]).Sub(a3).StoreSlice(q[12:16])
	}
	for ; c+4 <= len(y); c += 4 {
		var a0 archsimd.Float64x4
		for r, i := range idx {
			o := int(i)*cols + c
			a0 = archsimd.BroadcastFloat64x4(l[r*stride]).MulAdd(archsimd.LoadFloat64x4Slice(x[o:o+4]), a0)
		}
		archsimd.LoadFloat64x4Slice(y[c : c+4]).Sub(a0).StoreSlice(y[c : c+4])
	}
	for ; c < len(y); c++ {
		s := 0.0
		for r, i := range idx {
			s += l[r*stride] * x[int(i)*cols+c]
		}
		y[c] -= s
	}
}

// subStrided computes y -= Σ_{r<m} l[r*stride]·xs[r*cols : r*cols+len(y)].
func subStrided(y, l []float64, stride int, xs []float64, m, cols int) {
	c := 0
	for ; c+16 <= len(y); c += 16 {
		var a0, a1, a2, a3 archsimd.Float64x4
		for r := 0; r < m; r++ {
			v := archsimd.BroadcastFloat64x4(l[r*stride])
			p := xs[r*cols+c : r*cols+c+16]
			a0 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[0:4]), a0)
			a1 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[4:8]), a1)
			a2 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[8:12]), a2)
			a3 = v.MulAdd(archsimd.LoadFloat64x4Slice(p[12:16]), a3)
		}
		q := y[c : c+16]
		archsimd.LoadFloat64x4Slice(q[0:4]).Sub(a0).StoreSlice(q[0:4])
		archsimd.LoadFloat64x4Slice(q[4:8]).Sub(a1).StoreSlice(q[4:8])
		archsimd.LoadFloat64x4Slice(q[8:12]).Sub(a2).StoreSlice(q[8:12])
		archsimd.LoadFloat64x4Slice(q[12:16]).Sub(a3).StoreSlice(q[12:16])
	}
	for ; c+4 <= len(y); c += 4 {
		var a0 archsimd.Float64x4
		for r := 0; r < m; r++ {
			o := r*cols + c
			a0 = archsimd.BroadcastFloat64x4(l[r*stride]).MulAdd(archsimd.LoadFloat64x4Slice(xs[o:o+4]), a0)
		}
		archsimd.LoadFloat64x4Slice(y[c : c+4]).Sub(a0).StoreSlice(y[c : c+4])
	}
	for ; c < len(y); c++ {
		s := 0.0
		for r := 0; r < m; r++ {
			s += l[r*stride] * xs[r*cols+c]
		}
		y[c] -= s
	}
}

// subGather2 is subGather for two outputs: y0 uses the coefficients
// l[r*stride] and y1 the coefficients l[r*stride+1]; the rows of x are loaded
// once for both.
func subGather2(y0, y1, l []float64, stride int, x []float64, idx []int32, cols int) {
	y1 = y1[:len(y0)]
	c := 0
	for ; c+16 <= len(y0); c += 16 {
		var a0, a1, a2, a3, b0, b1, b2, b3 archsimd.Float64x4
		for r, i := range idx {
			u := archsimd.BroadcastFloat64x4(l[r*stride])
			v := archsimd.BroadcastFloat64x4(l[r*stride+1])
			o := int(i)*cols + c
			p := x[o : o+16]
			p0 := archsimd.LoadFloat64x4Slice(p[0:4])
			a0 = u.MulAdd(p0, a0)
			b0 = v.MulAdd(p0, b0)
			p1 := archsimd.LoadFloat64x4Slice(p[4:8])
			a1 = u.MulAdd(p1, a1)
			b1 = v.MulAdd(p1, b1)
			p2 := archsimd.LoadFloat64x4Slice(p[8:12])
			a2 = u.MulAdd(p2, a2)
			b2 = v.MulAdd(p2, b2)
			p3 := archsimd.LoadFloat64x4Slice(p[12:16])
			a3 = u.MulAdd(p3, a3)
			b3 = v.MulAdd(p3, b3)
		}
		q := y0[c : c+16]
		archsimd.LoadFloat64x4Slice(q[0:4]).Sub(a0).StoreSlice(q[0:4])
		archsimd.LoadFloat64x4Slice(q[4:8]).Sub(a1).StoreSlice(q[4:8])
		archsimd.LoadFloat64x4Slice(q[8:12]).Sub(a2).StoreSlice(q[8:12])
		archsimd.LoadFloat64x4Slice(q[12:16]).Sub(a3).StoreSlice(q[12:16])
		q = y1[c : c+16]
		archsimd.LoadFloat64x4Slice(q[0:4]).Sub(b0).StoreSlice(q[0:4])
		archsimd.LoadFloat64x4Slice(q[4:8]).Sub(b1).StoreSlice(q[4:8])
		archsimd.LoadFloat64x4Slice(q[8:12]).Sub(b2).StoreSlice(q[8:12])
		archsimd.LoadFloat64x4Slice(q[12:16]).Sub(b3).StoreSlice(q[12:16])
	}
	for ; c+4 <= len(y0); c += 4 {
		var a0, b0 archsimd.Float64x4
		for r, i := range idx {
			o := int(i)*cols + c
			p := archsimd.LoadFloat64x4Slice(x[o : o+4])
			a0 = archsimd.BroadcastFloat64x4(l[r*stride]).MulAdd(p, a0)
			b0 = archsimd.BroadcastFloat64x4(l[r*stride+1]).MulAdd(p, b0)
		}
		archsimd.LoadFloat64x4Slice(y0[c : c+4]).Sub(a0).StoreSlice(y0[c : c+4])
		archsimd.LoadFloat64x4Slice(y1[c : c+4]).Sub(b0).StoreSlice(y1[c : c+4])
	}
	for ; c < len(y0); c++ {
		s0, s1 := 0.0, 0.0
		for r, i := range idx {
			v := x[int(i)*cols+c]
			s0 += l[r*stride] * v
			s1 += l[r*stride+1] * v
		}
		y0[c] -= s0
		y1[c] -= s1
	}
}
