package bench

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteColourSequence checks that the synthetic colour sequence is the
// same bytes on every generation, ColourFrames images of 96×64 that change
// from the first to the last.
func TestWriteColourSequence(t *testing.T) {
	read := func(dir string) [][]byte {
		if err := WriteColourSequence(dir); err != nil {
			t.Fatal(err)
		}
		names, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		if len(names) != ColourFrames {
			t.Fatalf("%d images in %s, want %d", len(names), dir, ColourFrames)
		}
		var out [][]byte
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	a, b := read(t.TempDir()), read(filepath.Join(t.TempDir(), "new", "images"))
	for k := range a {
		if !bytes.Equal(a[k], b[k]) {
			t.Errorf("image %d differs between two generations", k)
		}
	}
	img, err := png.Decode(bytes.NewReader(a[0]))
	if err != nil || img.Bounds().Dx() != 96 || img.Bounds().Dy() != 64 {
		t.Fatalf("first image: %v, %v", img.Bounds(), err)
	}
	if bytes.Equal(a[0], a[ColourFrames-1]) {
		t.Error("day and night are the same image")
	}
}
