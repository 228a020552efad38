package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/runlog"
)

// TestColorLearnFast runs colorlearn -mode fast at n = 6 with one coarse
// level (3³ then 6³), checks its run directory (per-iteration Sinkhorn
// counts, result.json with the exact-mode objective of the final metric),
// and resumes an interrupted run from a checkpoint taken on the fine level.
func TestColorLearnFast(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 4)
	common := []string{"colorlearn", "-mode", "fast", "--bins", "6", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
		"-coarse", "1", "-coarse-iters", "2", "-save-every", "2", "--progress=none"}
	full := filepath.Join(tmp, "full")
	if code, msg := colorTestRun(t, append(common, "--max-iter", "4", "-o", full, data)...); code != 0 {
		t.Fatalf("colorlearn -mode fast: exit %d: %s", code, msg)
	}
	for _, f := range []string{"params.json", "metric.npy", "metric-0001.npy", "metric-0004.npy", "recs.png",
		"loss.npy", "checkpoint.gob", "iterations.tsv", "linesearch.tsv", "result.json"} {
		if _, err := os.Stat(filepath.Join(full, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	// iterations.tsv: a header, 2 coarse and 4 fine lines with counts.
	fh, err := os.Open(filepath.Join(full, "iterations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var rows [][]string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		rows = append(rows, strings.Split(sc.Text(), "\t"))
	}
	if len(rows) != 7 || rows[0][5] != "sinkhorn_iters" || rows[1][1] != "3" || rows[6][1] != "6" || rows[6][2] != "4" {
		t.Fatalf("iterations.tsv = %v, want a header, 2 lines at n=3 and 4 at n=6", rows)
	}
	for _, r := range rows[1:] {
		if r[5] == "0" || r[6] == "0" {
			t.Errorf("iterations.tsv line %v: no Sinkhorn or adjoint iterations recorded", r)
		}
	}
	// linesearch.tsv: a header and at least one trial per iteration.
	raw, err := os.ReadFile(filepath.Join(full, "linesearch.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if ls := strings.Split(strings.TrimSpace(string(raw)), "\n"); len(ls) < 7 || !strings.HasPrefix(ls[0], "level\tn\titer\ttrial") {
		t.Errorf("linesearch.tsv = %q, want a header and a trial per iteration", ls)
	}
	res := colorTestResult(t, full)
	if res.FExact == nil || len(res.Levels) != 2 || res.Levels[0].Dims[0] != 3 || res.Levels[1].Iter != 4 || !(res.F > 0) {
		t.Fatalf("result.json = %+v", res)
	}
	// Converged barycenters against L = 10 iterations: close, not equal
	// (measured 8e-9 at this n and t; the bound only rules out scoring the
	// wrong metric or a copy of the fast F).
	if d := math.Abs(*res.FExact-res.F) / *res.FExact; d > 0.5 || d == 0 {
		t.Errorf("exact F %.8g, fast F %.8g at the same metric: relative difference %.3g", *res.FExact, res.F, d)
	}
	if p := colorTestRecord(t, full); p.Model.Adjoint != "gmres" || p.Model.Anderson != 5 {
		t.Errorf("params.json: adjoint %q, Anderson %d, want the defaults gmres and 5", p.Model.Adjoint, p.Model.Anderson)
	}
	m := colorTestNpy(t, filepath.Join(full, "metric.npy"))
	if len(m.Data) != 3*216 {
		t.Fatalf("metric of %d values, want 3·6³", len(m.Data))
	}

	// Interrupted on the fine level after 2 iterations, then resumed.
	part := filepath.Join(tmp, "part")
	if code, msg := colorTestRun(t, append(common, "--max-iter", "2", "-o", part, data)...); code != 0 {
		t.Fatalf("first part: exit %d: %s", code, msg)
	}
	if code, _ := colorTestRun(t, append(common, "--max-iter", "4", "-o", part, data)...); code != 1 {
		t.Errorf("restart without -resume: exit %d, want 1", code)
	}
	if code, msg := colorTestRun(t, "colorlearn", "-mode", "exact", "--max-iter", "4", "--resume", part, "--progress=none"); code != 2 || !strings.Contains(msg, "--mode cannot") {
		t.Errorf("resume of a fast run in exact mode: exit %d (%s), want 2 and a message naming --mode", code, msg)
	}
	// Resumed with the other solvers (they do not change the model).
	if code, msg := colorTestRun(t, "colorlearn", "--resume", part, "--max-iter", "4", "-adjoint", "fixed-point", "-anderson", "0", "--progress=none"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, msg)
	}
	if p := colorTestRecord(t, part); p.Model.Adjoint != "fixed-point" || p.Model.Anderson != 0 {
		t.Errorf("resumed params.json: adjoint %q, Anderson %d, want fixed-point and 0", p.Model.Adjoint, p.Model.Anderson)
	}
	res2 := colorTestResult(t, part)
	if len(res2.Levels) != 1 || res2.Levels[0].Iter != 4 {
		t.Fatalf("resumed result.json = %+v, want only the fine level, at iteration 4", res2)
	}
	// Measured 2e-6: the resumed level restarts its warm start cold.
	if d := math.Abs(res2.F-res.F) / res.F; d > 1e-2 {
		t.Errorf("resumed run ends at F = %.8g, uninterrupted at %.8g", res2.F, res.F)
	}
	// A metric is read from a fast-mode checkpoint too.
	cube, err := kernel.Cube(3, 6)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runlog.ReadMetric(filepath.Join(part, "checkpoint.gob"), dataset.Space{Graph: cube, Colour: true}, learn.VertexMetric); err != nil {
		t.Errorf("metric of a fast-mode checkpoint: %v", err)
	}
}

// TestColorLearnFastPolish runs colorlearn -mode fast -polish: the finest
// level's iterates are scored every -polish-every iterations into exact.tsv,
// the polish's iterations follow in iterations.tsv (level 2, after the two
// fast levels) with snapshots tagged polish-XXXX, result.json reports the
// polish (its start, its exact objective, which is f_exact), and a resumed
// run continues from the polish's checkpoint only with the same -polish.
func TestColorLearnFastPolish(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 4)
	args := []string{"colorlearn", "-mode", "fast", "--bins", "6", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
		"-coarse", "1", "-coarse-iters", "2", "-save-every", "2", "--progress=none", "--max-iter", "4", "-polish-every", "2"}
	out := filepath.Join(tmp, "run")
	if code, msg := colorTestRun(t, append(args, "-polish", "3", "-o", out, data)...); code != 0 {
		t.Fatalf("colorlearn -polish: exit %d: %s", code, msg)
	}
	for _, f := range []string{"metric-0004.npy", "metric-polish-0001.npy", "metric-polish-0002.npy", "metric-polish-0003.npy",
		"recs.png", "result.json", "exact.tsv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	res := colorTestResult(t, out)
	if len(res.Levels) != 3 || res.Levels[1].Exact || !res.Levels[2].Exact || res.Levels[2].Iter != 3 {
		t.Fatalf("result.json levels %+v: want 3³, 6³ and a 3-iteration polish", res.Levels)
	}
	if res.PolishFrom != 2 && res.PolishFrom != 4 {
		t.Errorf("polish_from = %d, want a scored iteration (2 or 4)", res.PolishFrom)
	}
	// The polish's F is the exact objective at the final metric.
	if res.FExact == nil || *res.FExact != res.Levels[2].F || res.F != res.Levels[2].F {
		t.Fatalf("F %.17g, f_exact %v, the polish's F %.17g", res.F, res.FExact, res.Levels[2].F)
	}
	iters, _, best := colorTestBestScore(t, out, 1)
	if !slices.Equal(iters, []int{2, 4}) {
		t.Fatalf("exact.tsv scores iterations %v, want 2 and 4", iters)
	}
	if !(*res.FExact < best) {
		t.Errorf("polished f_exact %.17g not below the best score %.17g", *res.FExact, best)
	}
	raw, err := os.ReadFile(filepath.Join(out, "iterations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(rows) != 1+2+4+3 || !strings.HasPrefix(rows[len(rows)-1], "2\t6\t3\t") {
		t.Errorf("iterations.tsv = %q, want a header, 2 + 4 fast rows and 3 polish rows (level 2)", rows)
	}
	if p := colorTestRecord(t, out); p.Optimizer.Polish != 3 || p.Optimizer.PolishEvery != 2 {
		t.Errorf("params.json: polish %d every %d, want 3 and 2", p.Optimizer.Polish, p.Optimizer.PolishEvery)
	}
	// Resuming from the polish's last checkpoint: nothing left to do but
	// the final snapshot; with another -polish the settings differ.
	if code, msg := colorTestRun(t, "colorlearn", "-polish", "4", "--resume", out, "--progress=none"); code != 2 || !strings.Contains(msg, "--polish cannot") {
		t.Errorf("resume with another -polish: exit %d (%s), want 2 and a message naming --polish", code, msg)
	}
	if code, msg := colorTestRun(t, "colorlearn", "--resume", out, "--progress=none"); code != 0 {
		t.Fatalf("resume of the polish: exit %d: %s", code, msg)
	}
	res2 := colorTestResult(t, out)
	if len(res2.Levels) != 1 || !res2.Levels[0].Exact || res2.FExact == nil || *res2.FExact != *res.FExact {
		t.Errorf("resumed result.json %+v: want the polish alone, at f_exact %.17g", res2, *res.FExact)
	}
	// -polish is fast mode's.
	if code, msg := colorTestRun(t, "colorlearn", "-polish", "2", "--progress=none", "-o", filepath.Join(tmp, "x"), data); code != 2 || !strings.Contains(msg, "fast mode only") {
		t.Errorf("exact mode with -polish: exit %d (%s), want 2", code, msg)
	}
	// -polish-every spaces -polish's scores and means nothing alone.
	if code, msg := colorTestRun(t, append(args, "-o", filepath.Join(tmp, "y"), data)...); code != 2 || !strings.Contains(msg, "--polish-every applies with --polish only") {
		t.Errorf("-polish-every without -polish: exit %d (%s), want 2", code, msg)
	}
}

// TestColorLearnFastPolishInterrupted interrupts a -polish run on its
// finest level right after an exact score: the checkpoint holds the best
// scored iterate so far, and the resumed run keeps it (its polish starts
// there or from a better score, never from a worse one found afresh).
func TestColorLearnFastPolishInterrupted(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 4)
	out := filepath.Join(tmp, "run")
	args := []string{"colorlearn", "-mode", "fast", "--bins", "6", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
		"-coarse", "1", "-coarse-iters", "2", "--progress=none", "--max-iter", "6", "-polish-every", "2", "-polish", "2", "-o", out, data}
	colorInterruptAt(t, 4, out, args...)
	ck, err := runlog.ReadCheckpointIfAny(filepath.Join(out, runlog.CheckpointName))
	if err != nil {
		t.Fatal(err)
	}
	iters, bestIter, bestF := colorTestBestScore(t, out, 1)
	if !slices.Equal(iters, []int{2, 4}) {
		t.Fatalf("exact.tsv scores iterations %v, want 2 and 4", iters)
	}
	if ck.Level != 1 || ck.State.Iter != 4 || ck.PolishBest == nil || ck.PolishBest.Iter != bestIter || ck.PolishBestF != bestF {
		t.Fatalf("checkpoint: level %d, iteration %d, polish best %v (F %.17g); want level 1, iteration 4, the best score's iterate %d (%.17g)",
			ck.Level, ck.State.Iter, ck.PolishBest != nil, ck.PolishBestF, bestIter, bestF)
	}
	if code, msg := colorTestRun(t, "colorlearn", "--resume", out, "--progress=none"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, msg)
	}
	res := colorTestResult(t, out)
	if n := len(res.Levels); n != 2 || !res.Levels[1].Exact || res.Levels[1].Iter != 2 {
		t.Fatalf("resumed result.json levels %+v: want the fine level and a 2-iteration polish", res.Levels)
	}
	// The polish starts from the best score of the whole level, the
	// restored one included.
	if _, it, f := colorTestBestScore(t, out, 3); f <= bestF {
		bestIter = it
	}
	if res.PolishFrom != bestIter {
		t.Errorf("resumed polish started from iteration %d, the best score (restored or new) was at %d", res.PolishFrom, bestIter)
	}
}

// colorTestResult reads a run's result.json.
func colorTestResult(t *testing.T, dir string) runlog.Result {
	t.Helper()
	var res runlog.Result
	readJSON(t, filepath.Join(dir, runlog.ResultName), &res)
	return res
}

// colorTestRecord reads a run's params.json.
func colorTestRecord(t *testing.T, dir string) runlog.Record {
	t.Helper()
	var p runlog.Record
	if err := runlog.ReadRecord(dir, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// colorTestBestScore reads a run's exact.tsv from line from on (1 = the
// first after the header): the iterations scored there, and the iteration
// and value of the lowest score.
func colorTestBestScore(t *testing.T, dir string, from int) (iters []int, iter int, f float64) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, runlog.ExactName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	f = math.Inf(1)
	for _, l := range lines[from:] {
		var it int
		var v float64
		fs := strings.Split(l, "\t")
		fmt.Sscan(fs[0], &it)
		fmt.Sscan(fs[4], &v)
		iters = append(iters, it)
		if v <= f {
			iter, f = it, v
		}
	}
	return iters, iter, f
}

// TestColourPresetWarmUp: in fast mode the colour preset warms up with 10
// heat steps for 50 iterations, with 5 for 200 from 32³ on, and not at all
// in exact mode, with --warm-steps 0, when --steps leaves no cheaper
// kernel or when --coarse 0 --warm-iters 0 leave it no level; a
// colorlearn run records the preset's warm-up steps and runs them
// (result.json's levels).
func TestColourPresetWarmUp(t *testing.T) {
	for _, c := range []struct {
		mode        string
		bins        int
		steps, iter string
	}{{"exact", 32, "", ""}, {"fast", 16, "10", "50"}, {"fast", 31, "10", "50"}, {"fast", 32, "5", "200"}, {"fast", 64, "5", "200"}} {
		v := presetValues("colour", c.mode, c.bins)
		if v["warm-steps"] != c.steps || v["warm-iters"] != c.iter || c.mode == "fast" && v["coarse"] != "1" {
			t.Errorf("%s mode, %d bins: the colour preset gives %v", c.mode, c.bins, v)
		}
	}
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 4)
	for i, c := range []struct {
		args []string
		want string // result.json's levels: steps and iterations
	}{
		{[]string{"-steps", "20", "--warm-iters", "2"}, "[{10 1} {10 2} {20 1}]"},
		{[]string{"-steps", "3"}, "[{3 1} {3 1}]"},
		{[]string{"-steps", "20", "--warm-steps", "0"}, "[{20 1} {20 1}]"},
		{[]string{"-steps", "20", "--coarse", "0", "--warm-iters", "0"}, "[{20 1}]"},
	} {
		out := filepath.Join(tmp, fmt.Sprint("run", i))
		args := append([]string{"colorlearn", "-mode", "fast", "--bins", "6", "-t", "1e-2", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
			"-coarse-iters", "1", "--max-iter", "1", "--progress=none", "-o", out, data}, c.args...)
		if code, msg := colorTestRun(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, msg)
		}
		var res struct {
			Levels []struct{ Steps, Iterations int }
		}
		readJSON(t, filepath.Join(out, "result.json"), &res)
		if got := fmt.Sprint(res.Levels); got != c.want {
			t.Errorf("%v: levels (steps, iterations) %s, want %s", c.args, got, c.want)
		}
	}
}
