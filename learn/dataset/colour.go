package dataset

import (
	"fmt"
	"os"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot/color"
)

// ColourPreset is the paper's colour-learning setting (docs/method.md,
// "Defaults and paper presets", Fig. 18 row): histograms at 16³ bins, loss
// L2, heat time 1e-3 in 20 implicit steps, L = 50 Sinkhorn iterations,
// λ_c = 0, λ_s = 1, 500 L-BFGS iterations and a snapshot every 50. gmlg
// colorlearn takes its defaults from it.
var ColourPreset = struct {
	Bins, Steps, Iterations, MaxIter, SaveEvery int
	T, LambdaS                                  float64
}{Bins: 16, Steps: 20, Iterations: 50, MaxIter: 500, SaveEvery: 50, T: 1e-3, LambdaS: 1}

// Colour is a colour time-lapse read as learning input: the RGB histogram
// of every image on the n³ colour cube, a 3-D grid whose axis 0 is blue, 1
// green and 2 red (color.Histogram's row-major order), with the images in
// the numeric order of their names.
type Colour struct {
	Files []string    // the images, in order
	Hists [][]float64 // their histograms, each of unit mass
	Bins  int         // n, bins per channel
	Space Space       // the n³ colour cube
}

// ListImages returns the files of dir matching pattern (empty: the PNG and
// JPEG images, *.png, *.jpg and *.jpeg) in the numeric order of their
// names (Sort: frame-2 before frame-10), which is the reference's sorted
// glob when the numbers are zero-padded to one width. Every match must be
// a regular file.
func ListImages(dir, pattern string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	patterns := []string{pattern}
	if pattern == "" {
		patterns = imagePatterns
	}
	var files []string
	for _, p := range patterns {
		m, err := glob(dir, p)
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	Sort(files)
	return files, nil
}

// ReadColour decodes the image files (their sizes checked by img, as
// DecodeImage does) and returns their histograms at hist.Bins bins per
// channel on the colour cube.
func ReadColour(files []string, hist *color.HistOptions, img *ImageOptions) (*Colour, error) {
	n := hist.Bins
	if n == 0 {
		n = color.DefaultBins
	}
	g, err := kernel.Cube(3, n)
	if err != nil {
		return nil, fmt.Errorf("colour cube: %w", err)
	}
	c := &Colour{Files: files, Bins: n, Space: Space{Graph: g, Colour: true}, Hists: make([][]float64, len(files))}
	for i, f := range files {
		im, _, err := DecodeImage(f, img)
		if err != nil {
			return nil, err
		}
		if c.Hists[i], err = color.Histogram(im, hist); err != nil {
			return nil, fmt.Errorf("histogram of %s: %w", f, err)
		}
	}
	return c, nil
}

// Sequences returns the histograms as one sequence for learn: the first
// and the last are the poles, the others the frames fitted.
func (c *Colour) Sequences() []learn.Sequence {
	return []learn.Sequence{{Frames: c.Hists}}
}
