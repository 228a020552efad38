package learn

import (
	"fmt"

	"github.com/gmlg/gmlg/kernel"
)

// HalveGrid returns the extents of the grid dims halved once, the next
// coarser level of a Run: ⌈m/2⌉ per axis, the inverse of the co-located
// prolongation m → 2(m−1)+1 for odd m (docs/method.md, "Metric
// prolongation"), or an error when an axis would keep fewer than 2 nodes.
func HalveGrid(dims []int) ([]int, error) {
	half := make([]int, len(dims))
	for p, m := range dims {
		if half[p] = (m + 1) / 2; half[p] < 2 {
			return nil, fmt.Errorf("learn: the %v grid is too small to halve", dims)
		}
	}
	return half, nil
}

// RestrictSequences restricts every frame of seqs from the grid of extents
// dims to the grid of extents coarse with kernel.RestrictGrid, keeping the
// sequences' times; a frame whose length is not the grid's is an error.
func RestrictSequences(seqs []Sequence, dims, coarse []int) ([]Sequence, error) {
	out := make([]Sequence, len(seqs))
	size := 1
	for _, m := range dims {
		size *= m
	}
	for si, sq := range seqs {
		out[si].Times = sq.Times
		for _, f := range sq.Frames {
			if len(f) != size {
				return nil, fmt.Errorf("learn: sequence %d: frame of length %d on a grid %v", si, len(f), dims)
			}
			out[si].Frames = append(out[si].Frames, kernel.RestrictGrid(f, dims, coarse))
		}
	}
	return out, nil
}
