package dataset

import (
	"cmp"
	"fmt"
	"os"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot/color"
)

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
// JPEG images) in the numeric order of their names (Sort). Every match
// must be a regular file.
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
	files, err := glob(dir, patterns...)
	Sort(files)
	return files, err
}

// ReadColour decodes the image files (DecodeImage with img) and returns
// their histograms at hist.Bins bins per channel on the colour cube.
func ReadColour(files []string, hist *color.HistOptions, img *ImageOptions) (*Colour, error) {
	n := cmp.Or(hist.Bins, color.DefaultBins)
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

// Sequences returns the histograms as one sequence for learn.
func (c *Colour) Sequences() []learn.Sequence {
	return []learn.Sequence{{Frames: c.Hists}}
}
