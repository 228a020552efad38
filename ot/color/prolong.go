package color

import (
	"fmt"
	"math"
)

// ProlongedSize returns n_hi = 2^levels·(n−1)+1, the grid side after
// levels prolongations (16 → 31 → 61 → …).
func ProlongedSize(n, levels int) int {
	return (n-1)<<levels + 1
}

// Prolong upsamples a per-vertex metric W of shape [d, N] (row p at
// w[p·N:(p+1)·N], N = n^d, C-order vertex index) from the grid side n to
// n_hi = 2^levels·(n−1)+1 by co-located multilinear interpolation
// (docs/method.md, "Metric prolongation": the reference's
// scipy.ndimage.zoom with order=1):
// old node k becomes new node 2^levels·k and the new nodes in between get
// linear interpolations (midpoint averages for levels = 1), applied separably
// along every axis. Every row is interpolated independently. It returns the
// new [d, n_hi^d] metric and n_hi.
//
// The caller must also rescale the kernel: after prolongation the reference
// sets alpha = (n_hi−1)².
func Prolong(w []float64, d, n, levels int) ([]float64, int, error) {
	if d < 1 || n < 2 || levels < 0 || levels > 8 {
		return nil, 0, fmt.Errorf("color: prolong: d=%d, n=%d, levels=%d, want d ≥ 1, n ≥ 2, 0 ≤ levels ≤ 8", d, n, levels)
	}
	N := ipow(n, d)
	if len(w) != d*N {
		return nil, 0, fmt.Errorf("color: prolong: len(w) = %d, want d·n^d = %d", len(w), d*N)
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("color: prolong: w[%d] = %v is not finite", i, v)
		}
	}
	nHi := ProlongedSize(n, levels)
	f := 1 << levels
	NHi := ipow(nHi, d)
	out := make([]float64, d*NHi)
	// Two ping-pong buffers large enough for any intermediate shape.
	bufA := make([]float64, NHi)
	bufB := make([]float64, NHi)
	dims := make([]int, d)
	for p := range d {
		cur := bufA[:N]
		copy(cur, w[p*N:(p+1)*N])
		for a := range dims {
			dims[a] = n
		}
		for a := range d {
			outer, inner := 1, 1
			for b := range a {
				outer *= dims[b]
			}
			for b := a + 1; b < d; b++ {
				inner *= dims[b]
			}
			next := bufB[:outer*nHi*inner]
			for o := range outer {
				src := cur[o*n*inner : (o+1)*n*inner]
				dst := next[o*nHi*inner : (o+1)*nHi*inner]
				for j := range nHi {
					i0, r := j/f, j%f
					row := dst[j*inner : (j+1)*inner]
					lo := src[i0*inner : (i0+1)*inner]
					if r == 0 {
						copy(row, lo)
						continue
					}
					hi := src[(i0+1)*inner : (i0+2)*inner]
					t := float64(r) / float64(f)
					for q := range row {
						row[q] = (1-t)*lo[q] + t*hi[q]
					}
				}
			}
			dims[a] = nHi
			cur, bufB = next, cur[:cap(cur)]
			bufA = cur[:cap(cur)]
		}
		copy(out[p*NHi:(p+1)*NHi], cur)
	}
	return out, nHi, nil
}

func ipow(b, e int) int {
	r := 1
	for range e {
		r *= b
	}
	return r
}
