package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLearnFastMode: --mode fast learns, records its Sinkhorn work in
// result.json and params.json, and reaches about the objective of exact mode
// (evaluated in exact mode with gmlg eval at its final metric).
func TestLearnFastMode(t *testing.T) {
	data := tinyData(t, "2")
	dir := t.TempDir()
	exact, fast := filepath.Join(dir, "exact"), filepath.Join(dir, "fast")
	mustGmlg(t, learnArgs(data, exact, "--max-iter", "8", "--skip-endpoints")...)
	mustGmlg(t, learnArgs(data, fast, "--max-iter", "8", "--skip-endpoints", "--mode", "fast", "--tol", "1e-9")...)
	var res struct {
		F    float64
		Fast *struct{ Sinkhorn, Adjoint, Evals int }
	}
	readJSON(t, filepath.Join(fast, "result.json"), &res)
	if res.Fast == nil || res.Fast.Sinkhorn == 0 || res.Fast.Adjoint == 0 || res.Fast.Evals == 0 {
		t.Fatalf("result.json lacks the fast-mode totals: %+v", res.Fast)
	}
	var params struct{ Model struct{ Mode string } }
	readJSON(t, filepath.Join(fast, "params.json"), &params)
	if params.Model.Mode != "fast" {
		t.Errorf("params.json records mode %q, want fast", params.Model.Mode)
	}
	var fe, ff struct{ F float64 }
	ev := func(run, out string) {
		mustGmlg(t, append([]string{"eval", data, "--metric-file", filepath.Join(run, "metric.npy"), "-o", out,
			"--lambda-s", "0.01", "--skip-endpoints"}, tinyModel...)...)
	}
	ev(exact, filepath.Join(dir, "eval-exact"))
	ev(fast, filepath.Join(dir, "eval-fast"))
	readJSON(t, filepath.Join(dir, "eval-exact", "eval.json"), &fe)
	readJSON(t, filepath.Join(dir, "eval-fast", "eval.json"), &ff)
	if ff.F > 1.1*fe.F {
		t.Errorf("fast mode's metric scores F=%.6g in exact mode, exact mode's %.6g", ff.F, fe.F)
	}
	// --metric-file takes the run's checkpoint as well: the same metric.
	var fc struct{ F float64 }
	mustGmlg(t, append([]string{"eval", data, "--metric-file", filepath.Join(fast, "checkpoint.gob"), "-o", filepath.Join(dir, "eval-ck"),
		"--lambda-s", "0.01", "--skip-endpoints"}, tinyModel...)...)
	readJSON(t, filepath.Join(dir, "eval-ck", "eval.json"), &fc)
	if fc.F != ff.F {
		t.Errorf("eval of the checkpoint: F = %.17g, of metric.npy %.17g", fc.F, ff.F)
	}
	code, _, errs := gmlg(t, t.Context(), learnArgs(data, filepath.Join(dir, "bad"), "--mode", "turbo")...)
	if code != 2 || !strings.Contains(errs, "--mode") {
		t.Errorf("--mode turbo: exit %d, %q", code, errs)
	}
}

