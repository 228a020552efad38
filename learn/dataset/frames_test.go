package dataset

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// enc is a dtype and memory order for writeNPY.
type enc struct {
	descr   string
	fortran bool
}

// writeNPY writes a frame file: float64 in C order with WriteNpyFile when
// e is nil, else as e says (npyBytes).
func writeNPY(t *testing.T, dir, name string, shape []int, data []float64, e *enc) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if e != nil {
		return writeBytes(t, dir, name, npyBytes(t, e.descr, e.fortran, shape, data))
	}
	if err := WriteNpyFile(path, &Array{Shape: shape, Data: data}); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeBytes(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ramp returns n² positive values 1..n² in C order.
func ramp(n int) []float64 {
	v := make([]float64, n*n)
	for i := range v {
		v[i] = float64(i + 1)
	}
	return v
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func TestLoadNPYSequenceAnyDType(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw := ramp(4)
	opts := []*enc{{"|u1", true}, {">f4", false}, nil, {"<i8", false}}
	for i, o := range opts {
		writeNPY(t, dir, "array-0"+string(rune('0'+i))+".npy", []int{4, 4}, raw, o)
	}
	writeBytes(t, dir, "image-00.png", []byte("ignored: the default pattern matches the .npy files"))
	set, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Dim() != 2 || set.Side() != 4 || set.N() != 16 || len(set.Sequences) != 1 || set.Dir != dir {
		t.Fatalf("set = %+v", set)
	}
	fr := set.Sequences[0].Frames
	if len(fr) != 4 || filepath.Base(fr[0].Path) != "array-00.npy" || filepath.Base(fr[3].Path) != "array-03.npy" {
		t.Fatalf("frames = %v", set.Files())
	}
	total := sum(raw)
	for _, f := range fr {
		for i, v := range f.Data {
			if want := raw[i] / total; math.Abs(v-want) > 1e-15 {
				t.Fatalf("%s[%d] = %v, want %v", f.Path, i, v, want)
			}
		}
	}
}

func TestLoadSeveralSequences(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, s := range []string{"01", "00"} {
		for _, tt := range []string{"02", "00", "01"} {
			writeNPY(t, dir, "array-"+s+"-"+tt+".npy", []int{3, 3}, ramp(3), nil)
		}
	}
	set, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Sequences) != 2 || set.Sequences[0].ID != "00" || set.Sequences[1].ID != "01" {
		t.Fatalf("sequences = %+v", set.Sequences)
	}
	var names []string
	for _, f := range set.Sequences[1].Frames {
		names = append(names, filepath.Base(f.Path))
	}
	if want := []string{"array-01-00.npy", "array-01-01.npy", "array-01-02.npy"}; !reflect.DeepEqual(names, want) {
		t.Errorf("sequence 01 = %v, want %v", names, want)
	}
	if len(set.Files()) != 6 {
		t.Errorf("Files() = %v", set.Files())
	}
}

func TestLoad3D(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := make([]float64, 27)
	for i := range data {
		data[i] = float64(i % 5)
	}
	for _, name := range []string{"hist-0.npy", "hist-1.npy", "hist-2.npy"} {
		writeNPY(t, dir, name, []int{3, 3, 3}, data, &enc{"<f4", true})
	}
	set, err := Load(dir, &Options{Pattern: "hist-*.npy"})
	if err != nil {
		t.Fatal(err)
	}
	if set.Dim() != 3 || set.N() != 27 || math.Abs(sum(set.Sequences[0].Frames[2].Data)-1) > 1e-15 {
		t.Errorf("set = %+v", set)
	}
	if got, want := set.Sequences[0].Frames[0].Data[7], 2/sum(data); got != want {
		t.Errorf("value [0,2,1] = %v, want %v", got, want)
	}
}

func TestFloor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw := []float64{0, 1, 2, 5}
	for _, name := range []string{"a-0.npy", "a-1.npy", "a-2.npy"} {
		writeNPY(t, dir, name, []int{2, 2}, raw, nil)
	}
	set, err := Load(dir, &Options{Pattern: "a-*.npy", Floor: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	add := 1e-6 * 5 / 4
	total := 8 + 4*add
	for i, v := range set.Sequences[0].Frames[0].Data {
		if want := (raw[i] + add) / total; math.Abs(v-want) > 1e-17 {
			t.Errorf("[%d] = %v, want %v", i, v, want)
		}
	}
	if _, err := Load(dir, &Options{Pattern: "a-*.npy", Floor: math.NaN()}); err == nil || !strings.Contains(err.Error(), "Floor") {
		t.Errorf("NaN floor: err = %v", err)
	}
}

func TestLoadImages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g8 := image.NewGray(image.Rect(0, 0, 3, 3))
	g16 := image.NewGray16(image.Rect(0, 0, 3, 3))
	rgb := image.NewNRGBA(image.Rect(0, 0, 3, 3))
	for i := range 9 {
		x, y := i%3, i/3
		g8.SetGray(x, y, color.Gray{Y: uint8(10 * (i + 1))})
		g16.SetGray16(x, y, color.Gray16{Y: uint16(1000 * (i + 1))})
		rgb.SetNRGBA(x, y, color.NRGBA{R: uint8(30 * i), G: uint8(3 * i), B: 255, A: uint8(100 + i)})
	}
	writeBytes(t, dir, "img-0.png", encodePNG(t, g8))
	writeBytes(t, dir, "img-1.png", encodePNG(t, g16))
	writeBytes(t, dir, "img-2.png", encodePNG(t, rgb))
	set, err := Load(dir, nil) // no array-*.npy: falls back to images
	if err != nil {
		t.Fatal(err)
	}
	fr := set.Sequences[0].Frames
	if len(fr) != 3 || set.Dim() != 2 || set.Side() != 3 {
		t.Fatalf("set = %+v", set)
	}
	for i := range 9 {
		want8 := float64(i+1) / 45 // 10(i+1) / Σ 10(k+1)
		want16 := float64(i+1) / 45
		wantRGB := (float64(30*i+3*i) + 255) / (float64(33*36) + 9*255)
		for k, want := range []float64{want8, want16, wantRGB} {
			if got := fr[k].Data[i]; math.Abs(got-want) > 1e-14 {
				t.Errorf("frame %d pixel %d = %v, want %v", k, i, got, want)
			}
		}
	}
}

func TestLoadJPEG(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	for k := range 3 {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
			t.Fatal(err)
		}
		writeBytes(t, dir, "shot-"+string(rune('a'+k))+".jpg", buf.Bytes())
	}
	set, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range set.Sequences[0].Frames[1].Data {
		if math.Abs(v-1.0/256) > 1e-4 {
			t.Fatalf("value %v, want about 1/256 for a flat image", v)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	good := func(t *testing.T, dir string, names ...string) {
		for _, n := range names {
			writeNPY(t, dir, n, []int{3, 3}, ramp(3), nil)
		}
	}
	validPNG := encodePNG(t, image.NewGray(image.Rect(0, 0, 8, 8)))
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) string // returns the folder to load
		opt     *Options
		want    []string // substrings of the error
		notWant string
	}{
		{"missing folder", func(t *testing.T, dir string) string { return filepath.Join(dir, "nope") }, nil,
			[]string{"folder", "nope", "does not exist"}, ""},
		{"not a folder", func(t *testing.T, dir string) string { return writeBytes(t, dir, "f.npy", nil) }, nil,
			[]string{"f.npy", "is not a folder"}, ""},
		{"no files", func(t *testing.T, dir string) string { writeBytes(t, dir, "notes.txt", nil); return dir }, nil,
			[]string{"has no array-*.npy, *.png, *.jpg, *.jpeg files"}, ""},
		{"folder named like a frame", func(t *testing.T, dir string) string {
			good(t, dir, "array-01.npy", "array-02.npy", "array-03.npy")
			os.Mkdir(filepath.Join(dir, "array-00.npy"), 0o755)
			return dir
		}, nil, []string{"array-00.npy", "is not a regular file (a folder)"}, ""},
		{"FIFO named like a frame", func(t *testing.T, dir string) string {
			good(t, dir, "array-01.npy", "array-02.npy", "array-03.npy")
			if err := syscall.Mkfifo(filepath.Join(dir, "array-00.npy"), 0o644); err != nil {
				t.Skip(err)
			}
			return dir
		}, nil, []string{"array-00.npy", "is not a regular file (a FIFO)"}, ""},
		{"no match", func(t *testing.T, dir string) string { good(t, dir, "array-0.npy"); return dir }, &Options{Pattern: "x-*.npy"},
			[]string{`no file in folder`, `"x-*.npy"`}, ""},
		{"bad pattern", func(t *testing.T, dir string) string { return dir }, &Options{Pattern: "[x"},
			[]string{`pattern "[x"`}, ""},
		{"unsupported extension", func(t *testing.T, dir string) string {
			good(t, dir, "a-0.npy")
			writeBytes(t, dir, "a-1.txt", nil)
			return dir
		},
			&Options{Pattern: "a-*"}, []string{"a-1.txt", `unsupported file type ".txt"`}, ""},
		{"mixed shapes", func(t *testing.T, dir string) string {
			good(t, dir, "array-0.npy", "array-1.npy")
			writeNPY(t, dir, "array-2.npy", []int{4, 4}, ramp(4), nil)
			return dir
		}, nil, []string{"array-2.npy has shape (4, 4) but", "array-0.npy has shape (3, 3)"}, ""},
		{"non-square", func(t *testing.T, dir string) string {
			writeNPY(t, dir, "array-0.npy", []int{3, 4}, make([]float64, 12), nil)
			return dir
		}, nil, []string{"array-0.npy", "(3, 4) is not square"}, ""},
		{"non-cubic", func(t *testing.T, dir string) string {
			writeNPY(t, dir, "array-0.npy", []int{2, 2, 3}, make([]float64, 12), nil)
			return dir
		}, nil, []string{"array-0.npy", "(2, 2, 3) is not cubic"}, ""},
		{"1-D", func(t *testing.T, dir string) string {
			writeNPY(t, dir, "array-0.npy", []int{9}, ramp(3), nil)
			return dir
		}, nil,
			[]string{"array-0.npy", "(9,) is 1-D"}, ""},
		{"4-D", func(t *testing.T, dir string) string {
			writeNPY(t, dir, "array-0.npy", []int{2, 2, 2, 2}, make([]float64, 16), nil)
			return dir
		}, nil, []string{"array-0.npy", "is 4-D"}, ""},
		{"side 1", func(t *testing.T, dir string) string {
			writeNPY(t, dir, "array-0.npy", []int{1, 1}, []float64{1}, nil)
			return dir
		}, nil,
			[]string{"array-0.npy", "too small"}, ""},
		{"negative", func(t *testing.T, dir string) string {
			d := ramp(3)
			d[5] = -0.5
			good(t, dir, "array-0.npy")
			writeNPY(t, dir, "array-1.npy", []int{3, 3}, d, nil)
			return dir
		}, nil, []string{"array-1.npy", "negative value -0.5 at [1, 2]"}, ""},
		{"NaN", func(t *testing.T, dir string) string {
			d := ramp(3)
			d[0] = math.NaN()
			writeNPY(t, dir, "array-0.npy", []int{3, 3}, d, nil)
			return dir
		}, nil, []string{"array-0.npy", "value NaN at [0, 0]", "finite"}, ""},
		{"Inf", func(t *testing.T, dir string) string {
			d := ramp(3)
			d[8] = math.Inf(1)
			writeNPY(t, dir, "array-0.npy", []int{3, 3}, d, &enc{"<f4", false})
			return dir
		}, nil, []string{"array-0.npy", "value +Inf at [2, 2]"}, ""},
		{"all zero", func(t *testing.T, dir string) string {
			good(t, dir, "array-0.npy")
			writeNPY(t, dir, "array-1.npy", []int{3, 3}, make([]float64, 9), &enc{"|u1", false})
			return dir
		}, &Options{Floor: 1e-6}, []string{"array-1.npy", "all values are zero"}, ""},
		{"sum overflows", func(t *testing.T, dir string) string {
			d := make([]float64, 9)
			for i := range d {
				d[i] = 1e308
			}
			writeNPY(t, dir, "array-0.npy", []int{3, 3}, d, nil)
			return dir
		}, nil, []string{"array-0.npy", "sum to +Inf"}, ""},
		{"two frames", func(t *testing.T, dir string) string { good(t, dir, "array-0.npy", "array-1.npy"); return dir }, nil,
			[]string{"the sequence in", "has 2 frame(s); at least 3"}, "sequence 0"},
		{"short second sequence", func(t *testing.T, dir string) string {
			good(t, dir, "array-00-00.npy", "array-00-01.npy", "array-00-02.npy", "array-01-00.npy", "array-01-01.npy")
			return dir
		}, nil, []string{"sequence 01 in", "has 2 frame(s)"}, ""},
		{"min frames option", func(t *testing.T, dir string) string {
			good(t, dir, "array-0.npy", "array-1.npy", "array-2.npy")
			return dir
		},
			&Options{MinFrames: 4}, []string{"has 3 frame(s); at least 4"}, ""},
		{"mixed naming", func(t *testing.T, dir string) string {
			good(t, dir, "array-00-01.npy", "array-01.npy", "array-02.npy")
			return dir
		}, nil,
			[]string{"array-01.npy has 1 numeric", "array-00-01.npy has 2"}, ""},
		{"three numeric fields", func(t *testing.T, dir string) string { good(t, dir, "array-1-2-3.npy"); return dir }, nil,
			[]string{"array-1-2-3.npy", "3 numeric '-' fields"}, ""},
		{"corrupt npy", func(t *testing.T, dir string) string {
			writeBytes(t, dir, "array-0.npy", []byte("hello, world"))
			return dir
		}, nil,
			[]string{"array-0.npy", "invalid .npy format"}, ""},
		{"truncated npy", func(t *testing.T, dir string) string {
			p := writeNPY(t, dir, "array-0.npy", []int{3, 3}, ramp(3), nil)
			b, _ := os.ReadFile(p)
			writeBytes(t, dir, "array-0.npy", b[:len(b)-7])
			return dir
		}, nil, []string{"array-0.npy", "truncated", "needs 72 data bytes, the file has 65"}, ""},
		{"unsupported dtype", func(t *testing.T, dir string) string {
			writeBytes(t, dir, "array-0.npy", rawFile(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1, 1), }           \n", make([]byte, 16)))
			return dir
		}, nil, []string{"array-0.npy", "unsupported .npy dtype", "<c16"}, ""},
		{"corrupt png", func(t *testing.T, dir string) string {
			writeBytes(t, dir, "image-0.png", []byte("\x89PNG\r\n\x1a\ngarbage"))
			return dir
		}, nil,
			[]string{"image-0.png", "not a readable PNG or JPEG"}, ""},
		{"truncated png", func(t *testing.T, dir string) string {
			writeBytes(t, dir, "image-0.png", validPNG[:len(validPNG)-20])
			return dir
		}, nil,
			[]string{"image-0.png", "corrupt or truncated png image"}, ""},
		{"non-square image", func(t *testing.T, dir string) string {
			writeBytes(t, dir, "image-0.png", encodePNG(t, image.NewGray(image.Rect(0, 0, 5, 4))))
			return dir
		}, nil, []string{"image-0.png", "5×4 png image is not square"}, ""},
		{"text named png", func(t *testing.T, dir string) string {
			writeBytes(t, dir, "image-0.png", []byte("not an image"))
			return dir
		}, nil,
			[]string{"image-0.png", "unknown format"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tc.setup(t, t.TempDir())
			_, err := Load(dir, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "dataset: ") {
				t.Errorf("error %q lacks the package prefix", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if tc.notWant != "" && strings.Contains(msg, tc.notWant) {
				t.Errorf("error %q contains %q", msg, tc.notWant)
			}
		})
	}
}

func TestLoadFilesKeepsOrderAndNeedsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"c.npy", "a.npy", "b.npy"} {
		paths = append(paths, writeNPY(t, dir, n, []int{2, 2}, []float64{1, 2, 3, 4}, nil))
	}
	set, err := LoadFiles(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(set.Files(), paths) {
		t.Errorf("Files() = %v, want %v", set.Files(), paths)
	}
	if _, err := LoadFiles(nil, nil); err == nil {
		t.Error("no error for an empty list")
	}
	if _, err := ReadFrame(filepath.Join(dir, "missing.npy"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

// dataDir returns ../shared/data relative to the repository root, or skips.
func dataDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Skip("repository root (go.mod) not found")
		}
		root = parent
	}
	dir := filepath.Join(root, "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("reference data %s absent: %v", dir, err)
	}
	return dir
}

func TestReferenceData(t *testing.T) {
	t.Parallel()
	data := dataDir(t)
	tests := []struct {
		dir    string
		opt    *Options
		shape  []int
		frames int
	}{
		{"toydataF3", nil, []int{50, 50}, 10},
		{"toydataF4", nil, []int{50, 50}, 11},
		{"toydataF6", nil, []int{50, 50}, 10},
		{"toybubble", nil, []int{50, 50}, 9},
		{"seldovia2/hists16", &Options{Pattern: "hist-array-*.npy"}, []int{16, 16, 16}, 10},
		{"country1/hists16", &Options{Pattern: "hist-array-*.npy"}, []int{16, 16, 16}, 10},
	}
	for _, tc := range tests {
		dir := filepath.Join(data, tc.dir)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s absent, skipped", dir)
			continue
		}
		set, err := Load(dir, tc.opt)
		if err != nil {
			t.Errorf("%s: %v", tc.dir, err)
			continue
		}
		if !reflect.DeepEqual(set.Shape, tc.shape) || len(set.Sequences) != 1 || len(set.Sequences[0].Frames) != tc.frames {
			t.Errorf("%s: shape %v, %d sequences, %d frames", tc.dir, set.Shape, len(set.Sequences), len(set.Files()))
			continue
		}
		// Each frame equals the raw file divided by its own sum.
		for _, f := range set.Sequences[0].Frames {
			raw, err := ReadFrame(f.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := sum(raw.Data)
			for i := range raw.Data {
				if want := raw.Data[i] / s; f.Data[i] != want {
					t.Fatalf("%s[%d] = %v, want %v", f.Path, i, f.Data[i], want)
				}
			}
		}
	}
}
