package main

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/npyfile"
	"github.com/gmlg/gmlg/cmd/gmlg/internal/render"
	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
)

// The metric files use the reference's [d,N] layout (docs/method.md,
// "Metric parameterisations"): row p belongs to the axis of stride n^p. Edge
// metrics are padded with zeros where an edge does not exist.

// padMetric returns the metric parameters θ of kind k in the [d,N] layout.
func padMetric(g *kernel.Graph, k learn.MetricKind, theta []float64) []float64 {
	if k == learn.VertexMetric {
		return append([]float64(nil), theta...)
	}
	out := make([]float64, len(g.Dims())*g.N())
	g.PadEdges(out, theta)
	return out
}

// unpadMetric is the inverse of padMetric.
func unpadMetric(g *kernel.Graph, k learn.MetricKind, padded []float64) []float64 {
	if k == learn.VertexMetric {
		return append([]float64(nil), padded...)
	}
	out := make([]float64, g.NumEdges())
	g.UnpadEdges(out, padded)
	return out
}

// writeMetric writes θ as a float64 [d,N] .npy file.
func writeMetric(path string, g *kernel.Graph, k learn.MetricKind, theta []float64) error {
	d := len(g.Dims())
	return npyfile.WriteFile(path, &npyfile.Array{Shape: []int{d, g.N()}, Data: padMetric(g, k, theta)}, nil)
}

// readMetric reads a metric file for grid g in the [d,N] layout (or
// [d,n,…,n]) and returns the parameters θ of kind k, checking that every
// used value is positive and finite.
func readMetric(path string, g *kernel.Graph, k learn.MetricKind) ([]float64, error) {
	a, err := npyfile.ReadFile(path)
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
		want := npyfile.ShapeString([]int{d, N})
		return nil, fmt.Errorf("metric file %s: shape %s does not match the data's grid (%d-D, side %d): want %s",
			path, npyfile.ShapeString(a.Shape), d, n, want)
	}
	theta := unpadMetric(g, k, a.Data)
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

// metricPicture draws the metric θ as heat maps, one per axis.
func metricPicture(path string, g *kernel.Graph, k learn.MetricKind, theta []float64, title string) error {
	return metricPictureRaw(path, padMetric(g, k, theta), len(g.Dims()), g.Dims()[0], title)
}

// metricPictureRaw draws a [d,N] metric array.
func metricPictureRaw(path string, padded []float64, d, n int, title string) error {
	panels, err := render.MetricPanels(padded, d, n)
	if err != nil {
		return err
	}
	img, err := render.HeatMaps(panels, &render.HeatMapOptions{Title: title})
	if err != nil {
		return err
	}
	return render.SavePNG(path, img)
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
	a, err := npyfile.ReadFile(filepath.Join(dataDir, truthName))
	if err != nil || len(a.Shape) != 2 || a.Shape[0] != d || a.Shape[1] != len(learned)/d {
		return false, nil
	}
	tp, err := render.MetricPanels(a.Data, d, n)
	if err != nil {
		return false, nil
	}
	lp, err := render.MetricPanels(learned, d, n)
	if err != nil {
		return false, err
	}
	var panels []render.Panel
	for i := range tp {
		t, l := tp[i], lp[i]
		t.Title += " (true)"
		l.Title += " (learned)"
		panels = append(panels, t, l)
	}
	img, err := render.HeatMaps(panels, &render.HeatMapOptions{Title: title, Size: 240})
	if err != nil {
		return false, err
	}
	return true, render.SavePNG(path, img)
}

// truthCorrelation returns the Pearson correlation between the edge weights
// of the learned metric θ (of parameterisation m) and those of the true
// vertex metric in dataDir/a-metric.npy, when that file exists and fits.
func truthCorrelation(dataDir string, g *kernel.Graph, m kernel.Metric, theta []float64) (float64, bool) {
	a, err := npyfile.ReadFile(filepath.Join(dataDir, truthName))
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
