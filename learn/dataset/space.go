package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"codeberg.org/sbinet/npyio/npy"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
)

// The files of a graph folder besides its frames.
const (
	// EdgesFile is the edge list of a graph folder (ReadEdges; either
	// order, no self-loops or repeats).
	EdgesFile = "edges.npy"
	// CoordsFile optionally holds the [N,2] or [N,3] vertex coordinates of
	// a graph folder, for pictures only.
	CoordsFile = "coords.npy"
)

// Space is the grid or graph that a data folder's histograms live on, and
// how its metrics are stored.
//
// A grid folder holds only frames, whose shape gives the grid. Its metrics
// are [d,N] arrays (WriteMetric) and the Laplacian is scaled by α = (n−1)²,
// the unit square's 1/h², so that t is a time on the unit square.
//
// A graph folder holds EdgesFile, optionally CoordsFile, and 1-D frames of
// N values: N is the coordinates' rows, or else the largest vertex index
// plus one. Its metric is one weight per edge, in the edge list's order,
// stored as a 1-D array; the Laplacian is not scaled (α = 1), so t is in
// squared edges: with unit weights a frame blurs over about √(2t) edges.
//
// The colour cube of RGB histograms (ReadColour) is a 3-D grid; Colour
// marks it, so that its pictures show histograms rather than volumes.
type Space struct {
	Graph  *kernel.Graph
	Coords *Array // a general graph's CoordsFile, or nil
	Colour bool   // the colour cube
}

// IsGraph reports whether s is a general graph read from an edge list.
func (s Space) IsGraph() bool { return !s.Graph.IsGrid() }

// IsGraphFolder reports whether dir is a graph folder (holds EdgesFile).
func IsGraphFolder(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, EdgesFile))
	return err == nil && !st.IsDir()
}

// LoadSpace reads the frames of dir with opt (see Load) and builds their
// space: the graph of a graph folder, else the grid of the frames' shape.
func LoadSpace(dir string, opt *Options) (Space, *Set, error) {
	o := *cmp.Or(opt, &Options{})
	if !IsGraphFolder(dir) {
		set, err := Load(dir, opt)
		if err != nil {
			return Space{}, nil, err
		}
		g, err := set.Graph()
		return Space{Graph: g}, set, err
	}
	sp, err := ReadGraphFolder(dir, o.Memory)
	if err != nil {
		return Space{}, nil, err
	}
	o.Length = sp.Graph.N()
	set, err := Load(dir, &o)
	return sp, set, err
}

// ReadGraphFolder reads the edge list and, when present, the coordinates
// of the graph folder dir; memory is as for ReadEdges.
func ReadGraphFolder(dir string, memory MemoryCheck) (Space, error) {
	path := filepath.Join(dir, EdgesFile)
	edges, err := ReadEdges(path, memory)
	if err != nil {
		return Space{}, err
	}
	n := 0
	for _, e := range edges {
		n = max(n, e[0]+1, e[1]+1)
	}
	var sp Space
	cpath := filepath.Join(dir, CoordsFile)
	if c, err := ReadNpyFile(cpath); err == nil {
		if len(c.Shape) != 2 || (c.Shape[1] != 2 && c.Shape[1] != 3) || c.Shape[0] < n {
			return Space{}, fmt.Errorf("%s: shape %s; want [N,2] or [N,3] with a row for each of the %d vertices that %s names",
				cpath, ShapeString(c.Shape), n, EdgesFile)
		}
		for i, v := range c.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Space{}, fmt.Errorf("%s: coordinate %d of vertex %d is %v; every coordinate must be finite", cpath, i%c.Shape[1], i/c.Shape[1], v)
			}
		}
		sp.Coords, n = c, c.Shape[0]
	} else if !errors.Is(err, os.ErrNotExist) {
		return Space{}, err
	}
	if sp.Graph, err = kernel.FromEdges(n, edges); err != nil {
		return Space{}, fmt.Errorf("%s: %w", path, err)
	}
	return sp, nil
}

// Edges returns the edge list of s's graph, in its edge order.
func (s Space) Edges() [][2]int {
	edges := make([][2]int, s.Graph.NumEdges())
	for e := range edges {
		edges[e][0], edges[e][1] = s.Graph.Edge(e)
	}
	return edges
}

// MetricKind returns the parameterisation of θ on s: kind on a grid, the
// edge metric on a general graph, whose edges have no axes.
func (s Space) MetricKind(kind learn.MetricKind) learn.MetricKind {
	if s.IsGraph() {
		return learn.EdgeMetric
	}
	return kind
}

// GridSize returns the dimension and side of a grid.
func (s Space) GridSize() (d, n int) {
	dims := s.Graph.Dims()
	return len(dims), dims[0]
}

