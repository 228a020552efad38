package draw

import (
	"image"
	"image/color"
	"testing"
)

// solid returns a w×h picture of one colour.
func solid(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func TestStackAndRow(t *testing.T) {
	t.Parallel()
	white := color.RGBA{255, 255, 255, 255}
	red, blue := color.RGBA{200, 0, 0, 255}, color.RGBA{0, 0, 200, 255}
	a, b := solid(4, 2, red), solid(2, 3, blue)
	// A picture whose bounds do not start at the origin is placed by its
	// top-left corner.
	b = b.SubImage(image.Rect(1, 1, 2, 3)).(*image.RGBA)
	tests := []struct {
		name   string
		img    *image.RGBA
		bounds image.Rectangle
		pixels map[image.Point]color.RGBA
	}{
		{"stack", Stack(a, b), image.Rect(0, 0, 4, 4), map[image.Point]color.RGBA{
			{0, 0}: red, {3, 1}: red, {0, 2}: blue, {0, 3}: blue, {1, 2}: white, {3, 3}: white}},
		{"row", Row(a, b), image.Rect(0, 0, 5, 2), map[image.Point]color.RGBA{
			{0, 0}: red, {3, 1}: red, {4, 0}: blue, {4, 1}: blue}},
		{"row of one", Row(b), image.Rect(0, 0, 1, 2), map[image.Point]color.RGBA{{0, 0}: blue}},
		{"empty", Stack(), image.Rectangle{}, nil},
	}
	for _, tc := range tests {
		if tc.img.Bounds() != tc.bounds {
			t.Errorf("%s: bounds %v, want %v", tc.name, tc.img.Bounds(), tc.bounds)
			continue
		}
		for p, want := range tc.pixels {
			if got := tc.img.RGBAAt(p.X, p.Y); got != want {
				t.Errorf("%s: pixel %v = %v, want %v", tc.name, p, got, want)
			}
		}
	}
}

func TestThumbnail(t *testing.T) {
	t.Parallel()
	// A 5×2 picture with columns of grey 0, 10, 20, 30, 40.
	img := image.NewNRGBA(image.Rect(0, 0, 5, 2))
	for y := range 2 {
		for x := range 5 {
			v := uint8(10 * x)
			img.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	tests := []struct {
		maxW  int
		size  image.Point
		first uint8 // grey of the top-left thumbnail pixel
	}{
		{5, image.Pt(5, 2), 0},
		{10, image.Pt(5, 2), 0},
		{3, image.Pt(2, 1), 5},  // factor 2: mean of 0, 10, 0, 10
		{2, image.Pt(1, 0), 10}, // factor 3 leaves no full row
	}
	for _, tc := range tests {
		th := Thumbnail(img, tc.maxW)
		if th.Bounds().Size() != tc.size {
			t.Errorf("maxW %d: size %v, want %v", tc.maxW, th.Bounds().Size(), tc.size)
			continue
		}
		if tc.size.Y == 0 {
			continue
		}
		if got := th.RGBAAt(0, 0); got != (color.RGBA{tc.first, tc.first, tc.first, 255}) {
			t.Errorf("maxW %d: first pixel %v, want grey %d", tc.maxW, got, tc.first)
		}
	}
	// The factor-2 thumbnail's second pixel averages columns 2 and 3.
	if got := Thumbnail(img, 3).RGBAAt(1, 0); got.R != 25 {
		t.Errorf("second pixel %v, want grey 25", got)
	}
}

func TestLabel(t *testing.T) {
	t.Parallel()
	short := Label("ab", 100)
	if short.Bounds() != image.Rect(0, 0, 100, 18) {
		t.Errorf("short label bounds %v", short.Bounds())
	}
	long := Label("a long title for a narrow picture", 10)
	if want := tagAdvance*len("a long title for a narrow picture") + 8; long.Bounds().Dx() != want {
		t.Errorf("long label width %d, want %d", long.Bounds().Dx(), want)
	}
	if !hasInk(short, image.Rect(4, 0, 4+2*tagAdvance, 18)) {
		t.Error("label text not drawn")
	}
	if hasInk(short, image.Rect(4+2*tagAdvance+1, 0, 100, 18)) {
		t.Error("ink beyond the label text")
	}
}
