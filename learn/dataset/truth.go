package dataset

import (
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/synth"
)

// The files of the true metric that gmlg synth writes into a data folder:
// TruthFile the [d,N] vertex metric of a grid dataset, GraphTruthFile the
// E edge weights of a graph dataset (synth --graph).
const (
	TruthFile      = "a-metric.npy"
	GraphTruthFile = "metric_true.npy"
)

// ReadTruth returns the true [d,N] vertex metric of the grid dataset in
// dir (TruthFile), and false when the folder has none of that shape.
func ReadTruth(dir string, d, n int) ([]float64, bool) {
	a, err := ReadNpyFile(filepath.Join(dir, TruthFile))
	if err != nil || len(a.Shape) != 2 || a.Shape[0] != d || a.Shape[1] != n {
		return nil, false
	}
	return a.Data, true
}

// TruthCorrelation returns the Pearson correlation between the edge
// weights of θ (of parameterisation m) on the grid g and those of the true
// metric in dir (ReadTruth), and false without a usable truth.
func TruthCorrelation(dir string, g *kernel.Graph, m kernel.Metric, theta []float64) (float64, bool) {
	truth, ok := ReadTruth(dir, len(g.Dims()), g.N())
	if !ok {
		return 0, false
	}
	wt, wl := make([]float64, g.NumEdges()), make([]float64, g.NumEdges())
	kernel.VertexMetric{G: g}.Weights(wt, truth)
	m.Weights(wl, theta)
	return synth.Pearson(wt, wl, nil)
}

// GraphTruthCorrelation returns the Pearson correlations of the edge
// weights w with the true ones in dir (GraphTruthFile), over all edges
// and over those that carry mass in frames (synth.CarriesMass), and false
// without a usable truth.
func GraphTruthCorrelation(dir string, g *kernel.Graph, w []float64, frames [][][]float64) (all, mass float64, ok bool) {
	a, err := ReadNpyFile(filepath.Join(dir, GraphTruthFile))
	if err != nil || len(a.Shape) != 1 || a.Shape[0] != g.NumEdges() {
		return 0, 0, false
	}
	if all, ok = synth.Pearson(a.Data, w, nil); !ok {
		return 0, 0, false
	}
	mass, ok = synth.Pearson(a.Data, w, synth.CarriesMass(g, frames))
	return all, mass, ok
}
