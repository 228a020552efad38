package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/runlog"
)

// writeFrames writes frames (C order, shape [n,n] unless shapes says
// otherwise) as array-XX.npy into a new folder.
func writeFrames(t *testing.T, frames ...*dataset.Array) string {
	t.Helper()
	dir := t.TempDir()
	for k, a := range frames {
		if err := dataset.WriteNpyFile(filepath.Join(dir, fmt.Sprintf("array-%02d.npy", k)), a); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// blob returns a positive n×m frame.
func blob(n, m int) *dataset.Array {
	a := &dataset.Array{Shape: []int{n, m}, Data: make([]float64, n*m)}
	for i := range a.Data {
		a.Data[i] = 1 + math.Sin(0.7*float64(i))
	}
	return a
}

// with returns a copy of a with entry i set to v.
func with(a *dataset.Array, i int, v float64) *dataset.Array {
	b := &dataset.Array{Shape: a.Shape, Data: append([]float64(nil), a.Data...)}
	b.Data[i] = v
	return b
}

// rawNpy writes a .npy file with the given header dictionary and payload.
func rawNpy(t *testing.T, path, dict string, payload []byte) {
	t.Helper()
	hdr := dict
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	b = append(append(b, hdr...), payload...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBadInput checks that every kind of bad input gives a clear message
// naming the file or the option, with exit status 2 for usage errors and 1
// for failures, and never a panic.
func TestBadInput(t *testing.T) {
	good := blob(6, 6)
	zero := &dataset.Array{Shape: []int{6, 6}, Data: make([]float64, 36)}
	valid := writeFrames(t, good, good, good)
	okData := tinyData(t, "1")

	corrupt := writeFrames(t, good, good, good)
	os.WriteFile(filepath.Join(corrupt, "array-01.npy"), []byte("this is not a numpy file at all"), 0o644)
	truncated := writeFrames(t, good, good, good)
	raw, _ := os.ReadFile(filepath.Join(truncated, "array-02.npy"))
	os.WriteFile(filepath.Join(truncated, "array-02.npy"), raw[:len(raw)-40], 0o644)
	complexDir := writeFrames(t, good, good, good)
	rawNpy(t, filepath.Join(complexDir, "array-01.npy"), "{'descr': '<c16', 'fortran_order': False, 'shape': (6, 6), }", make([]byte, 36*16))
	badPNG := t.TempDir()
	for k := range 3 {
		os.WriteFile(filepath.Join(badPNG, fmt.Sprintf("im-%02d.png", k)), []byte("\x89PNG\r\n\x1a\nbroken"), 0o644)
	}
	emptyDir := t.TempDir()

	wrongMetric := filepath.Join(t.TempDir(), "m.npy")
	dataset.WriteNpyFile(wrongMetric, &dataset.Array{Shape: []int{2, 36}, Data: make([]float64, 72)})
	negMetric := filepath.Join(t.TempDir(), "neg.npy")
	m := &dataset.Array{Shape: []int{2, 64}, Data: make([]float64, 128)}
	for i := range m.Data {
		m.Data[i] = 1
	}
	m.Data[70] = -2
	dataset.WriteNpyFile(negMetric, m)

	learnOn := func(dir string, extra ...string) []string {
		return append(append([]string{"learn", dir, "-o", filepath.Join(t.TempDir(), "run"), "--progress", "none"}, tinyModel...), extra...)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"missing folder", learnOn("/nonexistent/gmlg-data"), 1, []string{"/nonexistent/gmlg-data", "does not exist"}},
		{"no matching files", learnOn(emptyDir), 1, []string{emptyDir}},
		{"pattern matches nothing", learnOn(valid, "--pattern", "frame-*.npy"), 1, []string{"frame-*.npy"}},
		{"mixed shapes", learnOn(writeFrames(t, good, blob(5, 5), good)), 1, []string{"array-01.npy", "same shape"}},
		{"non-square", learnOn(writeFrames(t, blob(6, 5), blob(6, 5), blob(6, 5))), 1, []string{"array-00.npy", "not square"}},
		{"negative value", learnOn(writeFrames(t, good, with(good, 7, -0.5), good)), 1, []string{"array-01.npy", "negative"}},
		{"NaN", learnOn(writeFrames(t, good, good, with(good, 3, math.NaN()))), 1, []string{"array-02.npy", "finite"}},
		{"Inf", learnOn(writeFrames(t, with(good, 0, math.Inf(1)), good, good)), 1, []string{"array-00.npy", "finite"}},
		{"all-zero frame", learnOn(writeFrames(t, good, zero, good)), 1, []string{"array-01.npy", "zero"}},
		{"two frames", learnOn(writeFrames(t, good, good)), 1, []string{"2 frame", "at least 3"}},
		{"corrupt npy", learnOn(corrupt), 1, []string{"array-01.npy"}},
		{"truncated npy", learnOn(truncated), 1, []string{"array-02.npy", "trunc"}},
		{"unsupported dtype", learnOn(complexDir), 1, []string{"array-01.npy", "c16"}},
		{"corrupt png", learnOn(badPNG), 1, []string{"im-00.png", "PNG"}},
		{"t zero", learnOn(valid, "--t", "0"), 2, []string{"--t"}},
		{"t negative", learnOn(valid, "--t", "-1e-3"), 2, []string{"--t"}},
		{"t NaN", learnOn(valid, "--t", "NaN"), 2, []string{"--t"}},
		{"steps zero", learnOn(valid, "--steps", "0"), 2, []string{"--steps"}},
		{"sinkhorn iterations zero", learnOn(valid, "--sinkhorn-iters", "0"), 2, []string{"--sinkhorn-iters"}},
		{"lambda-s negative", learnOn(valid, "--lambda-s", "-1"), 2, []string{"--lambda-s"}},
		{"lambda-c NaN", learnOn(valid, "--lambda-c", "NaN"), 2, []string{"--lambda-c"}},
		{"max-iter zero", learnOn(valid, "--max-iter", "0"), 2, []string{"--max-iter"}},
		{"save-every zero", learnOn(valid, "--save-every", "0"), 2, []string{"--save-every"}},
		{"unknown loss", learnOn(valid, "--loss", "l3"), 2, []string{"--loss", "l3"}},
		{"unknown metric kind", learnOn(valid, "--metric", "tensor"), 2, []string{"--metric"}},
		{"unknown backend", learnOn(valid, "--backend", "magic"), 2, []string{"--backend", "magic"}},
		{"unknown scheme", learnOn(valid, "--scheme", "rk4"), 2, []string{"--scheme"}},
		{"not a number", learnOn(valid, "--t", "fast"), 2, []string{"-t"}},
		{"no folder", []string{"learn"}, 2, []string{"DIR"}},
		{"two folders", []string{"learn", valid, valid}, 2, []string{"one data folder"}},
		{"init shape mismatch", learnOn(okData, "--init", wrongMetric), 1, []string{"--init", wrongMetric, "want (2, 64)"}},
		{"init negative", learnOn(okData, "--init", negMetric), 1, []string{negMetric, "positive"}},
		{"adjoint empty", learnOn(okData, "--mode", "fast", "--adjoint", ""), 2, []string{"--adjoint", `unknown solver ""`}},
		{"eval metric mismatch", []string{"eval", okData, "--metric-file", wrongMetric, "-o", filepath.Join(t.TempDir(), "e")}, 1, []string{wrongMetric, "shape (2, 36)"}},
		{"eval metric missing", []string{"eval", okData, "--metric-file", "/nonexistent/m.npy", "-o", filepath.Join(t.TempDir(), "e")}, 1, []string{"/nonexistent/m.npy"}},
		{"interp metric mismatch", []string{"interp", okData, "--metric-file", wrongMetric, "-o", filepath.Join(t.TempDir(), "i")}, 1, []string{wrongMetric}},
		{"interp one file", []string{"interp", filepath.Join(okData, "array-00.npy")}, 2, []string{"array-00.npy", "SOURCE and TARGET"}},
		{"interp zero histogram", []string{"interp", filepath.Join(writeFrames(t, zero), "array-00.npy"), filepath.Join(valid, "array-00.npy")}, 1, []string{"array-00.npy", "zero"}},
		{"interp shapes differ", []string{"interp", filepath.Join(valid, "array-00.npy"), filepath.Join(okData, "array-00.npy")}, 1, []string{"shape"}},
		{"interp method", []string{"interp", "--method", "cubic", okData}, 2, []string{"--method"}},
		{"interp metric without metric", []string{"interp", "--method", "metric", okData}, 2, []string{"--run"}},
		{"resume not a run", []string{"learn", "--resume", emptyDir}, 1, []string{emptyDir, "not a run folder"}},
		{"resume with DIR", []string{"learn", "--resume", emptyDir, valid}, 2, []string{"--resume"}},
		{"render not a run", []string{"render", emptyDir}, 1, []string{emptyDir}},
		{"synth n", []string{"synth", "--n", "2", "-o", filepath.Join(t.TempDir(), "s")}, 2, []string{"--n"}},
		{"synth sequences", []string{"synth", "--sequences", "9", "-o", filepath.Join(t.TempDir(), "s")}, 2, []string{"--sequences"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := expectRun(t, tc.args, tc.code, tc.want)
			if strings.Contains(strings.ToLower(errs), "nan result") {
				t.Errorf("stderr:\n%s", errs)
			}
		})
	}
}

// TestCorruptCheckpoint checks that --resume rejects a damaged checkpoint
// with a message naming it.
func TestCorruptCheckpoint(t *testing.T) {
	data := tinyData(t, "1")
	runDir := filepath.Join(t.TempDir(), "run")
	mustGmlg(t, learnArgs(data, runDir, "--max-iter", "2")...)
	path := filepath.Join(runDir, runlog.CheckpointName)
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, raw[:len(raw)/2], 0o644)
	code, _, errs := gmlg(t, context.Background(), "learn", "--resume", runDir, "--max-iter", "4")
	if code != 1 || !strings.Contains(errs, path) {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
}

// TestResumeDataChanged checks that --resume refuses to continue on frames
// that changed since the run started, and that --init starts from a metric
// file (here the run's own result, so F starts where the run ended).
func TestResumeDataChanged(t *testing.T) {
	data := tinyData(t, "1")
	runDir := filepath.Join(t.TempDir(), "run")
	mustGmlg(t, learnArgs(data, runDir, "--max-iter", "2")...)

	again := filepath.Join(t.TempDir(), "again")
	mustGmlg(t, learnArgs(data, again, "--max-iter", "1", "--init", filepath.Join(runDir, "metric.npy"))...)
	var p runlog.Record
	readJSON(t, filepath.Join(again, "params.json"), &p)
	var r1, r2 runlog.Result
	readJSON(t, filepath.Join(runDir, "result.json"), &r1)
	readJSON(t, filepath.Join(again, "result.json"), &r2)
	if p.Optimizer.Init != filepath.Join(runDir, "metric.npy") || !(r2.F <= r1.F) {
		t.Errorf("--init: params %q, F %v after one more iteration from a run that ended at %v", p.Optimizer.Init, r2.F, r1.F)
	}

	frame := filepath.Join(data, "array-01.npy")
	a := readNpy(t, frame)
	a.Data[5] *= 2
	if err := dataset.WriteNpyFile(frame, a); err != nil {
		t.Fatal(err)
	}
	code, _, errs := gmlg(t, context.Background(), "learn", "--resume", runDir, "--max-iter", "4")
	if code != 1 || !strings.Contains(errs, "changed") || !strings.Contains(errs, data) {
		t.Errorf("resume on changed data: exit %d, stderr:\n%s", code, errs)
	}
}
