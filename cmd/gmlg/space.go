package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot/draw"
)

// A data folder describes one of two spaces that its histograms live on.
//
// A grid folder holds only frames: n×n images or n×n×n volumes, whose grid
// the frames' shape gives. Its metrics are [d,N] arrays (metricio.go) and
// the heat kernel's Laplacian is scaled by α = (n−1)², the unit square's
// 1/h², so that t is a time on the unit square.
//
// A graph folder holds edges.npy, an int64 [E,2] array whose row e joins
// vertices edges[e,0] and edges[e,1] (0-based, either order, no self-loops
// or repeats; dataset.ReadEdges), optionally coords.npy ([N,2] or [N,3], one row
// per vertex, used only for pictures), and frames array-*.npy that are
// 1-D arrays of N values, one per vertex. N is the number of rows of
// coords.npy, or else the largest vertex index in edges.npy plus one. Its
// metric is one weight per edge, in the order of edges.npy, stored as a 1-D
// array of E values; the Laplacian is not scaled (α = 1), so that t is in
// units of squared edges: with unit weights a frame blurs over about √(2t)
// edges.
const (
	edgesName      = "edges.npy"
	coordsName     = "coords.npy"
	graphTruthName = "metric_true.npy" // the true edge weights of gmlg synth --graph
)

// space is the graph of a data folder and how its metrics and histograms
// are stored, checked and drawn.
type space struct {
	graph *kernel.Graph
	// coords holds the vertex coordinates of a general graph, row-major
	// [N,2] or [N,3], or nil (grids and graphs without coords.npy).
	coords *dataset.Array
}

// isGraph reports whether s is a general graph read from an edge list.
func (s space) isGraph() bool { return !s.graph.IsGrid() }

// isGraphDir reports whether dir is a graph folder (holds edges.npy).
func isGraphDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, edgesName))
	return err == nil && !st.IsDir()
}

// loadSpace reads the frames of dir with opt (see package dataset) and
// builds their space: the graph of edges.npy in a graph folder, else the
// grid of the frames' shape.
func loadSpace(dir string, opt *dataset.Options) (space, *dataset.Set, error) {
	if !isGraphDir(dir) {
		set, err := dataset.Load(dir, opt)
		if err != nil {
			return space{}, nil, err
		}
		g, err := set.Graph()
		return space{graph: g}, set, err
	}
	sp, err := readGraphSpace(dir)
	if err != nil {
		return space{}, nil, err
	}
	o := dataset.Options{}
	if opt != nil {
		o = *opt
	}
	o.Length = sp.graph.N()
	set, err := dataset.Load(dir, &o)
	return sp, set, err
}

// readGraphSpace reads edges.npy and, when present, coords.npy of a graph
// folder.
func readGraphSpace(dir string) (space, error) {
	path := filepath.Join(dir, edgesName)
	edges, err := dataset.ReadEdges(path, limits.Memory)
	if err != nil {
		return space{}, err
	}
	n := 0
	for _, e := range edges {
		n = max(n, e[0]+1, e[1]+1)
	}
	var sp space
	cpath := filepath.Join(dir, coordsName)
	if c, err := dataset.ReadNpyFile(cpath); err == nil {
		if len(c.Shape) != 2 || (c.Shape[1] != 2 && c.Shape[1] != 3) || c.Shape[0] < n {
			return space{}, fmt.Errorf("%s: shape %s; want [N,2] or [N,3] with a row for each of the %d vertices that %s names",
				cpath, dataset.ShapeString(c.Shape), n, edgesName)
		}
		sp.coords, n = c, c.Shape[0]
	} else if !errors.Is(err, os.ErrNotExist) {
		return space{}, err
	}
	if sp.graph, err = kernel.FromEdges(n, edges); err != nil {
		return space{}, fmt.Errorf("%s: %w", path, err)
	}
	return sp, nil
}

// metricKind returns the parameterisation of θ on s: kind on a grid, and
// one weight per edge on a general graph, whose edges have no axes for a
// vertex metric to follow.
func (s space) metricKind(kind learn.MetricKind) learn.MetricKind {
	if s.isGraph() {
		return learn.EdgeMetric
	}
	return kind
}

// gridSize returns the dimension and side of a grid.
func (s space) gridSize() (d, n int) {
	dims := s.graph.Dims()
	return len(dims), dims[0]
}

// histShape is the array shape of one histogram: [n,n] or [n,n,n] on a
// grid, [N] on a graph.
func (s space) histShape() []int {
	if s.isGraph() {
		return []int{s.graph.N()}
	}
	return s.graph.Dims()
}

// alpha is the scale α of the heat kernel's Laplacian (see above).
func (s space) alpha() float64 {
	if s.isGraph() {
		return 1
	}
	_, n := s.gridSize()
	return kernel.GridAlpha(n)
}

