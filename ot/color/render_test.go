package color

import (
	"bytes"
	"crypto/sha256"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// savePNG writes img into $GMLG_RENDER_DIR (for looking at the pictures)
// when that variable is set.
func savePNG(t *testing.T, name string, img image.Image) {
	dir := os.Getenv("GMLG_RENDER_DIR")
	if dir == "" {
		return
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hashImage(img *image.NRGBA) [32]byte { return sha256.Sum256(img.Pix) }

// twoBlobs is a histogram with a big dark-red blob and a small light-blue one.
func twoBlobs(n int) []float64 {
	h := make([]float64, n*n*n)
	for i := range h {
		r, g, b := BinCentre(i, n)
		h[i] = math.Exp(-((r-0.7)*(r-0.7)+(g-0.2)*(g-0.2)+(b-0.2)*(b-0.2))/0.01) +
			0.3*math.Exp(-((r-0.3)*(r-0.3)+(g-0.6)*(g-0.6)+(b-0.9)*(b-0.9))/0.005)
	}
	return h
}

func TestRenderHistogram(t *testing.T) {
	const n = 8
	h := twoBlobs(n)
	img, err := RenderHistogram(h, n, &RenderOptions{Size: 200, Title: "two blobs"})
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, "blobs.png", img)
	if img.Bounds().Dx() != 200 || img.Bounds().Dy() != 200 {
		t.Fatalf("bounds %v", img.Bounds())
	}
	again, _ := RenderHistogram(h, n, &RenderOptions{Size: 200, Title: "two blobs"})
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
	r, g, b := BinCentre(heavy, n)
	x, y, _ := newProjector(200).project([3]float64{r, g, b})
	c := img.NRGBAAt(int(x), int(y))
	if math.Abs(float64(c.R)/255-r) > 0.15 || math.Abs(float64(c.G)/255-g) > 0.15 || math.Abs(float64(c.B)/255-b) > 0.15 {
		t.Errorf("pixel at heaviest bin (%v,%v) is %v, want about (%.2f,%.2f,%.2f)", int(x), int(y), c, r, g, b)
	}
	// An empty histogram draws only the cube; a wrong length is an error.
	if _, err := RenderHistogram(make([]float64, n*n*n), n, nil); err != nil {
		t.Errorf("zero histogram: %v", err)
	}
	if _, err := RenderHistogram(h[:10], n, nil); err == nil {
		t.Errorf("short histogram: no error")
	}
	h[3] = math.NaN()
	if _, err := RenderHistogram(h, n, nil); err == nil {
		t.Errorf("NaN histogram: no error")
	}
}

func TestRenderStrip(t *testing.T) {
	const n = 8
	a := twoBlobs(n)
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[len(a)-1-i] // the point reflection through the grey centre
	}
	img, err := RenderStrip([][]float64{a, b}, n, []string{"t=0", "t=1"}, &RenderOptions{Size: 160})
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, "strip.png", img)
	if img.Bounds().Dx() != 320 || img.Bounds().Dy() != 160 {
		t.Fatalf("bounds %v", img.Bounds())
	}
	single, _ := RenderHistogram(a, n, &RenderOptions{Size: 160, Title: "t=0"})
	left := img.SubImage(image.Rect(0, 0, 160, 160)).(*image.NRGBA)
	for y := range 160 {
		for x := range 160 {
			if left.NRGBAAt(x, y) != single.NRGBAAt(x, y) {
				t.Fatalf("strip panel 0 differs from the single rendering at (%d,%d)", x, y)
			}
		}
	}
	if _, err := RenderStrip([][]float64{a}, n, []string{"x", "y"}, nil); err == nil {
		t.Errorf("title count mismatch: no error")
	}
}

// TestRenderReference draws the reference seldovia2 histograms (for a look
// with GMLG_RENDER_DIR set) and checks the strip is deterministic.
func TestRenderReference(t *testing.T) {
	data := dataDir(t)
	var hs [][]float64
	for _, k := range []int{0, 4, 9} {
		h, err := Histogram(readPNG(t, filepath.Join(data, "seldovia2", "video_00"+string(rune('0'+k))+".png")), nil)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	img, err := RenderStrip(hs, 16, []string{"frame 0", "frame 4", "frame 9"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, "seldovia2.png", img)
	again, _ := RenderStrip(hs, 16, []string{"frame 0", "frame 4", "frame 9"}, nil)
	if hashImage(img) != hashImage(again) {
		t.Errorf("strip is not deterministic")
	}
}
