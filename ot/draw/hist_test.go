package draw

import (
	"crypto/sha256"
	"image"
	"math"
	"testing"

	otcolor "github.com/gmlg/gmlg/ot/color"
)

func hashImage(img *image.RGBA) [32]byte { return sha256.Sum256(img.Pix) }

// twoBlobs is a histogram with a big dark-red blob and a small light-blue one.
func twoBlobs(n int) []float64 {
	h := make([]float64, n*n*n)
	for i := range h {
		r, g, b := otcolor.BinCentre(i, n)
		h[i] = math.Exp(-((r-0.7)*(r-0.7)+(g-0.2)*(g-0.2)+(b-0.2)*(b-0.2))/0.01) +
			0.3*math.Exp(-((r-0.3)*(r-0.3)+(g-0.6)*(g-0.6)+(b-0.9)*(b-0.9))/0.005)
	}
	return h
}

func TestHistogram(t *testing.T) {
	const n = 8
	h := twoBlobs(n)
	img, err := Histogram(h, n, &HistogramOptions{Size: 200, Title: "two blobs"})
	if err != nil {
		t.Fatal(err)
	}
	save(t, "blobs.png", img)
	if img.Bounds().Dx() != 200 || img.Bounds().Dy() != 200 {
		t.Fatalf("bounds %v", img.Bounds())
	}
	again, _ := Histogram(h, n, &HistogramOptions{Size: 200, Title: "two blobs"})
	if hashImage(img) != hashImage(again) {
		t.Errorf("rendering is not deterministic")
	}
	// The heaviest bin's disc is drawn in its colour at its projected centre.
	heavy := 0
	for i, v := range h {
		if v > h[heavy] {
			heavy = i
		}
	}
	r, g, b := otcolor.BinCentre(heavy, n)
	x, y, _ := newProjector(200).project([3]float64{r, g, b})
	c := img.RGBAAt(int(x), int(y))
	if math.Abs(float64(c.R)/255-r) > 0.15 || math.Abs(float64(c.G)/255-g) > 0.15 || math.Abs(float64(c.B)/255-b) > 0.15 {
		t.Errorf("pixel at heaviest bin (%v,%v) is %v, want about (%.2f,%.2f,%.2f)", int(x), int(y), c, r, g, b)
	}
	// An empty histogram draws only the cube; a wrong length is an error.
	if _, err := Histogram(make([]float64, n*n*n), n, nil); err != nil {
		t.Errorf("zero histogram: %v", err)
	}
	if _, err := Histogram(h[:10], n, nil); err == nil {
		t.Errorf("short histogram: no error")
	}
	h[3] = math.NaN()
	if _, err := Histogram(h, n, nil); err == nil {
		t.Errorf("NaN histogram: no error")
	}
}

func TestHistogramStrip(t *testing.T) {
	const n = 8
	a := twoBlobs(n)
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[len(a)-1-i] // the point reflection through the grey centre
	}
	img, err := HistogramStrip([][]float64{a, b}, n, []string{"t=0", "t=1"}, &HistogramOptions{Size: 160})
	if err != nil {
		t.Fatal(err)
	}
	save(t, "hists.png", img)
	if img.Bounds().Dx() != 320 || img.Bounds().Dy() != 160 {
		t.Fatalf("bounds %v", img.Bounds())
	}
	single, _ := Histogram(a, n, &HistogramOptions{Size: 160, Title: "t=0"})
	left := img.SubImage(image.Rect(0, 0, 160, 160)).(*image.RGBA)
	for y := range 160 {
		for x := range 160 {
			if left.RGBAAt(x, y) != single.RGBAAt(x, y) {
				t.Fatalf("strip panel 0 differs from the single rendering at (%d,%d)", x, y)
			}
		}
	}
	if _, err := HistogramStrip([][]float64{a}, n, []string{"x", "y"}, nil); err == nil {
		t.Errorf("title count mismatch: no error")
	}
}

// TestHistogramStripDeterministic draws three histograms of 16³ bins, the
// size of the colour commands' pictures, with the default options, and
// checks that a second drawing gives the same pixels.
func TestHistogramStripDeterministic(t *testing.T) {
	const n = 16
	var hs [][]float64
	for k := range 3 {
		h := twoBlobs(n)
		for i := range h {
			h[i] *= 1 + 0.1*float64(k*i%7)
		}
		hs = append(hs, h)
	}
	titles := []string{"frame 0", "frame 4", "frame 9"}
	img, err := HistogramStrip(hs, n, titles, nil)
	if err != nil {
		t.Fatal(err)
	}
	save(t, "hists-16.png", img)
	again, _ := HistogramStrip(hs, n, titles, nil)
	if hashImage(img) != hashImage(again) {
		t.Errorf("strip is not deterministic")
	}
}