// HistShape is the array shape of one histogram: [n,n] or [n,n,n] on a
// grid, [N] on a graph.
func (s Space) HistShape() []int {
	if s.IsGraph() {
		return []int{s.Graph.N()}
	}
	return s.Graph.Dims()
}

// Alpha is the scale α of the heat kernel's Laplacian on s (see Space).
func (s Space) Alpha() float64 {
	if s.IsGraph() {
		return 1
	}
	_, n := s.GridSize()
	return kernel.GridAlpha(n)
}

// Bound is the heat matrix's numerical bound on s (kernel.HeatBound).
func (s Space) Bound() kernel.HeatBound {
	if s.IsGraph() {
		return kernel.GraphHeatBound(s.Graph)
	}
	d, n := s.GridSize()
	return kernel.GridHeatBound(d, n)
}

// WriteMetric writes θ of kind k: a [d,N] array on a grid (WriteMetric),
// the E edge weights on a graph.
func (s Space) WriteMetric(path string, k learn.MetricKind, theta []float64) error {
	if !s.IsGraph() {
		return WriteMetric(path, s.Graph, k, theta)
	}
	return WriteNpyFile(path, &Array{Shape: []int{len(theta)}, Data: theta})
}

// ReadMetric reads a metric file of kind k for s (see Space.WriteMetric),
// checking that every value is positive and finite.
func (s Space) ReadMetric(path string, k learn.MetricKind) ([]float64, error) {
	if !s.IsGraph() {
		return ReadMetric(path, s.Graph, k)
	}
	a, err := ReadNpyFile(path)
	if err != nil {
		return nil, err
	}
	if len(a.Shape) != 1 || a.Shape[0] != s.Graph.NumEdges() {
		return nil, fmt.Errorf("metric file %s: shape %s does not match the data's graph: want (%d,), one weight per edge of %s",
			path, ShapeString(a.Shape), s.Graph.NumEdges(), EdgesFile)
	}
	for e, v := range a.Data {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("metric file %s: value %g at [%d] is not a positive finite number", path, v, e)
		}
	}
	return a.Data, nil
}

// PadMetric returns the metric parameters θ of kind k in the [d,N] layout
// of metric files, the reference's (docs/method.md, "Metric
// parameterisations"): entry [p,v] belongs to the edge that leaves vertex
// v along the axis of stride n^p, zero where there is none.
func PadMetric(g *kernel.Graph, k learn.MetricKind, theta []float64) []float64 {
	if k == learn.VertexMetric {
		return append([]float64(nil), theta...)
	}
	out := make([]float64, len(g.Dims())*g.N())
	g.PadEdges(out, theta)
	return out
}

// UnpadMetric is the inverse of PadMetric.
func UnpadMetric(g *kernel.Graph, k learn.MetricKind, padded []float64) []float64 {
	if k == learn.VertexMetric {
		return append([]float64(nil), padded...)
	}
	out := make([]float64, g.NumEdges())
	g.UnpadEdges(out, padded)
	return out
}

// WriteMetric writes the metric θ of kind k on grid g to path as a float64
// [d,N] .npy file (see WriteNpyFile).
func WriteMetric(path string, g *kernel.Graph, k learn.MetricKind, theta []float64) error {
	d := len(g.Dims())
	return WriteNpyFile(path, &Array{Shape: []int{d, g.N()}, Data: PadMetric(g, k, theta)})
}

// ReadMetric reads a metric file for grid g in the [d,N] layout (or
// [d,n,…,n]) and returns the parameters θ of kind k, checking that every
// used value is positive and finite.
func ReadMetric(path string, g *kernel.Graph, k learn.MetricKind) ([]float64, error) {
	a, err := ReadNpyFile(path)
	if err != nil {
		return nil, err
	}
	d, n, N := len(g.Dims()), g.Dims()[0], g.N()
	ok := len(a.Shape) == 2 && a.Shape[0] == d && a.Shape[1] == N
	if len(a.Shape) == d+1 && a.Shape[0] == d {
		ok = true
		for _, s := range a.Shape[1:] {
			ok = ok && s == n
		}
	}
	if !ok {
		return nil, fmt.Errorf("metric file %s: shape %s does not match the data's grid (%d-D, side %d): want %s",
			path, ShapeString(a.Shape), d, n, ShapeString([]int{d, N}))
	}
	theta := UnpadMetric(g, k, a.Data)
	for i, v := range theta {
		if !(v > 0) || math.IsInf(v, 0) {
			where := i
			if k == learn.EdgeMetric {
				from, _ := g.Edge(i)
				where = g.Axis(i)*N + from
			}
			return nil, fmt.Errorf("metric file %s: value %g at [%d, %d] is not a positive finite number", path, v, where/N, where%N)
		}
	}
	return theta, nil
}

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
