package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	imgcolor "image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn/dataset"
)

// crashText are fragments that only a Go panic or a runtime fatal error
// prints; no command may print them, whatever its input.
var crashText = []string{"panic:", "goroutine ", "fatal error"}

// checkNoCrash fails t when output holds a panic or runtime error trace.
func checkNoCrash(t *testing.T, output string) {
	t.Helper()
	for _, c := range crashText {
		if strings.Contains(output, c) {
			t.Errorf("output holds %q:\n%s", c, output)
		}
	}
}

// expectRun runs gmlg with args and checks its exit status, that its output
// (stdout and stderr) holds every fragment of want, and that nothing
// crashed. It returns stderr.
func expectRun(t *testing.T, args []string, code int, want []string) string {
	t.Helper()
	got, stdout, stderr := gmlg(t, context.Background(), args...)
	t.Logf("exit %d: %s", got, stderr)
	all := stdout + stderr
	if got != code {
		t.Errorf("exit %d, want %d; stderr:\n%s", got, code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("output does not mention %q:\n%s", w, all)
		}
	}
	checkNoCrash(t, all)
	return stderr
}

// filledMetric writes a [rows, cols] float64 metric whose values are all v
// except entry bad, which is badV (bad < 0: none).
func filledMetric(t *testing.T, path string, rows, cols int, v float64, bad int, badV float64) string {
	t.Helper()
	a := &dataset.Array{Shape: []int{rows, cols}, Data: make([]float64, rows*cols)}
	for i := range a.Data {
		a.Data[i] = v
	}
	if bad >= 0 {
		a.Data[bad] = badV
	}
	if err := dataset.WriteNpyFile(path, a); err != nil {
		t.Fatal(err)
	}
	return path
}

