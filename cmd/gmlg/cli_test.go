package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/sparsechol"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/runlog"
)

// The tests drive run in-process on tiny problems (8×8 grids, 5 kernel
// steps, 10 Sinkhorn iterations) with the pure-Go backend, so that they do
// not depend on CHOLMOD and stay fast.

// tinyModel are the model options shared by the tiny tests.
var tinyModel = []string{"--t", "1e-2", "--steps", "5", "--sinkhorn-iters", "10", "--backend", "go", "--threads", "2"}

// gmlg runs one command in-process and returns its status and outputs.
func gmlg(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// watchedStderr is the standard error of one in-process command that
// reacts to its progress output as a user at the terminal would: on is
// called once, with the first write that match accepts (one progress line:
// the commands write each with one call), after the write. It is safe for
// concurrent use.
type watchedStderr struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	match func(line string) bool
	on    func()
	fired bool
}

func (w *watchedStderr) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	fire := !w.fired && w.match(string(p))
	w.fired = w.fired || fire
	w.mu.Unlock()
	if fire {
		w.on()
	}
	return len(p), nil
}

// String returns what was written so far.
func (w *watchedStderr) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// gmlgWatched runs one command in-process with stderr w and returns its
// status and what it wrote to stderr.
func gmlgWatched(ctx context.Context, w *watchedStderr, args ...string) (int, string) {
	var out bytes.Buffer
	code := run(ctx, args, &out, w)
	return code, w.String()
}

// learnIterationLine reports whether line is learn's structured log line
// (--progress log) of an accepted iteration, of iteration iter when
// iter > 0.
func learnIterationLine(line string, iter int) bool {
	if iter > 0 {
		return strings.Contains(line, fmt.Sprintf("msg=iteration iter=%d ", iter))
	}
	return strings.Contains(line, "msg=iteration ")
}

