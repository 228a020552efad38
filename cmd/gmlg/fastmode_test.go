package main

import (
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
	code, _, errs := gmlg(t, t.Context(), learnArgs(data, filepath.Join(dir, "bad"), "--mode", "turbo")...)
	if code != 2 || !strings.Contains(errs, "--mode") {
		t.Errorf("--mode turbo: exit %d, %q", code, errs)
	}
}