// colourFrames writes three n×n RGB PNG frames whose colours differ (red
// to blue across the picture) and returns their folder.
func colourFrames(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for k := range 3 {
		img := image.NewNRGBA(image.Rect(0, 0, n, n))
		for i := range n * n {
			x, y := i%n, i/n
			img.SetNRGBA(x, y, imgcolor.NRGBA{R: uint8(40 + 20*x + 10*k), G: uint8(30 + 5*y), B: uint8(200 - 20*x), A: 255})
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("im-%02d.png", k)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runWithMetric copies the files of the learn run folder src into a new
// folder, replacing metric.npy with a [rows,cols] metric filled with v
// (entry bad set to badV), and returns the copy.
func runWithMetric(t *testing.T, src string, rows, cols int, v float64, bad int, badV float64) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	filledMetric(t, filepath.Join(dst, "metric.npy"), rows, cols, v, bad, badV)
	return dst
}

// TestEveryCommandBadInput runs every command on bad input (and on the
// edge cases of good input) and checks the exit status (0 success, 1
// failure, 2 usage error), that the output names the file or the option at
// fault, and that nothing crashes with a panic or a runtime error.
func TestEveryCommandBadInput(t *testing.T) {
	data := tinyData(t, "1") // 2-D, side 8, 4 frames
	run := filepath.Join(t.TempDir(), "run")
	mustGmlg(t, learnArgs(data, run, "--max-iter", "1")...)
	tmp := t.TempDir()
	huge := filledMetric(t, filepath.Join(tmp, "huge.npy"), 2, 64, 1e300, -1, 0)
	big := filledMetric(t, filepath.Join(tmp, "big.npy"), 2, 64, 1, 5, 1e14)
	wide := runWithMetric(t, run, 3, 64, 1, -1, 0)
	nan := runWithMetric(t, run, 2, 64, 1, 9, math.NaN())
	colour := colourFrames(t, 8)
	frame := filepath.Join(data, "array-00.npy")
	out := func(name string) string { return filepath.Join(tmp, name) }

	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // fragments of stdout + stderr
	}{
		{"synth n 3", []string{"synth", "--n", "3", "-o", out("s3")}, 2, []string{"--n", "at least 4"}},
		{"synth n 4", []string{"synth", "--n", "4", "--frames", "3", "-o", out("s4")}, 0, []string{"4×4"}},
		{"synth n 5", []string{"synth", "--n", "5", "--frames", "3", "-o", out("s5")}, 0, []string{"5×5"}},
		{"synth t 1e308", []string{"synth", "--t", "1e308", "-o", out("st")}, 2, []string{"--t 1e+308", "too large", "t ≤"}},
		{"synth argument", []string{"synth", "extra"}, 2, []string{"extra"}},
		{"learn t 1e308", learnArgs(data, out("lt"), "--t", "1e308"), 2, []string{"--t 1e+308", "too large", "t ≤"}},
		{"learn init 1e300", learnArgs(data, out("li"), "--init", huge), 1, []string{"--init", huge, "too large", "must be ≤"}},
		{"learn colour frames", learnArgs(colour, out("lc"), "--max-iter", "1"), 0, []string{"im-00.png", "frames are colour images", "--preset colour"}},
		{"learn no folder", []string{"learn"}, 2, []string{"DIR"}},
		{"interp metric 1e300", []string{"interp", "--metric-file", huge, data, "-o", out("ih")}, 1, []string{huge, "too large", "must be ≤"}},
		{"interp t 1e308", []string{"interp", "--t", "1e308", data, "-o", out("it")}, 2, []string{"--t 1e+308", "too large"}},
		{"interp no input", []string{"interp"}, 2, []string{"interp"}},
		{"eval metric 1e300", []string{"eval", data, "--metric-file", huge, "-o", out("eh")}, 1, []string{huge, "too large", "must be ≤"}},
		{"eval metric 1e14", []string{"eval", data, "--metric-file", big, "-o", out("eb")}, 1, []string{big, "largest value 1e+14"}},
		{"eval t 1e308", []string{"eval", data, "--t", "1e308", "-o", out("et")}, 2, []string{"--t 1e+308", "too large"}},
		{"eval colour frames", []string{"eval", colour, "--lambda-s", "0.01", "-o", out("ec")}, 0, []string{"im-00.png", "frames are colour images"}},
		{"render metric (3,64)", []string{"render", wide}, 1, []string{filepath.Join(wide, "metric.npy"), "shape (3, 64)"}},
		{"render NaN metric", []string{"render", nan}, 1, []string{filepath.Join(nan, "metric.npy"), "NaN"}},
		{"render two folders", []string{"render", run, run}, 2, []string{"one folder"}},
		{"render not a folder", []string{"render", frame}, 1, []string{frame}},
		{"colorlearn t 1e308", []string{"colorlearn", "-t", "1e308", colour}, 2, []string{"-t 1e+308", "too large"}},
		{"colorlearn no folder", []string{"colorlearn"}, 2, []string{"missing the data folder"}},
		{"sunset one image", []string{"sunset", filepath.Join(colour, "im-00.png")}, 2, []string{"day and a night"}},
		{"transfer one image", []string{"transfer", filepath.Join(colour, "im-00.png")}, 2, []string{"source"}},
		{"bench argument", []string{"bench", "extra"}, 2, []string{"extra"}},
		{"bench row", []string{"bench", "-rows", "9"}, 2, []string{"9"}},
		{"version", []string{"version"}, 0, []string{"gmlg ", "backends", " CPUs, ", " threads (GOMAXPROCS", "solves on ", "on a team of up to "}},
		{"version argument", []string{"version", "extra"}, 2, []string{"extra"}},
		{"help", []string{"help"}, 0, []string{"commands:"}},
		{"help learn", []string{"help", "learn"}, 0, []string{"usage: gmlg learn"}},
		{"help unknown command", []string{"help", "nosuchcmd"}, 2, []string{"nosuchcmd", "unknown command"}},
		{"unknown command", []string{"nosuchcmd"}, 2, []string{"nosuchcmd", "unknown command"}},
		{"no command", nil, 2, []string{"commands:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectRun(t, tc.args, tc.code, tc.want)
		})
	}
}

// TestColourWarningOnce checks that learn on colour frames warns exactly
// once per run, and that grey frames give no warning.
func TestColourWarningOnce(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		name string
		dir  string
		want int
	}{
		{"colour", colourFrames(t, 8), 1},
		{"grey", tinyData(t, "1"), 0},
	} {
		_, _, stderr := gmlg(t, context.Background(), learnArgs(tc.dir, filepath.Join(tmp, tc.name), "--max-iter", "1")...)
		if got := strings.Count(stderr, "frames are colour images"); got != tc.want {
			t.Errorf("%s frames: %d warnings, want %d; stderr:\n%s", tc.name, got, tc.want, stderr)
		}
	}
}