// TestLearnCoarse: --coarse K learns the starting metric coarse to fine
// (one "warm-up level" record per level, coarsest first), starts the fine run
// from it (so its first iterate differs from the uniform start's), is
// recorded in params.json, is skipped by --resume, and is refused outside
// fast mode or together with --init.
func TestLearnCoarse(t *testing.T) {
	data := tinyData(t, "2")
	dir := t.TempDir()
	plain, coarse := filepath.Join(dir, "plain"), filepath.Join(dir, "coarse")
	fast := []string{"--max-iter", "2", "--skip-endpoints", "--mode", "fast"}
	mustGmlg(t, learnArgs(data, plain, fast...)...)
	mustGmlg(t, learnArgs(data, coarse, append(fast, "--coarse", "2", "--coarse-iters", "3")...)...)
	var params struct {
		Optimizer struct {
			Coarse      int `json:"coarse"`
			CoarseIters int `json:"coarse_iters"`
		}
	}
	readJSON(t, filepath.Join(coarse, "params.json"), &params)
	if params.Optimizer.Coarse != 2 || params.Optimizer.CoarseIters != 3 {
		t.Errorf("params.json records %+v, want coarse 2, coarse_iters 3", params.Optimizer)
	}
	logText := func() string {
		b, err := os.ReadFile(filepath.Join(coarse, "log.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lg := logText()
	i2, i4 := strings.Index(lg, `msg="warm-up level" grid="[2 2]"`), strings.Index(lg, `msg="warm-up level" grid="[4 4]"`)
	if i2 < 0 || i4 < i2 || strings.Count(lg, `msg="warm-up level"`) != 2 {
		t.Errorf("log.txt lacks the coarse levels 2² then 4²:\n%s", lg)
	}
	lp, lc := readNpy(t, filepath.Join(plain, "loss.npy")), readNpy(t, filepath.Join(coarse, "loss.npy"))
	if lp.Data[0] == lc.Data[0] {
		t.Errorf("first iterate F = %v with and without --coarse: the coarse metric was not used", lc.Data[0])
	}
	mustGmlg(t, "learn", "--resume", coarse, "--max-iter", "3", "--progress", "none")
	if n := strings.Count(logText(), `msg="coarse start"`); n != 1 {
		t.Errorf("--resume ran the coarse levels again (%d coarse starts in log.txt)", n)
	}
	for _, bad := range [][]string{
		{"--coarse", "1"}, // exact mode
		{"--mode", "fast", "--coarse", "1", "--init", filepath.Join(plain, "metric.npy")},
		{"--mode", "fast", "--coarse", "1", "--coarse-iters", "0"},
	} {
		code, _, errs := gmlg(t, t.Context(), learnArgs(data, filepath.Join(dir, "bad"), bad...)...)
		if code != 2 || !strings.Contains(errs, "--coarse") {
			t.Errorf("%v: exit %d, %q", bad, code, errs)
		}
	}
}

// TestLearnWarmUp: --warm-steps S' --warm-iters K learns the coarse level
// and then K iterations on the data's grid with S' heat steps before the
// finest level with --steps: result.json reports the three levels with
// their grids and steps, iterations.tsv the warm-up's iterations on the
// data's grid as their own level, the metric files are the finest level's
// (loss.npy: its iterations only), the log shows the warm-up's first
// iterations, --resume on the finest level skips the warm-up, and
// settings without a cheaper kernel, outside fast mode or with a heat time
// too large for the warm-up's steps are refused naming the option.
func TestLearnWarmUp(t *testing.T) {
	data := tinyData(t, "2")
	dir := t.TempDir()
	run := filepath.Join(dir, "warm")
	mustGmlg(t, learnArgs(data, run, "--max-iter", "3", "--skip-endpoints", "--mode", "fast",
		"--coarse", "1", "--coarse-iters", "2", "--warm-steps", "2", "--warm-iters", "2")...)
	var res struct {
		Levels []struct {
			Grid       []int
			Steps      int
			Iterations int
		}
	}
	readJSON(t, filepath.Join(run, "result.json"), &res)
	got := fmt.Sprint(res.Levels)
	if want := "[{[4 4] 2 2} {[8 8] 2 2} {[8 8] 5 3}]"; got != want {
		t.Errorf("result.json levels (grid, steps, iterations) %s, want %s", got, want)
	}
	raw, err := os.ReadFile(filepath.Join(run, "iterations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var levels []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		f := strings.Split(line, "\t")
		levels = append(levels, f[0]+":"+f[1])
	}
	if got, want := strings.Join(levels, " "), "0:4 0:4 1:8 1:8 2:8 2:8 2:8"; got != want {
		t.Errorf("iterations.tsv levels:n %s, want %s", got, want)
	}
	if loss := readNpy(t, filepath.Join(run, "loss.npy")); len(loss.Data) != 3 {
		t.Errorf("loss.npy holds %d values, want the finest level's 3", len(loss.Data))
	}
	mustGmlg(t, "learn", "--resume", run, "--max-iter", "4", "--progress", "none")
	lg, err := os.ReadFile(filepath.Join(run, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(lg), `msg="warm start"`); n != 1 {
		t.Errorf("%d warm starts in log.txt after --resume, want 1", n)
	}
	// The warm-up shows its first iteration and every 25th (none here).
	if n := strings.Count(string(lg), `msg="warm-up iteration" iter=1 `); n != 2 || !strings.Contains(string(lg), " warm_level=1\n") {
		t.Errorf("log.txt shows %d first warm-up iterations, want one per warm-up level:\n%s", n, lg)
	}
	for _, bad := range []struct {
		args []string
		flag string
	}{
		{[]string{"--mode", "fast", "--warm-steps", "5", "--warm-iters", "2"}, "--warm-steps 5 must be below --steps 5"},
		{[]string{"--mode", "fast", "--warm-iters", "2"}, "--warm-iters"},
		{[]string{"--mode", "fast", "--warm-steps", "2"}, "--warm-steps needs --coarse or --warm-iters"},
		{[]string{"--warm-steps", "2", "--warm-iters", "2"}, "--warm-steps needs --mode fast"},
		// (t/steps)·(n−1)²·2d stays ≤ 1e12 with 5 steps on 8², not with 1.
		{[]string{"--mode", "fast", "--t", "1e10", "--warm-steps", "1", "--warm-iters", "2"}, "with --warm-steps 1: --t 1e+10 is too large for 1 steps"},
	} {
		code, _, errs := gmlg(t, t.Context(), learnArgs(data, filepath.Join(dir, "bad"), bad.args...)...)
		if code != 2 || !strings.Contains(errs, bad.flag) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", bad.args, code, errs, bad.flag)
		}
	}
}
