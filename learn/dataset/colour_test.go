package dataset

import (
	"fmt"
	"image"
	"image/color"
	"testing"
)

// TestColourFrames checks that Set.Colour names the first frame whose red,
// green and blue differ somewhere, and stays empty for grey images, whether
// stored as grey PNGs or as RGB PNGs with equal channels, and for .npy
// frames.
func TestColourFrames(t *testing.T) {
	t.Parallel()
	const n = 4
	gray := image.NewGray(image.Rect(0, 0, n, n))
	rgbGrey := image.NewNRGBA(image.Rect(0, 0, n, n))
	oneRed := image.NewNRGBA(image.Rect(0, 0, n, n))
	for i := range n * n {
		x, y := i%n, i/n
		v := uint8(20 + 10*i)
		gray.SetGray(x, y, color.Gray{Y: v})
		rgbGrey.SetNRGBA(x, y, color.NRGBA{R: v, G: v, B: v, A: 255})
		oneRed.SetNRGBA(x, y, color.NRGBA{R: v, G: v, B: v, A: 255})
	}
	oneRed.SetNRGBA(n-1, n-1, color.NRGBA{R: 200, G: 10, B: 10, A: 255})
	for _, tc := range []struct {
		name   string
		images []image.Image // written as im-0.png, im-1.png, …
		want   int           // index of the file Colour names, −1 for none
	}{
		{"grey PNGs", []image.Image{gray, gray, gray}, -1},
		{"RGB PNGs with equal channels", []image.Image{rgbGrey, gray, rgbGrey}, -1},
		{"one colour pixel in the second", []image.Image{gray, oneRed, oneRed}, 1},
		{"colour last", []image.Image{rgbGrey, gray, oneRed}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for k, im := range tc.images {
				paths = append(paths, writeBytes(t, dir, fmt.Sprintf("im-%d.png", k), encodePNG(t, im)))
			}
			set, err := Load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tc.want >= 0 {
				want = paths[tc.want]
			}
			if set.Colour != want {
				t.Errorf("Colour = %q, want %q", set.Colour, want)
			}
		})
	}
	dir := t.TempDir()
	for k := range 3 {
		writeNPY(t, dir, fmt.Sprintf("array-%02d.npy", k), []int{n, n}, ramp(n), nil)
	}
	set, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Colour != "" {
		t.Errorf(".npy frames: Colour = %q, want none", set.Colour)
	}
}