// mustGmlg runs a command that must succeed.
func mustGmlg(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := gmlg(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("gmlg %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// tinyData writes a tiny synthetic dataset and returns its folder.
func tinyData(t *testing.T, sequences string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	mustGmlg(t, append([]string{"synth", "-o", dir, "--n", "8", "--frames", "4", "--sequences", sequences}, tinyModel...)...)
	return dir
}

// learnArgs are the arguments of a tiny learning run.
func learnArgs(data, out string, extra ...string) []string {
	a := append([]string{"learn", data, "-o", out, "--lambda-s", "0.01", "--progress", "none"}, tinyModel...)
	return append(a, extra...)
}

func readNpy(t *testing.T, path string) *dataset.Array {
	t.Helper()
	a, err := dataset.ReadNpyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range a.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: non-finite value %v at %d", path, v, i)
		}
	}
	return a
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func mustExist(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() == 0 {
			t.Fatalf("%s is empty", p)
		}
	}
}

func sameShape(t *testing.T, a *dataset.Array, want ...int) {
	t.Helper()
	if dataset.ShapeString(a.Shape) != dataset.ShapeString(want) {
		t.Fatalf("shape %v, want %v", a.Shape, want)
	}
}

// TestEndToEnd runs synth → learn → render → interp → eval and checks that
// every promised file exists and parses, and that eval at the learned metric
// gives the F that learn reported.
func TestEndToEnd(t *testing.T) {
	for _, tc := range []struct{ name, seqs, metric string }{
		{"one-sequence-vertex", "1", "vertex"},
		{"two-sequences-edge", "2", "edge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tinyData(t, tc.seqs)
			mustExist(t, filepath.Join(data, "a-metric.npy"), filepath.Join(data, "a-metric.png"), filepath.Join(data, "frames.png"), filepath.Join(data, "params.json"))
			sameShape(t, readNpy(t, filepath.Join(data, "a-metric.npy")), 2, 64)
			runDir := filepath.Join(t.TempDir(), "run")
			out := mustGmlg(t, learnArgs(data, runDir, "--max-iter", "3", "--save-every", "2", "--metric", tc.metric)...)
			if !strings.Contains(out, filepath.Join(runDir, "metric.png")) {
				t.Errorf("learn does not say where the pictures are:\n%s", out)
			}
			for _, f := range []string{"params.json", "log.txt", "checkpoint.gob", "result.json", "loss.npy", "loss.png",
				"metric.npy", "metric.png", "metric-0001.npy", "metric-0001.png", "metric-0002.npy", "metric-0003.npy", "recs.png"} {
				mustExist(t, filepath.Join(runDir, f))
			}
			sameShape(t, readNpy(t, filepath.Join(runDir, "metric.npy")), 2, 64)
			loss := readNpy(t, filepath.Join(runDir, "loss.npy"))
			sameShape(t, loss, 3)
			var res runlog.Result
			readJSON(t, filepath.Join(runDir, "result.json"), &res)
			if res.Iterations != 3 || res.F != loss.Data[2] {
				t.Errorf("result.json: %d iterations, F = %v; loss.npy ends with %v", res.Iterations, res.F, loss.Data[2])
			}
			if res.TruthCorrelation == nil || math.IsNaN(*res.TruthCorrelation) {
				t.Error("result.json lacks the correlation with the true metric of the synthetic data")
			}
			mustExist(t, filepath.Join(runDir, "metric-vs-truth.png"))
			if !(loss.Data[2] < loss.Data[0]) {
				t.Errorf("the loss did not decrease: %v", loss.Data)
			}
			var p runlog.Record
			readJSON(t, filepath.Join(runDir, "params.json"), &p)
			if p.Model.Metric != tc.metric || p.Kernel.Backend != "go" || p.Kernel.NNZL <= 0 || p.Kernel.Kernels != sparsechol.SolveKernels() ||
				p.Data.Checksum == "" || p.Version == "" {
				t.Errorf("params.json lacks settings: %+v", p)
			}
			want := "" // OpenBLAS's kernels where backend go factorises on them
			if kernel.OnBLAS("go") {
				want = kernel.BLAS().Core
			}
			if p.Kernel.BLAS != want {
				t.Errorf("params.json: BLAS %q, want %q", p.Kernel.BLAS, want)
			}
			if tc.metric == "edge" {
				// Padded layout: no horizontal edge leaves the last column.
				m := readNpy(t, filepath.Join(runDir, "metric.npy"))
				if m.Data[7] != 0 || m.Data[64+56] != 0 || m.Data[0] <= 0 {
					t.Errorf("edge metric not padded as docs/method.md, \"Edge metric\" says: %v %v %v", m.Data[0], m.Data[7], m.Data[64+56])
				}
			}
			recs, _ := filepath.Glob(filepath.Join(runDir, "rec-*.npy"))
			if want := 4 * len(p.Data.Sequences); len(recs) != want {
				t.Errorf("%d reconstruction files, want %d", len(recs), want)
			}
			sameShape(t, readNpy(t, recs[0]), 8, 8)

			// render redraws every picture.
			os.Remove(filepath.Join(runDir, "metric.png"))
			os.Remove(filepath.Join(runDir, "recs.png"))
			mustGmlg(t, "render", runDir)
			mustExist(t, filepath.Join(runDir, "metric.png"), filepath.Join(runDir, "recs.png"), filepath.Join(runDir, "loss.png"))
			os.Remove(filepath.Join(data, "frames.png"))
			mustGmlg(t, "render", data)
			mustExist(t, filepath.Join(data, "frames.png"))

			// interp with the learned metric, a uniform one, linearly, and from two files.
			for _, method := range []string{"metric", "uniform", "linear"} {
				dir := filepath.Join(t.TempDir(), method)
				mustGmlg(t, "interp", data, "--run", runDir, "--method", method, "--frames", "5", "-o", dir, "--backend", "go")
				mustExist(t, filepath.Join(dir, "interp.png"))
				for j := range 5 {
					a := readNpy(t, filepath.Join(dir, "interp-0"+string(rune('0'+j))+".npy"))
					sameShape(t, a, 8, 8)
				}
				mustGmlg(t, "render", dir)
			}
			first, last := filepath.Join(data, "array-00.npy"), filepath.Join(data, "array-03.npy")
			if tc.seqs != "1" {
				first, last = filepath.Join(data, "array-01-00.npy"), filepath.Join(data, "array-01-03.npy")
			}
			dir := filepath.Join(t.TempDir(), "files")
			mustGmlg(t, append([]string{"interp", first, last, "-o", dir, "--frames", "3"}, tinyModel...)...)
			sameShape(t, readNpy(t, filepath.Join(dir, "interp-02.npy")), 8, 8)

			// eval at the learned metric reproduces learn's final F.
			evalDir := filepath.Join(t.TempDir(), "eval")
			mustGmlg(t, "eval", "--run", runDir, "-o", evalDir)
			var ev evalParams
			readJSON(t, filepath.Join(evalDir, "eval.json"), &ev)
			if d := math.Abs(ev.Result.F - res.F); d > 1e-9*math.Abs(res.F) {
				t.Errorf("eval at metric.npy gives F = %.17g, learn reported %.17g", ev.Result.F, res.F)
			}
			g := readNpy(t, filepath.Join(evalDir, "grad.npy"))
			sameShape(t, g, 2, 64)
			sq := 0.0
			for _, v := range g.Data {
				sq += v * v
			}
			if math.Abs(math.Sqrt(sq)-res.GradNorm) > 1e-6*res.GradNorm {
				t.Errorf("‖grad.npy‖ = %v, learn's final ‖g‖ = %v", math.Sqrt(sq), res.GradNorm)
			}
		})
	}
}

