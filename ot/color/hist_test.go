package color

import (
	"errors"
	"fmt"
	"image"
	stdcolor "image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"codeberg.org/sbinet/npyio"
)

// dataDir returns <repo root>/../shared/data, or skips the test when it is
// absent. The repo root is the nearest ancestor holding go.mod.
func dataDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("color: no go.mod above the test directory; reference data not located")
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", "data")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("reference data %s absent (%v); skipping", d, err)
	}
	return d
}

func readPNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

func readNpy32(t testing.TB, path string) []float32 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var v []float32
	if err := npyio.Read(f, &v); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return v
}

// TestHistogramReference checks the DropSaturated (compatibility) mode
// bitwise against the reference's stored float32 histograms (docs/method.md,
// "Data formats": the recomputation is bitwise identical for seldovia2 and
// country1). The
// sorted PNGs pair with hist-array-000, 001, … in order.
func TestHistogramReference(t *testing.T) {
	data := dataDir(t)
	for _, set := range []string{"seldovia2", "country1"} {
		pngs, err := filepath.Glob(filepath.Join(data, set, "*.png"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(pngs)
		if len(pngs) == 0 {
			t.Fatalf("%s: no PNG files", set)
		}
		for k, p := range pngs {
			if testing.Short() && k > 0 {
				break
			}
			t.Run(fmt.Sprintf("%s/%s", set, filepath.Base(p)), func(t *testing.T) {
				want := readNpy32(t, filepath.Join(data, set, "hists16", fmt.Sprintf("hist-array-%03d.npy", k)))
				got, err := Histogram(readPNG(t, p), &HistOptions{Bins: 16, DropSaturated: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("len %d, want %d", len(got), len(want))
				}
				bad := 0
				for i := range want {
					if math.Float32bits(float32(got[i])) != math.Float32bits(want[i]) || float64(float32(got[i])) != got[i] {
						if bad < 5 {
							t.Errorf("bin %d: got %.9g, want %.9g", i, got[i], want[i])
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d bins differ", bad, len(want))
				}
			})
		}
	}
}

// TestPairwiseSum32 checks the emulated numpy pairwise sum against a float64
// sum (close) and against hand-built structure: for n ≤ 128 the 8 partial
// sums must be combined in the fixed tree order.
func TestPairwiseSum32(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 100, 128, 129, 255, 4096, 29791} {
		x := make([]float32, n)
		var exact float64
		for i := range x {
			x[i] = float32(1 + 0.5*math.Sin(0.37*float64(i)))
			exact += float64(x[i])
		}
		got := float64(pairwiseSum32(x))
		if math.Abs(got-exact) > 1e-6*math.Max(1, exact) {
			t.Errorf("n=%d: pairwise %v, float64 %v", n, got, exact)
		}
	}
	// A case where the order matters: 1 + 16 copies of 2^-24·... Emulate by
	// hand: for n = 16, r[j] = x[j] + x[j+8].
	x := []float32{1 << 24, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	// r0 = 2^24+1 → 2^24 (ties to even); r1..r7 = 2; tree: (2^24+2)+(4)+(4+4)...
	r := [8]float32{}
	for j := range 8 {
		r[j] = x[j] + x[j+8]
	}
	want := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
	var seq float32
	for _, v := range x {
		seq += v
	}
	if got := pairwiseSum32(x); got != want {
		t.Errorf("n=16 tree order: got %v, want %v", got, want)
	}
	if want == seq {
		t.Errorf("test input does not distinguish pairwise (%v) from sequential summation (%v)", want, seq)
	}
}

func TestCountsModes(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 1))
	img.SetNRGBA(0, 0, stdcolor.NRGBA{0, 0, 0, 255})
	img.SetNRGBA(1, 0, stdcolor.NRGBA{255, 10, 10, 255})
	img.SetNRGBA(2, 0, stdcolor.NRGBA{254, 128, 16, 255})
	img.SetNRGBA(3, 0, stdcolor.NRGBA{255, 255, 255, 255})
	const n = 16
	tests := []struct {
		drop bool
		want map[int]float32
	}{
		{false, map[int]float32{
			Index(0, 0, 0, n): 1, Index(15, 0, 0, n): 1,
			Index(15, 8, 1, n): 1, Index(15, 15, 15, n): 1,
		}},
		{true, map[int]float32{Index(0, 0, 0, n): 1, Index(15, 8, 1, n): 1}},
	}
	for _, tc := range tests {
		h := Counts(img, n, tc.drop)
		for i, v := range h {
			if v != tc.want[i] {
				t.Errorf("drop=%v: bin %d = %v, want %v", tc.drop, i, v, tc.want[i])
			}
		}
	}
	// The same image as *image.RGBA and as a generic image give the same counts.
	rgba := image.NewRGBA(img.Bounds())
	gray := image.NewGray(img.Bounds())
	for x := range 4 {
		rgba.Set(x, 0, img.At(x, 0))
		gray.Set(x, 0, img.At(x, 0))
	}
	a, b := Counts(img, n, false), Counts(rgba, n, false)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("RGBA path differs from NRGBA at bin %d", i)
		}
	}
	if g := Counts(gray, n, false); g[Index(0, 0, 0, n)] != 1 {
		t.Errorf("generic path: black pixel not counted")
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		name  string
		in    []float32
		empty bool
	}{
		{"nil", nil, true},
		{"zeros", make([]float32, 8), true},
		{"negative", []float32{1, -1}, false},
		{"nan", []float32{1, float32(math.NaN())}, false},
		{"inf", []float32{1, float32(math.Inf(1))}, false},
	}
	for _, tc := range tests {
		_, err := Normalize(tc.in)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if errors.Is(err, ErrEmpty) != tc.empty {
			t.Errorf("%s: errors.Is(ErrEmpty) = %v, want %v (%v)", tc.name, !tc.empty, tc.empty, err)
		}
	}
	h, err := Normalize([]float32{3, 0, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	var s float64
	for _, v := range h {
		if v <= 0 {
			t.Errorf("bin without floor: %v", h)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-6 {
		t.Errorf("sum %v", s)
	}
}
