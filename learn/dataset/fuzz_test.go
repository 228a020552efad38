package dataset

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad writes the fuzzed bytes as the middle frame of a folder whose
// other two frames are valid, as a .npy file or an image depending on
// asImage, and loads the folder. The loader must never panic; an error must
// carry the package prefix; a successful load must give finite,
// non-negative frames summing to one.
// Seeds: f.Add below plus testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	var buf bytes.Buffer
	WriteNpy(&buf, &Array{Shape: []int{2, 2}, Data: []float64{1, 2, 3, 4}})
	f.Add(buf.Bytes(), false)
	f.Add(npyBytes(f, ">u2", true, []int{2, 2}, []float64{0, 0, 0, 7}), false)
	img := image.NewGray16(image.Rect(0, 0, 2, 2))
	img.SetGray16(1, 1, color.Gray16{Y: 40000})
	buf.Reset()
	png.Encode(&buf, img)
	f.Add(buf.Bytes(), true)
	f.Add([]byte("\x89PNG\r\n\x1a\n"), true)

	var good bytes.Buffer
	WriteNpy(&good, &Array{Shape: []int{2, 2}, Data: []float64{1, 1, 1, 1}})
	goodImg := image.NewGray(image.Rect(0, 0, 2, 2))
	goodImg.Pix = []uint8{1, 2, 3, 4}
	var goodPNG bytes.Buffer
	png.Encode(&goodPNG, goodImg)

	f.Fuzz(func(t *testing.T, data []byte, asImage bool) {
		dir := t.TempDir()
		ext, other := ".npy", good.Bytes()
		if asImage {
			ext, other = ".png", goodPNG.Bytes()
		}
		for i, b := range [][]byte{other, data, other} {
			name := filepath.Join(dir, "array-0"+string(rune('0'+i))+ext)
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		set, err := Load(dir, &Options{Pattern: "array-*" + ext, Floor: 1e-6})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "dataset: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		for _, fr := range set.Sequences[0].Frames {
			s := 0.0
			for _, v := range fr.Data {
				if !(v >= 0) || math.IsInf(v, 0) {
					t.Fatalf("%s: bad value %v", fr.Path, v)
				}
				s += v
			}
			if math.Abs(s-1) > 1e-9 {
				t.Fatalf("%s: sum %v", fr.Path, s)
			}
		}
	})
}
