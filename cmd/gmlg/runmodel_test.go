package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunModel: interp and eval given a fast-mode run use its model
// (converged Sinkhorn at the run's tolerance) and say so, unless a flag
// overrides it; eval's F at the run's metric is then the run's final F.
// render names the model its folder's files were computed with.
func TestRunModel(t *testing.T) {
	data := tinyData(t, "1")
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	mustGmlg(t, learnArgs(data, run, "--max-iter", "3", "--mode", "fast", "--tol", "1e-10")...)
	var res struct{ F float64 }
	readJSON(t, filepath.Join(run, "result.json"), &res)
	fromRun := "(from " + filepath.Join(run, "params.json") + ")"
	out := func(name string) string { return filepath.Join(dir, name) }
	cases := []struct {
		name  string
		args  []string
		line  string
		file  string // the result compared with the fast model's; empty: none
		match bool   // whether it equals the fast model's
	}{
		{"eval run", []string{"eval", "--run", run, "-o", out("e1")}, "model: fast, tol 1e-10 " + fromRun, "e1", true},
		{"eval exact flag", []string{"eval", "--run", run, "--mode", "exact", "-o", out("e2")}, "model: exact, L=10 (flags)", "e2", false},
		{"interp run", []string{"interp", "--run", run, data, "-o", out("i1")}, "model: fast, tol 1e-10 " + fromRun, "i1", true},
		{"interp tol flag", []string{"interp", "--run", run, data, "--tol", "1e-3", "-o", out("i2")}, "model: fast, tol 0.001 (flags)", "i2", false},
		{"interp exact flag", []string{"interp", "--run", run, data, "--mode", "exact", "-o", out("i3")}, "model: exact, L=10 (flags)", "i3", false},
		{"render run", []string{"render", run}, "model: fast, tol 1e-10 " + fromRun, "", false},
		{"render fast interp", []string{"render", out("i1")}, "model: fast, tol 1e-10 (from " + filepath.Join(out("i1"), "params.json") + ")", "", false},
		{"render exact interp", []string{"render", out("i3")}, "model: exact, L=10 (from " + filepath.Join(out("i3"), "params.json") + ")", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout := mustGmlg(t, c.args...)
			if !strings.Contains(stdout, c.line+"\n") {
				t.Fatalf("stdout %q lacks the line %q", stdout, c.line)
			}
			var same bool
			switch {
			case c.file == "":
				return
			case c.args[0] == "eval":
				var ev struct{ Result struct{ F float64 } }
				readJSON(t, filepath.Join(out(c.file), "eval.json"), &ev)
				same = math.Abs(ev.Result.F-res.F) <= 1e-7*math.Abs(res.F)
				t.Logf("eval F = %.17g, run's F = %.17g", ev.Result.F, res.F)
			default:
				got := readNpy(t, filepath.Join(out(c.file), "interp-05.npy")).Data
				want := readNpy(t, filepath.Join(out("i1"), "interp-05.npy")).Data
				same = maxAbsDiff(got, want) <= 1e-12
			}
			if same != c.match {
				t.Errorf("result equals the fast model's: %v, want %v", same, c.match)
			}
		})
	}
}

// maxAbsDiff is the largest |a[i]−b[i]|.
func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestSunsetRunModel: sunset interpolates a fast colour run's metric
// with converged Sinkhorn at the run's tolerance and says so; --mode exact
// chooses the run's L iterations instead.
func TestSunsetRunModel(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 3)
	run := filepath.Join(tmp, "run")
	if code, msg := colorTestRun(t, "colorlearn", "-mode", "fast", "-tol", "1e-9", "--bins", "4", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10",
		"-lambda-s", "0.01", "--max-iter", "2", "--progress=none", "-o", run, data); code != 0 {
		t.Fatalf("colorlearn -mode fast: exit %d: %s", code, msg)
	}
	day, night := filepath.Join(data, "frame_a.png"), filepath.Join(data, "frame_c.png")
	fromRun := "(from " + filepath.Join(run, "params.json") + ")"
	cases := []struct {
		name  string
		args  []string
		line  string
		exact bool // whether the frames are the exact model's
	}{
		{"run", nil, "model: fast, tol 1e-09 " + fromRun, false},
		{"mode exact", []string{"-mode", "exact"}, "model: exact, L=10 (flags)", true},
	}
	hist := make([][]float64, len(cases))
	for i, c := range cases {
		out := filepath.Join(tmp, fmt.Sprint("sun", i))
		args := append([]string{"sunset", "--run", run, "-prolong", "0", "-frames", "3", "--transfer-iters", "5", "-o", out}, c.args...)
		code, msg := colorTestRun(t, append(args, day, night)...)
		if code != 0 {
			t.Fatalf("sunset %v: exit %d: %s", c.args, code, msg)
		}
		if !strings.Contains(msg, c.line+"\n") {
			t.Errorf("sunset %v: log %q lacks the line %q", c.args, msg, c.line)
		}
		hist[i] = colorTestNpy(t, filepath.Join(out, "interp-hist-01.npy")).Data
	}
	for i, c := range cases {
		if same := maxAbsDiff(hist[i], hist[1]) == 0; same != c.exact {
			t.Errorf("%s: frames equal the exact model's: %v, want %v", c.name, same, c.exact)
		}
	}
}
