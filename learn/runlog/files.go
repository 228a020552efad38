package runlog

import (
	"fmt"
	"image"
	"io"
	"math"
	"path/filepath"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot/draw"
)

// SavePicture writes img to path atomically as a PNG file.
func SavePicture(path string, img image.Image) error {
	if err := rundir.Write(path, 0o644, func(w io.Writer) error { return draw.EncodePNG(w, img) }); err != nil {
		return fmt.Errorf("save picture: %w", err)
	}
	return nil
}

// SaveLoss writes the objective per iteration, losses, to dir/loss.npy
// and, when title is not empty, its plot (draw.LossPlot) to dir/loss.png.
// Without losses it writes nothing.
func SaveLoss(dir string, losses []float64, title string) error {
	if len(losses) == 0 {
		return nil
	}
	if err := dataset.WriteNpyFile(filepath.Join(dir, "loss.npy"), &dataset.Array{Shape: []int{len(losses)}, Data: losses}); err != nil {
		return err
	}
	if title == "" {
		return nil
	}
	img, err := draw.LossPlot(losses, &draw.LossOptions{Title: title})
	if err != nil {
		return err
	}
	return SavePicture(filepath.Join(dir, "loss.png"), img)
}

// ReadMetric reads a metric θ of shape (its number of values counts;
// want describes it in errors) from a .npy file, or the current point
// e^x of a checkpoint file (.gob, ReadCheckpoint), and checks that every
// value is positive and finite.
func ReadMetric(path string, shape []int, want string) ([]float64, error) {
	var data []float64
	var got []int
	if filepath.Ext(path) == ".gob" {
		ck, err := ReadCheckpointIfAny(path)
		if err != nil {
			return nil, err
		}
		if ck == nil {
			return nil, fmt.Errorf("%s: no such checkpoint", path)
		}
		data = learn.Exp(nil, ck.State.X)
		got = []int{len(data)}
	} else {
		a, err := dataset.ReadNpyFile(path)
		if err != nil {
			return nil, err
		}
		data, got = a.Data, a.Shape
	}
	size := 1
	for _, d := range shape {
		size *= d
	}
	if len(data) != size {
		return nil, fmt.Errorf("metric %s has shape %v, want %s", path, got, want)
	}
	for i, v := range data {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("metric %s: entry %d is %v, want positive and finite", path, i, v)
		}
	}
	return data, nil
}

// TruthPicture draws the true metric of the data folder dataDir (when it
// holds one) beside the learned one, padded [d,N] on the grid of side n,
// into path; it reports whether there was a truth to draw.
func TruthPicture(path, dataDir string, learned []float64, d, n int, title string) (bool, error) {
	truth, ok := dataset.ReadTruth(dataDir, d, len(learned)/d)
	if !ok {
		return false, nil
	}
	img, err := draw.CompareMetrics(truth, learned, d, n, title)
	return WriteImage(path, img, err)
}
