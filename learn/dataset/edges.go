package dataset

import (
	"fmt"
	"io"
	"math"

	"codeberg.org/sbinet/npyio/npy"

	"github.com/gmlg/gmlg/learn/rundir"
)

// ReadEdges reads the edge list at path: an [E,2] array, E ≥ 1, whose row e
// joins vertices edges[e,0] and edges[e,1], whole numbers in [0,
// MaxVertices) of any numeric dtype (read exactly: far below 2^53).
// memory, when not nil, vets the memory of reading it from its header.
func ReadEdges(path string, memory MemoryCheck) ([][2]int, error) {
	check := func(shape []int) error {
		if len(shape) != 2 || shape[1] != 2 || shape[0] < 1 {
			return fmt.Errorf("dataset: %s: shape %s; want [E,2] integer vertex indices", path, ShapeString(shape))
		}
		if memory == nil {
			return nil
		}
		return memory(fmt.Sprintf("dataset: reading %s (shape %s)", path, ShapeString(shape)),
			24*2*float64(shape[0]), "use a smaller graph")
	}
	a, err := readNpyFile(path, check)
	if err != nil {
		return nil, err
	}
	edges := make([][2]int, a.Shape[0])
	for i, v := range a.Data {
		if !(v >= 0 && v < MaxVertices) || v != math.Trunc(v) {
			return nil, fmt.Errorf("dataset: %s: value %g at [%d, %d] is not a vertex index (an integer in [0, %d))",
				path, v, i/2, i%2, MaxVertices)
		}
		edges[i/2][i%2] = int(v)
	}
	return edges, nil
}

// WriteEdges writes edges to path as a little-endian int64 [E,2] .npy
// file, atomically (see WriteNpyFile). There must be at least one edge.
func WriteEdges(path string, edges [][2]int) error {
	if len(edges) == 0 {
		return fmt.Errorf("dataset: %s: cannot write an empty edge list", path)
	}
	rows := make([][2]int64, len(edges))
	for e, ij := range edges {
		rows[e] = [2]int64{int64(ij[0]), int64(ij[1])}
	}
	err := rundir.Write(path, 0o644, func(w io.Writer) error { return npy.Write(w, rows) })
	if err != nil {
		return fmt.Errorf("dataset: %s: %w", path, err)
	}
	return nil
}