// bound is the heat matrix's bound on s (kernel.HeatBound).
func (s space) bound() kernel.HeatBound {
	if s.isGraph() {
		return kernel.GraphHeatBound(s.graph)
	}
	d, n := s.gridSize()
	return kernel.GridHeatBound(d, n)
}

// checkHeatT refuses, as a usage error, a diffusion time given by the
// option flag that is too large for the heat matrix on s.
func (s space) checkHeatT(flag string, t float64, steps int) error {
	return flagLimit(s.bound().CheckTime(flag, t, steps))
}

// checkMetricScale refuses a metric too large for the heat matrix on s.
func (s space) checkMetricScale(source string, theta []float64, t float64, steps int) error {
	return s.bound().CheckMetric(source, theta, t, steps)
}

// writeMetric writes θ of kind k: a [d,N] array on a grid, the E edge
// weights on a graph.
func (s space) writeMetric(path string, k learn.MetricKind, theta []float64) error {
	if !s.isGraph() {
		return dataset.WriteMetric(path, s.graph, k, theta)
	}
	return dataset.WriteNpyFile(path, &dataset.Array{Shape: []int{len(theta)}, Data: theta})
}

// readMetric reads a metric file of kind k for s (see writeMetric),
// checking that every value is positive and finite.
func (s space) readMetric(path string, k learn.MetricKind) ([]float64, error) {
	if !s.isGraph() {
		return dataset.ReadMetric(path, s.graph, k)
	}
	a, err := dataset.ReadNpyFile(path)
	if err != nil {
		return nil, err
	}
	if len(a.Shape) != 1 || a.Shape[0] != s.graph.NumEdges() {
		return nil, fmt.Errorf("metric file %s: shape %s does not match the data's graph: want (%d,), one weight per edge of %s",
			path, dataset.ShapeString(a.Shape), s.graph.NumEdges(), edgesName)
	}
	for e, v := range a.Data {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("metric file %s: value %g at [%d] is not a positive finite number", path, v, e)
		}
	}
	return a.Data, nil
}

// metricPicture draws θ of kind k: heat maps per axis on a grid, the edges
// coloured by weight on a graph with coordinates. A graph without
// coordinates has no picture: it draws nothing and returns false.
func (s space) metricPicture(path string, k learn.MetricKind, theta []float64, title string) (bool, error) {
	if !s.isGraph() {
		return true, metricPicture(path, s.graph, k, theta, title)
	}
	if s.coords == nil {
		return false, nil
	}
	c, dim := s.coords.Data, s.coords.Shape[1]
	xy := make([][2]float64, s.graph.N())
	for i := range xy {
		xy[i] = [2]float64{c[i*dim], c[i*dim+1]}
	}
	edges := make([][2]int, s.graph.NumEdges())
	for e := range edges {
		edges[e][0], edges[e][1] = s.graph.Edge(e)
	}
	if dim == 3 {
		title += " (x, y of the 3-D coordinates)"
	}
	img, err := draw.EdgeMap(xy, edges, theta, &draw.HeatMapOptions{Title: title})
	if err != nil {
		return false, err
	}
	return true, savePicture(path, img)
}

// recStrip draws observed against reconstructed frames on a grid; frames
// on a graph have no picture (false).
func (s space) recStrip(path string, obs, recs [][][]float64, title string) (bool, error) {
	if s.isGraph() {
		return false, nil
	}
	d, n := s.gridSize()
	return true, recStrip(path, obs, recs, d, n, title)
}

// size returns the size of an objective on s, without its frames.
func (s space) size() limits.Objective {
	if s.isGraph() {
		return limits.Objective{Graph: s.graph}
	}
	d, n := s.gridSize()
	return limits.Objective{Dim: d, Side: n}
}

// describe records in d what ds is: the checksum and list of its files,
// its grid (Dim, Side) or graph (Edges), vertices and frames per sequence.
func (d *dataParams) describe(ds *dataFolder) error {
	files := ds.set.Files()
	if ds.isGraph() {
		files = append(files, filepath.Join(ds.set.Dir, edgesName))
	}
	sum, fs, err := rundir.Checksum(files)
	if err != nil {
		return err
	}
	d.Checksum, d.Files, d.Vertices = sum, fs, ds.graph.N()
	d.Dim, d.Side, d.Edges = 0, 0, 0
	if ds.isGraph() {
		d.Edges = ds.graph.NumEdges()
	} else {
		d.Dim, d.Side = ds.gridSize()
	}
	d.Sequences = d.Sequences[:0]
	for _, s := range ds.seqs {
		d.Sequences = append(d.Sequences, len(s.Frames))
	}
	return nil
}
