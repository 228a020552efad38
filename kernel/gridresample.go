package kernel

import "fmt"

// Prolongation and restriction of arrays indexed as Grid's vertices, for
// the coarse-to-fine learner and the colour pipeline.

// ProlongGrid maps an array x on the grid of extents coarse to the grid of
// extents fine (each at least the coarse one, at least 2) by multilinear
// interpolation with aligned end points, one axis after the other from
// axis 0. For fine = 2(coarse−1)+1 node k becomes node 2k and the new
// nodes get midpoint averages: the co-located prolongation of
// docs/method.md, "Metric prolongation" (the reference's order-1 zoom).
// Positive arrays stay positive. It panics on inconsistent lengths or
// extents.
func ProlongGrid(x []float64, coarse, fine []int) []float64 {
	checkResample("ProlongGrid", len(x), fine, coarse, false)
	return resample(x, coarse, fine, false)
}

// RestrictGrid maps an array h on the grid of extents fine to the grid of
// extents coarse (each at least 2 and at most the fine one) by the transpose
// of ProlongGrid's interpolation: the mass of fine node i goes to the
// coarse nodes around its position x = i·(n_c−1)/(n−1), with linear
// weights. It preserves the total mass and non-negativity; with n_c =
// (n+1)/2 for odd n it is the full-weighting restriction (½, 1, ½ per axis).
// It panics on inconsistent lengths or extents.
func RestrictGrid(h []float64, fine, coarse []int) []float64 {
	checkResample("RestrictGrid", len(h), fine, coarse, true)
	return resample(h, fine, coarse, true)
}

// ProlongVertexMetric applies ProlongGrid to every row of a vertex metric
// θ of shape [d, N] (row p weighs the edges along axis p; N = Π coarse) and
// returns the [d, Π fine] metric.
func ProlongVertexMetric(theta []float64, coarse, fine []int) []float64 {
	d, nc := len(coarse), gridPoints(coarse)
	if len(theta) != d*nc {
		panic(fmt.Sprintf("kernel: ProlongVertexMetric: len(theta) = %d, want %d·%d", len(theta), d, nc))
	}
	out := make([]float64, 0, d*gridPoints(fine))
	for p := 0; p < d; p++ {
		out = append(out, ProlongGrid(theta[p*nc:(p+1)*nc], coarse, fine)...)
	}
	return out
}

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

// resampleAxis resamples the grid array src of extents dims along axis p to
// extent m2 into dst: linear interpolation with aligned end points (m2 >
// dims[p]) or, with restrict, its transpose from dims[p] down to m2.
func resampleAxis(dst, src []float64, dims []int, p, m2 int, restrict bool) {
	m, s, outer := dims[p], gridPoints(dims[:p]), gridPoints(dims[p+1:])
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

// resample maps a grid array of extents from to extents to, axis by axis.
func resample(x []float64, from, to []int, restrict bool) []float64 {
	dims := append([]int(nil), from...)
	cur := append([]float64(nil), x...)
	for p := range dims {
		if dims[p] == to[p] {
			continue
		}
		next := make([]float64, len(cur)/dims[p]*to[p])
		resampleAxis(next, cur, dims, p, to[p], restrict)
		dims[p] = to[p]
		cur = next
	}
	return cur
}

func gridPoints(dims []int) int {
	n := 1
	for _, m := range dims {
		n *= m
	}
	return n
}

// checkResample panics unless big and small have the same dimension, every
// small extent is in [2, big], and n is the size of the source grid (big
// when bigIsSrc).
func checkResample(op string, n int, big, small []int, bigIsSrc bool) {
	if len(big) != len(small) {
		panic(fmt.Sprintf("kernel: %s: grids of dimensions %d and %d", op, len(big), len(small)))
	}
	for p := range big {
		if small[p] < 2 || small[p] > big[p] {
			panic(fmt.Sprintf("kernel: %s: extents %v and %v", op, big, small))
		}
	}
	src := small
	if bigIsSrc {
		src = big
	}
	if n != gridPoints(src) {
		panic(fmt.Sprintf("kernel: %s: length %d for a grid %v", op, n, src))
	}
}
