package runlog

import (
	"fmt"
	"image"
	"io"
	"math"
	"path/filepath"

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

// Exp sets dst[i] = e^x[i], the metric of the optimisation variable x (the
// log metric), and returns dst; a nil dst is allocated.
func Exp(dst, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	for i, v := range x {
		dst[i] = math.Exp(v)
	}
	return dst
}

// LogOf returns log θ, the optimisation variable of the metric θ.
func LogOf(theta []float64) []float64 {
	x := make([]float64, len(theta))
	for i, v := range theta {
		x[i] = math.Log(v)
	}
	return x
}
