package draw

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestEdgeMap draws a square with one diagonal and checks each edge's
// colour halfway along it, the colour scale's ends, and the errors.
func TestEdgeMap(t *testing.T) {
	xy := [][2]float64{{0, 0}, {2, 0}, {2, 2}, {0, 2}}
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}
	w := []float64{1, 2, 3, 4, 5}
	const size = 101 // 50 pixels per unit of xy
	img, err := EdgeMap(xy, edges, w, &HeatMapOptions{Size: size, Title: "weights"})
	if err != nil {
		t.Fatal(err)
	}
	top := margin + mainTitleH
	// Pixel of point (x, y): y points up, (0, 0) is the bottom left corner.
	pix := func(x, y float64) (int, int) { return margin + int(x*50), top + size - 1 - int(y*50) }
	for _, tc := range []struct {
		x, y float64
		w    float64
	}{
		{1, 0, 1}, {2, 1, 2}, {1, 2, 3}, {0, 1, 4}, {0.5, 0.5, 5},
	} {
		px, py := pix(tc.x, tc.y)
		if got, want := img.RGBAAt(px, py), Viridis.At((tc.w-1)/4); got != want {
			t.Errorf("edge of weight %g at pixel (%d,%d): colour %v, want %v", tc.w, px, py, got, want)
		}
	}
	// The diagonal (heaviest) is drawn over the edges where they meet.
	if px, py := pix(0, 0); img.RGBAAt(px, py) != Viridis.At(1) {
		t.Errorf("corner (0,0): colour %v, want the diagonal's %v", img.RGBAAt(px, py), Viridis.At(1))
	}
	// The colour bar right of the drawing runs from the lightest weight at
	// the bottom to the heaviest at the top.
	barX := margin + size + barGap + barW/2
	if got := img.RGBAAt(barX, top+size-1); got != Viridis.At(0.5/float64(size)) {
		t.Errorf("colour bar starts with %v", got)
	}
	if got := img.RGBAAt(barX, top); got != Viridis.At(1-0.5/float64(size)) {
		t.Errorf("colour bar ends with %v", got)
	}
	// Deterministic: the same input gives the same pixels.
	img2, err := EdgeMap(xy, edges, w, &HeatMapOptions{Size: size, Title: "weights"})
	if err != nil || !bytes.Equal(img.Pix, img2.Pix) {
		t.Errorf("second drawing differs (err %v)", err)
	}

	for _, tc := range []struct {
		name  string
		xy    [][2]float64
		edges [][2]int
		w     []float64
		want  string
	}{
		{"weights", xy, edges, w[:4], "5 edges"},
		{"vertex", xy, [][2]int{{0, 4}}, []float64{1}, "outside [0,4)"},
		{"coords", [][2]float64{{0, math.NaN()}, {1, 1}}, [][2]int{{0, 1}}, []float64{1}, "not finite"},
	} {
		if _, err := EdgeMap(tc.xy, tc.edges, tc.w, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
