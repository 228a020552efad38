package dataset

import (
	"fmt"
	"image"
	"io"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot/draw"
)

// The files of the true metric that a synthetic dataset's folder holds
// (WriteSynthetic):
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
// and over those that carry mass in frames (CarriesMass), and false
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

// WriteSynthetic writes a synthetic dataset into the folder dir (which the
// caller holds, package rundir): the frames seqs on sp as array-SS-TT.npy,
// the true metric theta (on a grid a [d,N] vertex metric in TruthFile, on
// a graph the edge weights in GraphTruthFile with edges.npy and
// coords.npy) and the pictures of DrawSynthetic, whose paths it returns.
func WriteSynthetic(dir string, sp Space, theta []float64, seqs [][][]float64, truth string) ([]string, error) {
	if err := WriteSequences(dir, "array", seqs, sp.HistShape()); err != nil {
		return nil, err
	}
	file, kind := TruthFile, learn.VertexMetric
	if sp.IsGraph() {
		file, kind = GraphTruthFile, learn.EdgeMetric
		if err := WriteEdges(filepath.Join(dir, EdgesFile), sp.Edges()); err != nil {
			return nil, err
		}
		if sp.Coords != nil { // a graph may come without coordinates
			if err := WriteNpyFile(filepath.Join(dir, CoordsFile), sp.Coords); err != nil {
				return nil, err
			}
		}
	}
	if err := sp.WriteMetric(filepath.Join(dir, file), kind, theta); err != nil {
		return nil, err
	}
	return DrawSynthetic(dir, sp, theta, seqs, truth)
}

// DrawSynthetic draws the pictures of the synthetic dataset in dir: its true
// metric (a-metric.png on a grid, metric_true.png on a graph), titled
// after truth, and its frames (frames.png). It returns the paths of those
// it drew (a graph without coordinates has neither).
func DrawSynthetic(dir string, sp Space, theta []float64, seqs [][][]float64, truth string) ([]string, error) {
	var drawn []string
	metric, kind := filepath.Join(dir, "a-metric.png"), learn.VertexMetric
	if sp.IsGraph() {
		metric, kind = filepath.Join(dir, "metric_true.png"), learn.EdgeMetric
	}
	img, err := sp.MetricImage(kind, theta, "true metric ("+truth+")")
	if err == nil && img != nil {
		if err = SavePicture(metric, img); err == nil {
			drawn = append(drawn, metric)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", metric, err)
	}
	frames := filepath.Join(dir, "frames.png")
	img, err = sp.FramesImage([]draw.Frames{{Name: "sequence", Frames: seqs}}, "synthetic frames ("+truth+" metric)")
	if err == nil && img != nil {
		if err = SavePicture(frames, img); err == nil {
			drawn = append(drawn, frames)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", frames, err)
	}
	return drawn, nil
}

// SavePicture writes img to path atomically as a PNG file.
func SavePicture(path string, img image.Image) error {
	if err := rundir.Write(path, 0o644, func(w io.Writer) error { return draw.EncodePNG(w, img) }); err != nil {
		return fmt.Errorf("save picture: %w", err)
	}
	return nil
}