// TestEvalUniform checks eval's default (uniform) metric and its output.
func TestEvalUniform(t *testing.T) {
	data := tinyData(t, "1")
	dir := filepath.Join(t.TempDir(), "eval")
	out := mustGmlg(t, append([]string{"eval", data, "-o", dir, "--lambda-s", "0"}, tinyModel...)...)
	var ev evalParams
	readJSON(t, filepath.Join(dir, "eval.json"), &ev)
	if !strings.Contains(out, "F = ") || !(ev.Result.F > 0) || ev.Result.F != ev.Result.Data || ev.MetricFile != "ones" {
		t.Errorf("eval output %q, result %+v", out, ev.Result)
	}
	// --skip-endpoints leaves the poles out of the data term.
	mustGmlg(t, append([]string{"eval", data, "-o", dir, "--force", "--lambda-s", "0", "--skip-endpoints"}, tinyModel...)...)
	var skip evalParams
	readJSON(t, filepath.Join(dir, "eval.json"), &skip)
	pf, all := skip.Result.PerFrame[0], ev.Result.PerFrame[0]
	if pf[0] != 0 || pf[3] != 0 || pf[1] != all[1] || !(all[0] > 0) || !skip.Model.SkipEndpoints {
		t.Errorf("--skip-endpoints: per-frame losses %v, without it %v", pf, all)
	}
}

// TestHelp checks that every command documents its options with defaults.
func TestHelp(t *testing.T) {
	for name := range commands {
		code, out, _ := gmlg(t, context.Background(), "help", name)
		if code != 0 || !strings.Contains(out, "usage: gmlg "+name) {
			t.Errorf("help %s: exit %d, %q", name, code, out)
		}
	}
	code, _, errs := gmlg(t, context.Background(), "learn", "-h")
	for _, opt := range []string{"-t ", "-steps", "-sinkhorn-iters", "-loss", "-lambda-c", "-lambda-s", "-metric", "-max-iter",
		"-save-every", "-backend", "-threads", "-scheme", "-smooth", "-init", "-out", "-force", "-resume", "-pattern", "(default 0.01)", "(default 500)"} {
		if !strings.Contains(errs, opt) {
			t.Errorf("learn -h does not mention %q", opt)
		}
	}
	if code != 0 {
		t.Errorf("learn -h: exit %d", code)
	}
	if code, _, _ := gmlg(t, context.Background(), "nosuchcommand"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

// TestInterleavedFlags checks that options may follow the positional
// arguments, and that "--" ends the options.
func TestInterleavedFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  string
		max  int
	}{
		{[]string{"DIR", "--max-iter", "7"}, "DIR", 7},
		{[]string{"--max-iter", "7", "DIR"}, "DIR", 7},
		{[]string{"--", "--max-iter"}, "--max-iter", 500},
	} {
		fs := newFlagSet(commands["learn"], &bytes.Buffer{})
		commands["learn"].setup(fs)
		pos, err := parseInterleaved(fs, tc.args)
		if err != nil || len(pos) != 1 || pos[0] != tc.pos || fs.Lookup("max-iter").Value.String() != strconvItoa(tc.max) {
			t.Errorf("%v: positional %v, max-iter %s, err %v", tc.args, pos, fs.Lookup("max-iter").Value, err)
		}
	}
}

func strconvItoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// Test3D runs learn, eval, interp and render on 3-D histograms ([n,n,n]
// frames, float32 on disk), which the pictures show as projections.
func Test3D(t *testing.T) {
	const n = 4
	var fr []*dataset.Array
	for k := range 3 {
		a := &dataset.Array{Shape: []int{n, n, n}, Data: make([]float64, n*n*n)}
		for i := range a.Data {
			a.Data[i] = 1e-3 + math.Exp(-float64((i%n-k)*(i%n-k)+(i/n%n-1)*(i/n%n-1)+(i/(n*n)-k)*(i/(n*n)-k)))
		}
		fr = append(fr, a)
	}
	data := writeFrames(t, fr...)
	runDir := filepath.Join(t.TempDir(), "run")
	mustGmlg(t, append([]string{"learn", data, "-o", runDir, "--max-iter", "2", "--lambda-s", "0.01", "--progress", "none"}, tinyModel...)...)
	sameShape(t, readNpy(t, filepath.Join(runDir, "metric.npy")), 3, n*n*n)
	sameShape(t, readNpy(t, filepath.Join(runDir, "rec-01.npy")), n, n, n)
	mustExist(t, filepath.Join(runDir, "metric.png"), filepath.Join(runDir, "recs.png"))
	mustGmlg(t, "render", runDir)
	evalDir := filepath.Join(t.TempDir(), "eval")
	mustGmlg(t, "eval", "--run", runDir, "-o", evalDir)
	sameShape(t, readNpy(t, filepath.Join(evalDir, "grad.npy")), 3, n*n*n)
	interpDir := filepath.Join(t.TempDir(), "interp")
	mustGmlg(t, "interp", "--run", runDir, data, "-o", interpDir, "--frames", "3")
	sameShape(t, readNpy(t, filepath.Join(interpDir, "interp-01.npy")), n, n, n)
}
