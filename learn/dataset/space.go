package dataset

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
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
	o := Options{}
	if opt != nil {
		o = *opt
	}
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
