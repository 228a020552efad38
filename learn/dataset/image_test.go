package dataset

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// budget returns a MemoryCheck that refuses more than b bytes.
func budget(b float64) MemoryCheck {
	return func(what string, need float64, hint string) error {
		if need <= b {
			return nil
		}
		return fmt.Errorf("%s needs %.0f bytes, more than the budget of %.0f; %s", what, need, b, hint)
	}
}

func TestCheckImage(t *testing.T) {
	rgba := func(w, h int) image.Config { return image.Config{ColorModel: color.NRGBAModel, Width: w, Height: h} }
	for _, tc := range []struct {
		name  string
		cfg   image.Config
		extra int
		want  []string
	}{
		{"small", rgba(640, 480), 80, nil},
		{"header bomb", rgba(60000, 60000), 0, []string{"60000×60000", "at most 1073741824", "16384×16384"}},
		{"grey at the sample limit but over the budget", image.Config{ColorModel: color.GrayModel, Width: 32768, Height: 32768}, 0,
			[]string{"needs 2147483648 bytes", "budget of 1073741824"}},
		{"fits alone, not with the caller's work", rgba(8000, 4000), 68, []string{"8000×4000 png", "scale the image down"}},
	} {
		err := CheckImage("im.png", tc.cfg, "png", tc.extra, budget(1<<30))
		if len(tc.want) == 0 && err != nil {
			t.Errorf("%s: unexpected error %v", tc.name, err)
		}
		if len(tc.want) > 0 && err == nil {
			t.Errorf("%s: no error, want one mentioning %q", tc.name, tc.want)
		}
		for _, f := range tc.want {
			if err != nil && !strings.Contains(err.Error(), f) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, f)
			}
		}
	}
	if err := CheckImage("im.png", rgba(0, 5), "png", 0, nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty image: err = %v", err)
	}
}

func TestDecodeImage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "im.png")
	img := image.NewGray(image.Rect(0, 0, 3, 2))
	img.Pix[4] = 200
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, format, err := DecodeImage(path, nil)
	if err != nil || format != "png" || got.Bounds().Dx() != 3 || got.Bounds().Dy() != 2 {
		t.Fatalf("DecodeImage = %v, %q, %v", got, format, err)
	}
	if g := got.(*image.Gray); g.Pix[4] != 200 {
		t.Errorf("pixel 4 = %d, want 200", g.Pix[4])
	}

	refuse := errors.New("refused")
	var seen image.Config
	_, _, err = DecodeImage(path, &ImageOptions{Check: func(c image.Config, _ string) error { seen = c; return refuse }})
	if !errors.Is(err, refuse) || seen.Width != 3 || seen.Height != 2 {
		t.Errorf("Check saw %dx%d, err = %v", seen.Width, seen.Height, err)
	}

	if _, _, err := DecodeImage(path, &ImageOptions{BytesPerPixel: 24, Memory: budget(100)}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("over the budget: err = %v", err)
	}

	bad := filepath.Join(dir, "bad.png")
	os.WriteFile(bad, []byte("\x89PNG\r\n\x1a\nbroken"), 0o644)
	if _, _, err := DecodeImage(bad, nil); err == nil || !strings.Contains(err.Error(), "not a readable PNG or JPEG") {
		t.Errorf("corrupt file: err = %v", err)
	}
	if _, _, err := DecodeImage(filepath.Join(dir, "missing.png"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}
