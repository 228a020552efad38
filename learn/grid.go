package learn

import "fmt"

// CoarseSide returns the side of the grid one level coarser than n:
// ⌈n/2⌉, i.e. (n+1)/2 for odd n (the inverse of the co-located
// prolongation n → 2(n−1)+1 of docs/method.md, "Metric prolongation") and
// n/2 for even n.
func CoarseSide(n int) int { return (n + 1) / 2 }

// lin1 locates node i of a side-nf axis on the side-nc axis with the same
// end points: x = i·(nc−1)/(nf−1) = i0 + t, 0 ≤ t < 1 (t = 1 only at the
// last node, where i0 = nc−2).
func lin1(i, nc, nf int) (int, float64) {
	num := i * (nc - 1)
	i0 := num / (nf - 1)
	if i0 >= nc-1 {
		i0 = nc - 2
	}
	return i0, float64(num-i0*(nf-1)) / float64(nf-1)
}

// resampleAxis resamples the grid array src of extents dims along axis p
// (axis 0 varies fastest, as in kernel.Grid) to extent m2 into dst. With
// restrict false it interpolates linearly with aligned end points (m2 >
// dims[p]); with restrict true it applies the transpose of that
// interpolation from extent dims[p] down to m2, which preserves the sum.
func resampleAxis(dst, src []float64, dims []int, p, m2 int, restrict bool) {
	m := dims[p]
	s := 1
	for q := 0; q < p; q++ {
		s *= dims[q]
	}
	outer := 1
	for q := p + 1; q < len(dims); q++ {
		outer *= dims[q]
	}
	if restrict {
		clear(dst[:s*m2*outer])
	}
	for hi := 0; hi < outer; hi++ {
		for lo := 0; lo < s; lo++ {
			si := src[lo+s*m*hi:]
			di := dst[lo+s*m2*hi:]
			if restrict {
				for k := 0; k < m; k++ {
					i0, t := lin1(k, m2, m)
					v := si[s*k]
					di[s*i0] += (1 - t) * v
					di[s*(i0+1)] += t * v
				}
				continue
			}
			for k := 0; k < m2; k++ {
				i0, t := lin1(k, m, m2)
				di[s*k] = (1-t)*si[s*i0] + t*si[s*(i0+1)]
			}
		}
	}
}

// resample maps a grid array of extents from to extents to, axis by axis
// (restrict: sum-preserving transpose of interpolation; otherwise linear
// interpolation with aligned end points).
func resample(x []float64, from, to []int, restrict bool) []float64 {
	dims := append([]int(nil), from...)
	cur := append([]float64(nil), x...)
	for p := range dims {
		if dims[p] == to[p] {
			continue
		}
		size := len(cur) / dims[p] * to[p]
		next := make([]float64, size)
		resampleAxis(next, cur, dims, p, to[p], restrict)
		dims[p] = to[p]
		cur = next
	}
	return cur
}

func gridSize(dims []int) int {
	n := 1
	for _, m := range dims {
		n *= m
	}
	return n
}

// RestrictHistogram maps a histogram on a grid of extents dims (axis 0
// fastest, as kernel.Grid) to the grid of extents coarse, each at least 2 and
// at most the fine one, by the transpose of the multilinear interpolation
// with aligned end points: the mass of fine node i goes to the coarse nodes
// around its position x = i·(n_c−1)/(n−1), with linear weights. It preserves
// the total mass and non-negativity. With n_c = (n+1)/2 for odd n this is the
// full-weighting restriction (½, 1, ½ per axis) transposed to the co-located
// prolongation (docs/method.md, "Metric prolongation").
func RestrictHistogram(h []float64, dims, coarse []int) []float64 {
	checkResample("RestrictHistogram", len(h), dims, coarse, true)
	return resample(h, dims, coarse, true)
}

// HalveGrid returns the extents of the grid dims halved once (CoarseSide
// per axis), the next coarser level of a Run, or an error when an
// axis would keep fewer than 2 nodes.
func HalveGrid(dims []int) ([]int, error) {
	half := make([]int, len(dims))
	for p, m := range dims {
		if half[p] = CoarseSide(m); half[p] < 2 {
			return nil, fmt.Errorf("learn: the %v grid is too small to halve", dims)
		}
	}
	return half, nil
}

// RestrictSequences restricts every frame of seqs from the grid of extents
// dims to the grid of extents coarse with RestrictHistogram, keeping the
// sequences' times; a frame whose length is not the grid's is an error.
func RestrictSequences(seqs []Sequence, dims, coarse []int) ([]Sequence, error) {
	out := make([]Sequence, len(seqs))
	for si, sq := range seqs {
		out[si].Times = sq.Times
		for _, f := range sq.Frames {
			if len(f) != gridSize(dims) {
				return nil, fmt.Errorf("learn: sequence %d: frame of length %d on a grid %v", si, len(f), dims)
			}
			out[si].Frames = append(out[si].Frames, RestrictHistogram(f, dims, coarse))
		}
	}
	return out, nil
}

// ProlongVertexMetric maps a vertex metric θ of shape [d, N] (row p =
// axis p, N = Π dims) on the grid of extents coarse to the grid of extents
// fine (each at least the coarse one) by multilinear interpolation with
// aligned end points, row by row. For fine = 2(coarse−1)+1 this is the
// co-located prolongation of docs/method.md, "Metric prolongation" (the
// reference's order-1 zoom): old node k becomes node 2k, new nodes get
// midpoint averages. Positive metrics stay positive.
func ProlongVertexMetric(theta []float64, coarse, fine []int) []float64 {
	d := len(coarse)
	nc := gridSize(coarse)
	if len(theta) != d*nc {
		panic(fmt.Sprintf("learn: ProlongVertexMetric: len(theta) = %d, want %d·%d", len(theta), d, nc))
	}
	checkResample("ProlongVertexMetric", nc, fine, coarse, false)
	nf := gridSize(fine)
	out := make([]float64, 0, d*nf)
	for p := 0; p < d; p++ {
		out = append(out, resample(theta[p*nc:(p+1)*nc], coarse, fine, false)...)
	}
	return out
}

func checkResample(op string, n int, big, small []int, bigIsSrc bool) {
	if len(big) != len(small) {
		panic(fmt.Sprintf("learn: %s: grids of dimensions %d and %d", op, len(big), len(small)))
	}
	for p := range big {
		if small[p] < 2 || small[p] > big[p] {
			panic(fmt.Sprintf("learn: %s: extents %v and %v", op, big, small))
		}
	}
	src := small
	if bigIsSrc {
		src = big
	}
	if n != gridSize(src) {
		panic(fmt.Sprintf("learn: %s: length %d for a grid %v", op, n, src))
	}
}
