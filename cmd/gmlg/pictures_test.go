package main

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/ot/draw"
)

// TestSavePicture writes a picture and reads it back, and checks that a
// missing folder is an error that leaves no file.
func TestSavePicture(t *testing.T) {
	t.Parallel()
	img, err := draw.FramePicture(draw.Field{Rows: 2, Cols: 3, Data: []float64{0, 1, 2, 3, 4, 5}}, draw.Grey, 4)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.png")
	if err := dataset.SavePicture(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if back.Bounds() != image.Rect(0, 0, 12, 8) {
		t.Errorf("bounds %v, want 12×8", back.Bounds())
	}
	if r, _, _, _ := back.At(11, 7).RGBA(); r>>8 != 255 {
		t.Errorf("brightest cell has red %d, want 255", r>>8)
	}
	missing := filepath.Join(t.TempDir(), "no", "dir.png")
	if err := dataset.SavePicture(missing, img); err == nil {
		t.Error("missing folder: no error")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("missing folder: %v", err)
	}
}
