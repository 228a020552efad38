package main

import (
	"math"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/ot/draw"
)

// metricPicture draws the metric θ as heat maps, one per axis.
func metricPicture(path string, g *kernel.Graph, k learn.MetricKind, theta []float64, title string) error {
	return metricPictureRaw(path, dataset.PadMetric(g, k, theta), len(g.Dims()), g.Dims()[0], title)
}

// metricPictureRaw draws a [d,N] metric array.
func metricPictureRaw(path string, padded []float64, d, n int, title string) error {
	img, err := metricImage(padded, d, n, title, 0)
	if err != nil {
		return err
	}
	return savePicture(path, img)
}

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
	tp, err := draw.MetricPanels(a.Data, d, n)
	if err != nil {
		return false, nil
	}
	lp, err := draw.MetricPanels(learned, d, n)
	if err != nil {
		return false, err
	}
	var panels []draw.Panel
	for i := range tp {
		t, l := tp[i], lp[i]
		t.Title += " (true)"
		l.Title += " (learned)"
		panels = append(panels, t, l)
	}
	img, err := draw.HeatMaps(panels, &draw.HeatMapOptions{Title: title, Size: 240})
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
	return pearson(wt, wl)
}

// pearson returns the Pearson correlation of a and b (of equal lengths),
// and false when it is undefined (fewer than two values, or a constant).
func pearson(a, b []float64) (float64, bool) {
	var ma, mb float64
	for e := range a {
		ma += a[e]
		mb += b[e]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var cab, caa, cbb float64
	for e := range a {
		cab += (a[e] - ma) * (b[e] - mb)
		caa += (a[e] - ma) * (a[e] - ma)
		cbb += (b[e] - mb) * (b[e] - mb)
	}
	r := cab / math.Sqrt(caa*cbb)
	if math.IsNaN(r) {
		return 0, false
	}
	return r, true
}
