package main

import (
	"math"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot/draw"
)

// logOf returns log θ.
func logOf(theta []float64) []float64 {
	x := make([]float64, len(theta))
	for i, v := range theta {
		x[i] = math.Log(v)
	}
	return x
}

// expOf returns e^x.
func expOf(x []float64) []float64 {
	w := make([]float64, len(x))
	for i, v := range x {
		w[i] = math.Exp(v)
	}
	return w
}

// truthName is the file in which gmlg synth stores the true metric.
const truthName = "a-metric.npy"

// truthPicture draws, when the data folder holds the true metric (gmlg
// synth writes a-metric.npy), the true and the learned metric side by side,
// axis by axis, into path. It returns false when there is no usable truth.
func truthPicture(path, dataDir string, learned []float64, d, n int, title string) (bool, error) {
	a, err := dataset.ReadNpyFile(filepath.Join(dataDir, truthName))
	if err != nil || len(a.Shape) != 2 || a.Shape[0] != d || a.Shape[1] != len(learned)/d {
		return false, nil
	}
	img, err := draw.CompareMetrics(a.Data, learned, d, n, title)
	if err != nil {
		return false, err
	}
	return true, savePicture(path, img)
}

// truthCorrelation returns the Pearson correlation between the edge weights
// of the learned metric θ (of parameterisation m) and those of the true
// vertex metric in dataDir/a-metric.npy, when that file exists and fits.
func truthCorrelation(dataDir string, g *kernel.Graph, m kernel.Metric, theta []float64) (float64, bool) {
	a, err := dataset.ReadNpyFile(filepath.Join(dataDir, truthName))
	d := len(g.Dims())
	if err != nil || len(a.Shape) != 2 || a.Shape[0] != d || a.Shape[1] != g.N() {
		return 0, false
	}
	wt := make([]float64, g.NumEdges())
	kernel.VertexMetric{G: g}.Weights(wt, a.Data)
	wl := make([]float64, g.NumEdges())
	m.Weights(wl, theta)
	return synth.Pearson(wt, wl, nil)
}

// graphTruthCorrelation compares the learned edge weights w of a graph
// folder with the true ones that gmlg synth --graph writes there
// (metric_true.npy): it returns the Pearson correlation over all edges and
// over the edges that carry mass in frames (synth.CarriesMass), and false
// when there is no usable truth.
func graphTruthCorrelation(dataDir string, g *kernel.Graph, w []float64, frames [][][]float64) (all, mass float64, ok bool) {
	a, err := dataset.ReadNpyFile(filepath.Join(dataDir, graphTruthName))
	if err != nil || len(a.Shape) != 1 || a.Shape[0] != g.NumEdges() {
		return 0, 0, false
	}
	if all, ok = synth.Pearson(a.Data, w, nil); !ok {
		return 0, 0, false
	}
	mass, ok = synth.Pearson(a.Data, w, synth.CarriesMass(g, frames))
	return all, mass, ok
}
