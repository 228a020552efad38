package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	stdcolor "image/color"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/color"
)

// colorTestRun runs gmlg with args and returns the exit status and stderr.
func colorTestRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stderr.String()
}

// colorTestFrames writes k small synthetic frames of a "sunset": a
// gradient whose colours move from bright warm to dark blue.
func colorTestFrames(t *testing.T, dir string, k int) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for f := range k {
		s := float64(f) / float64(k-1)
		img := image.NewNRGBA(image.Rect(0, 0, 24, 16))
		for y := range 16 {
			for x := range 24 {
				u := float64(x) / 23
				v := float64(y) / 15
				r := (1-s)*(0.6+0.4*u) + s*0.1*u
				g := (1-s)*(0.3+0.5*v) + s*0.15
				b := (1-s)*0.2*v + s*(0.3+0.4*v)
				img.SetNRGBA(x, y, stdcolor.NRGBA{uint8(r * 255), uint8(g * 255), uint8(b * 255), 255})
			}
		}
		path := filepath.Join(dir, "frame_"+string(rune('a'+f))+".png")
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(fh, img); err != nil {
			t.Fatal(err)
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	return files
}

func colorTestNpy(t *testing.T, path string) *dataset.Array {
	t.Helper()
	a, err := dataset.ReadNpyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestColorLearnResume learns a few iterations at n = 4, checks the run
// directory, and checks that an interrupted run resumed from its checkpoint
// ends exactly where an uninterrupted one does.
func TestColorLearnResume(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 4)
	common := []string{"--bins", "4", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01", "-save-every", "2", "--progress=none"}

	full := filepath.Join(tmp, "full")
	if code, msg := colorTestRun(t, append(append([]string{"colorlearn"}, common...), "--max-iter", "3", "-o", full, data)...); code != 0 {
		t.Fatalf("colorlearn: exit %d: %s", code, msg)
	}
	for _, f := range []string{"params.json", "metric.npy", "metric-0001.npy", "metric-0002.npy", "metric-0003.npy",
		"metric-0001.png", "recs.png", "loss.npy", "loss.png", "checkpoint.gob"} {
		if _, err := os.Stat(filepath.Join(full, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	m := colorTestNpy(t, filepath.Join(full, "metric.npy"))
	if len(m.Shape) != 2 || m.Shape[0] != 3 || m.Shape[1] != 64 {
		t.Fatalf("metric shape %v, want [3 64]", m.Shape)
	}
	for i, v := range m.Data {
		if !(v > 0) || math.IsInf(v, 0) {
			t.Fatalf("metric[%d] = %v, want positive and finite", i, v)
		}
	}
	loss := colorTestNpy(t, filepath.Join(full, "loss.npy"))
	if len(loss.Data) != 3 || !(loss.Data[2] < loss.Data[0]) {
		t.Errorf("loss = %v, want 3 decreasing values", loss.Data)
	}
	params := colorTestRecord(t, full)
	if d := params.Data; d.Kind != runlog.Colour || d.Bins != 4 || d.Vertices != 64 || params.Model.Steps != 3 || len(d.Files) != 4 || d.Checksum == "" {
		t.Errorf("params.json = %+v", params)
	}

	part := filepath.Join(tmp, "part")
	if code, msg := colorTestRun(t, append(append([]string{"colorlearn"}, common...), "--max-iter", "2", "-o", part, data)...); code != 0 {
		t.Fatalf("colorlearn (first part): exit %d: %s", code, msg)
	}
	// A run directory in use (here held by the test itself) is refused.
	held, err := rundir.Open(part, []rundir.Spec{learnSpec}, rundir.Options{Holder: "gmlg test"})
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := colorTestRun(t, "colorlearn", "--resume", part, "--max-iter", "3", "--progress=none"); code != 1 || !strings.Contains(msg, fmt.Sprintf("process %d", os.Getpid())) {
		t.Errorf("locked run directory: exit %d (%s), want 1 and the holder's process id", code, msg)
	}
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	// A second start without -resume must refuse to overwrite the run.
	if code, _ := colorTestRun(t, append(append([]string{"colorlearn"}, common...), "--max-iter", "3", "-o", part, data)...); code != 1 {
		t.Errorf("restart without -resume: exit %d, want 1", code)
	}
	if code, msg := colorTestRun(t, "colorlearn", "--resume", part, "--max-iter", "3", "--progress=none"); code != 0 {
		t.Fatalf("colorlearn --resume: exit %d: %s", code, msg)
	}
	m2 := colorTestNpy(t, filepath.Join(part, "metric.npy"))
	for i := range m.Data {
		if m.Data[i] != m2.Data[i] {
			t.Fatalf("resumed metric[%d] = %v, uninterrupted %v", i, m2.Data[i], m.Data[i])
		}
	}
	// Resuming a finished run only writes the final snapshot (here the
	// existing one at iteration 3 is kept; remove it to see it rewritten).
	// --resume alone keeps the run's own iteration count, now 3.
	snap := filepath.Join(part, "metric-0003.npy")
	if err := os.Remove(snap); err != nil {
		t.Fatal(err)
	}
	if code, msg := colorTestRun(t, "colorlearn", "--resume", part, "--progress=none"); code != 0 {
		t.Fatalf("colorlearn --resume of a finished run: exit %d: %s", code, msg)
	}
	m3 := colorTestNpy(t, snap)
	for i := range m.Data {
		if m.Data[i] != m3.Data[i] {
			t.Fatalf("re-written snapshot metric[%d] = %v, want %v", i, m3.Data[i], m.Data[i])
		}
	}
	// Resuming with different settings is a usage error naming them.
	if code, msg := colorTestRun(t, "colorlearn", "-t", "2e-2", "--max-iter", "4", "--resume", part, "--progress=none"); code != 2 || !strings.Contains(msg, "--t cannot") {
		t.Errorf("resume with another t: exit %d (%s), want 2 and a message naming --t", code, msg)
	}

	// sunset with the learned metric, prolonged 4 → 7.
	day, night := filepath.Join(data, "frame_a.png"), filepath.Join(data, "frame_d.png")
	sun := filepath.Join(tmp, "sun")
	if code, msg := colorTestRun(t, "sunset", "--run", full, "-prolong", "1", "-frames", "3", "--transfer-iters", "20", "--progress=none", "-o", sun, day, night); code != 0 {
		t.Fatalf("sunset: exit %d: %s", code, msg)
	}
	colorCheckSunset(t, sun, 3, 7)
	if _, err := os.Stat(filepath.Join(sun, "metric.png")); err != nil {
		t.Errorf("sunset with a learned metric: %v", err)
	}

	// A heat time or a metric too large for the heat matrix on the
	// prolonged grid is refused, naming the flag or the file.
	huge := filepath.Join(tmp, "huge.npy")
	hm := colorTestNpy(t, filepath.Join(full, "metric.npy"))
	hm.Data[0] = 1e300
	if err := dataset.WriteNpyFile(huge, hm); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-t", "1e308"}, 2, "--t 1e+308 is too large"},
		{[]string{"--metric-file", huge}, 1, "metric file " + huge},
	} {
		args := append([]string{"sunset", "--run", full, "-prolong", "1", "-frames", "3", "--progress=none", "-o", filepath.Join(tmp, "sun-bad")}, c.args...)
		if code, msg := colorTestRun(t, append(args, day, night)...); code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("sunset %v: exit %d (%s), want %d and %q", c.args, code, msg, c.code, c.want)
		}
		if _, err := os.Stat(filepath.Join(tmp, "sun-bad")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("sunset %v left its refused output folder behind (%v)", c.args, err)
		}
	}

	// The same from the checkpoint's current point gives the same frames.
	sun2 := filepath.Join(tmp, "sun2")
	if code, msg := colorTestRun(t, "sunset", "--run", full, "--metric-file", filepath.Join(full, "checkpoint.gob"), "-prolong", "1",
		"-frames", "3", "--transfer-iters", "20", "--progress=none", "-o", sun2, day, night); code != 0 {
		t.Fatalf("sunset -metric checkpoint.gob: exit %d: %s", code, msg)
	}
	a := colorTestNpy(t, filepath.Join(sun, "interp-hist-01.npy"))
	b := colorTestNpy(t, filepath.Join(sun2, "interp-hist-01.npy"))
	for i := range a.Data {
		if a.Data[i] != b.Data[i] {
			t.Fatalf("frame 1 bin %d: %v from metric.npy, %v from the checkpoint", i, a.Data[i], b.Data[i])
		}
	}
}

// colorCheckSunset checks the outputs of a sunset run with nf frames at
// nHi bins: images of the day image's size, histograms of unit mass, LUTs
// that parse back.
func colorCheckSunset(t *testing.T, dir string, nf, nHi int) {
	t.Helper()
	for f := range nf {
		tag := string(rune('0'+f/10)) + string(rune('0'+f%10))
		fh, err := os.Open(filepath.Join(dir, "frame-"+tag+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 24 || b.Dy() != 16 {
			t.Errorf("frame %d is %v, want 24×16", f, b)
		}
		h := colorTestNpy(t, filepath.Join(dir, "interp-hist-"+tag+".npy"))
		if len(h.Shape) != 3 || h.Shape[0] != nHi {
			t.Errorf("histogram %d has shape %v, want [%d %d %d]", f, h.Shape, nHi, nHi, nHi)
		}
		mass := 0.0
		for _, v := range h.Data {
			mass += v
		}
		if math.Abs(mass-1) > 0.05 {
			t.Errorf("histogram %d has mass %v", f, mass)
		}
		lut, err := os.ReadFile(filepath.Join(dir, "lut-"+tag+".cube"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := color.ReadCube(bytes.NewReader(lut))
		if err != nil {
			t.Fatalf("lut %d: %v", f, err)
		}
		if c.Size != nHi || len(c.Table) != 3*nHi*nHi*nHi {
			t.Errorf("lut %d: size %d with %d values, want %d", f, c.Size, len(c.Table), 3*nHi*nHi*nHi)
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), lut) {
			t.Errorf("lut %d does not round-trip through ReadCube and WriteTo", f)
		}
	}
	for _, f := range []string{"hists.png", "frames.png", "params.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
}

// TestColorSunsetMethods runs the Euclidean and linear interpolations; the
// linear frame at t = 0.5 must be the average of the end histograms.
func TestColorSunsetMethods(t *testing.T) {
	tmp := t.TempDir()
	files := colorTestFrames(t, filepath.Join(tmp, "data"), 2)
	for _, method := range []string{"euclid", "linear"} {
		out := filepath.Join(tmp, method)
		code, msg := colorTestRun(t, "sunset", "-method", method, "--bins", "5", "-prolong", "1", "-frames", "3", "-gamma", "0.01",
			"--sinkhorn-iters", "20", "--transfer-iters", "20", "-interpolate", "--progress=none", "-o", out, files[0], files[1])
		if code != 0 {
			t.Fatalf("sunset -method %s: exit %d: %s", method, code, msg)
		}
		colorCheckSunset(t, out, 3, 9)
	}
	h0 := colorTestNpy(t, filepath.Join(tmp, "linear", "interp-hist-00.npy"))
	h1 := colorTestNpy(t, filepath.Join(tmp, "linear", "interp-hist-01.npy"))
	h2 := colorTestNpy(t, filepath.Join(tmp, "linear", "interp-hist-02.npy"))
	for i := range h1.Data {
		if want := 0.5*h0.Data[i] + 0.5*h2.Data[i]; math.Abs(h1.Data[i]-want) > 1e-15 {
			t.Fatalf("linear midpoint[%d] = %v, want %v", i, h1.Data[i], want)
		}
	}
}

// TestColorTransferSelf transfers an image onto its own colours: with the
// interpolated correction it changes by less than one grey level on average.
func TestColorTransferSelf(t *testing.T) {
	tmp := t.TempDir()
	files := colorTestFrames(t, filepath.Join(tmp, "data"), 3)
	out := filepath.Join(tmp, "out")
	code, msg := colorTestRun(t, "transfer", "--bins", "16", "--transfer-iters", "20", "--transfer-sigma", "0.01", "-interpolate", "--progress=none", "-o", out,
		files[0], files[0])
	if code != 0 {
		t.Fatalf("transfer: exit %d: %s", code, msg)
	}
	out2 := filepath.Join(tmp, "out2")
	code, msg = colorTestRun(t, "transfer", "--bins", "16", "--transfer-iters", "100", "--progress=none", "-o", out2, files[0], files[2])
	if code != 0 {
		t.Fatalf("transfer: exit %d: %s", code, msg)
	}
	read := func(p string) image.Image {
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		img, err := png.Decode(fh)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	orig, self, other := read(files[0]), read(filepath.Join(out, "transfer-00.png")), read(filepath.Join(out2, "transfer-00.png"))
	diff := func(a, b image.Image) float64 {
		s := 0.0
		bb := a.Bounds()
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				r1, g1, b1, _ := a.At(x, y).RGBA()
				r2, g2, b2, _ := b.At(x, y).RGBA()
				s += math.Abs(float64(r1>>8)-float64(r2>>8)) + math.Abs(float64(g1>>8)-float64(g2>>8)) + math.Abs(float64(b1>>8)-float64(b2>>8))
			}
		}
		return s / float64(3*bb.Dx()*bb.Dy())
	}
	if d := diff(orig, self); d >= 1 {
		t.Errorf("self transfer changed the image by %.3g grey levels on average, want < 1", d)
	}
	if d := diff(orig, other); d < 10 {
		t.Errorf("transfer from the night frame changed the image by only %.3g grey levels", d)
	}
	if _, err := os.Stat(filepath.Join(out2, "transfers.png")); err != nil {
		t.Errorf("missing strip: %v", err)
	}
	for _, f := range []string{filepath.Join(out, "lut-00.cube"), filepath.Join(out2, "lut-00.cube")} {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := color.ReadCube(fh)
		fh.Close()
		if err != nil || c.Size != 16 {
			t.Errorf("%s: %v (size %v), want a 16³ LUT", f, err, c)
		}
	}
}

// TestColorBadInput checks that bad input gives usage errors (exit 2) or
// failures (exit 1) with a message, never a panic.
func TestColorBadInput(t *testing.T) {
	tmp := t.TempDir()
	two := filepath.Join(tmp, "two")
	files := colorTestFrames(t, two, 2)
	notImage := filepath.Join(tmp, "notimage.png")
	if err := os.WriteFile(notImage, []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	badMetric := filepath.Join(tmp, "badrun")
	if err := os.MkdirAll(badMetric, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteChecked(filepath.Join(badMetric, "params.json"), runlog.Record{Command: "learn",
		Data: runlog.Data{Kind: runlog.Colour, Bins: 4}, Model: runlog.DefaultModel()}); err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteNpyFile(filepath.Join(badMetric, "metric.npy"), &dataset.Array{Shape: []int{3, 27}, Data: make([]float64, 81)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"colorlearn without dir", []string{"colorlearn"}, 2, "missing the data folder"},
		{"colorlearn missing dir", []string{"colorlearn", "--progress=none", filepath.Join(tmp, "nope")}, 1, "no such file"},
		{"colorlearn too few images", []string{"colorlearn", "--progress=none", "-o", filepath.Join(tmp, "o1"), two}, 1, "at least 3 images"},
		{"colorlearn n=1", []string{"colorlearn", "--bins", "1", two}, 2, "--bins"},
		{"colorlearn resume of a missing run", []string{"colorlearn", "--progress=none", "--resume", filepath.Join(tmp, "o2")}, 1, "no such file"},
		{"colorlearn resume with a folder", []string{"colorlearn", "--resume", filepath.Join(tmp, "o2"), two}, 2, "do not also give DIR"},
		{"colorlearn resume with -o", []string{"colorlearn", "--resume", filepath.Join(tmp, "o2"), "-o", two}, 2, "-o cannot be given with --resume"},
		{"colorlearn bad flag", []string{"colorlearn", "-bogus", two}, 2, ""},
		{"colorlearn fast with -store", []string{"colorlearn", "-mode", "fast", "-store", two}, 2, "exact mode only"},
		{"colorlearn unknown mode", []string{"colorlearn", "-mode", "quick", two}, 2, "unknown mode"},
		{"sunset one image", []string{"sunset", files[0]}, 2, "day and a night"},
		{"sunset learned without run", []string{"sunset", "-method", "learned", files[0], files[1]}, 2, "-run"},
		{"sunset unknown method", []string{"sunset", "-method", "cubic", files[0], files[1]}, 2, "-method"},
		{"sunset not an image", []string{"sunset", "-method", "linear", "--bins", "4", "--progress=none", notImage, files[1]}, 1, "decode"},
		{"sunset metric of the wrong shape", []string{"sunset", "--run", badMetric, "--progress=none", files[0], files[1]}, 1, "shape"},
		{"sunset frames=1", []string{"sunset", "-frames", "1", files[0], files[1]}, 2, "-frames"},
		{"transfer one image", []string{"transfer", files[0]}, 2, "source"},
		{"transfer missing source", []string{"transfer", "--progress=none", "--bins", "4", "-o", filepath.Join(tmp, "o3"), files[0], filepath.Join(tmp, "nope.png")}, 1, "no such file"},
		{"transfer bad sigma", []string{"transfer", "--transfer-sigma", "-1", files[0], files[1]}, 2, "--transfer-sigma"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := colorTestRun(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr: %s)", code, tc.code, msg)
			}
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("stderr %q does not mention %q", msg, tc.msg)
			}
		})
	}
}

// colorRepoData returns the reference data directory ../shared/data seen
// from the repository root, or skips the test.
func colorRepoData(t *testing.T) string {
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
			t.Skip("repository root (go.mod) not found")
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(data, "country1", "video29.png")); err != nil {
		t.Skipf("reference data not available at %s (../shared/data from the repository root): %v", data, err)
	}
	return data
}

// TestColorSunsetReferenceData runs a small linear sunset on country1's
// first and last frames and checks that the night end darkens the day image.
func TestColorSunsetReferenceData(t *testing.T) {
	if testing.Short() {
		t.Skip("reference images are large")
	}
	data := colorRepoData(t)
	out := t.TempDir()
	code, msg := colorTestRun(t, "sunset", "-method", "linear", "--bins", "8", "-prolong", "0", "-frames", "2", "--transfer-iters", "50",
		"-drop-saturated", "--progress=none", "-o", out,
		filepath.Join(data, "country1", "video29.png"), filepath.Join(data, "country1", "video38.png"))
	if code != 0 {
		t.Fatalf("sunset: exit %d: %s", code, msg)
	}
	mean := func(p string) float64 {
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		img, err := png.Decode(fh)
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		s := 0.0
		for y := b.Min.Y; y < b.Max.Y; y += 4 {
			for x := b.Min.X; x < b.Max.X; x += 4 {
				r, g, bb, _ := img.At(x, y).RGBA()
				s += float64(r+g+bb) / 3
			}
		}
		return s
	}
	day, night := mean(filepath.Join(out, "frame-00.png")), mean(filepath.Join(out, "frame-01.png"))
	if !(night < 0.8*day) {
		t.Errorf("the night frame (brightness %g) is not darker than the day frame (%g)", night, day)
	}
}

// TestColorLearnResumeRewritesMetric checks that a resumed run with no
// iteration left writes the final point's metric.npy when its snapshot is
// missing, not the empty buffer of an invocation that took no step.
func TestColorLearnResumeRewritesMetric(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 3)
	out := filepath.Join(tmp, "run")
	if code, msg := colorTestRun(t, "colorlearn", "--bins", "3", "--t", "1e-2", "--steps", "2", "--sinkhorn-iters", "5",
		"--lambda-s", "0.01", "--max-iter", "2", "--progress=none", "-o", out, data); code != 0 {
		t.Fatalf("colorlearn: exit %d: %s", code, msg)
	}
	want := colorTestNpy(t, filepath.Join(out, "metric.npy")).Data
	if err := os.Remove(filepath.Join(out, "metric-0002.npy")); err != nil {
		t.Fatal(err)
	}
	if code, msg := colorTestRun(t, "colorlearn", "--resume", out, "--progress=none"); code != 0 {
		t.Fatalf("colorlearn --resume: exit %d: %s", code, msg)
	}
	got := colorTestNpy(t, filepath.Join(out, "metric.npy")).Data
	if !slices.Equal(got, want) {
		t.Errorf("metric.npy after the resume = %v, want %v", got, want)
	}
}
