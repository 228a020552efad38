package dataset

import (
	"image"
	stdcolor "image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmlg/gmlg/ot/color"
)

// TestReadColour checks that ListImages takes the images in the numeric
// order of their names and that ReadColour gives one unit-mass histogram
// of n³ bins per image, on the n³ cube, with the mass in the bin of the
// image's single colour.
func TestReadColour(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shades := map[string]uint8{"im-10.png": 250, "im-2.png": 10, "im-1.png": 130}
	for name, v := range shades {
		img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
		for i := range 16 {
			img.SetNRGBA(i%4, i/4, stdcolor.NRGBA{R: v, G: v, B: v, A: 255})
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	files, err := ListImages(dir, "*.png")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"im-1.png", "im-2.png", "im-10.png"} {
		if filepath.Base(files[i]) != want {
			t.Fatalf("files %v, want im-1, im-2, im-10", files)
		}
	}
	const n = 4
	c, err := ReadColour(files, &color.HistOptions{Bins: n}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Bins != n || c.Space.Graph.N() != n*n*n || len(c.Hists) != 3 || len(c.Sequences()[0].Frames) != 3 {
		t.Fatalf("colour input: bins %d, N %d, %d histograms", c.Bins, c.Space.Graph.N(), len(c.Hists))
	}
	for i, v := range []uint8{130, 10, 250} {
		b := int(v) * n / 256
		if got := c.Hists[i][(b*n+b)*n+b]; !(got > 0.999) { // color.Floor spreads 1e-6 of the mass over all bins
			t.Errorf("image %d: mass %g in the bin of its colour, want nearly all of it", i, got)
		}
	}
}
