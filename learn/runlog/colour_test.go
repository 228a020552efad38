package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot"
)

// fastRun is the record of a fast-mode run at 8³ bins.
func fastRun() *ColourRun {
	return &ColourRun{Command: "colorlearn", Bins: 8, THeat: 1e-3, KHeat: 20, L: 50, Loss: "l2", LambdaS: 1,
		Mode: "fast", Tol: 1e-4, Coarse: 1, CoarseIters: 10, Adjoint: "gmres", Anderson: 5}
}

// TestColourInterpolation checks the model of an interpolation with a
// run's metric: the run's own unless overridden, -L alone meaning exact,
// and Overridden set only when the barycenter model changes.
func TestColourInterpolation(t *testing.T) {
	t.Parallel()
	run := fastRun()
	for _, c := range []struct {
		name string
		o    ColourOverride
		want ColourModel
	}{
		{"run's", ColourOverride{}, ColourModel{T: 1e-3, Steps: 20, Iterations: 50, Fast: true, Tol: 1e-4, Anderson: 5}},
		{"heat only", ColourOverride{T: 2e-3, Steps: 5}, ColourModel{T: 2e-3, Steps: 5, Iterations: 50, Fast: true, Tol: 1e-4, Anderson: 5}},
		{"L means exact", ColourOverride{Iterations: 30}, ColourModel{T: 1e-3, Steps: 20, Iterations: 30, Tol: 1e-4, Anderson: 5, Overridden: true}},
		{"mode wins over L", ColourOverride{Iterations: 30, Mode: "fast"}, ColourModel{T: 1e-3, Steps: 20, Iterations: 30, Fast: true, Tol: 1e-4, Anderson: 5, Overridden: true}},
		{"tol", ColourOverride{Tol: 1e-6}, ColourModel{T: 1e-3, Steps: 20, Iterations: 50, Fast: true, Tol: 1e-6, Anderson: 5, Overridden: true}},
		{"exact", ColourOverride{Mode: "exact"}, ColourModel{T: 1e-3, Steps: 20, Iterations: 50, Tol: 1e-4, Anderson: 5, Overridden: true}},
	} {
		if got := run.Interpolation(c.o); got != c.want {
			t.Errorf("%s: Interpolation(%+v) = %+v, want %+v", c.name, c.o, got, c.want)
		}
	}
	m := run.Interpolation(ColourOverride{})
	if got, want := m.Line("r/params.json"), "model: fast, tol 0.0001 (from r/params.json)"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	m = run.Interpolation(ColourOverride{Iterations: 7})
	if got, want := m.Line("r/params.json"), "model: exact, L=7 (flags)"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

// TestColourSameModel checks that every setting of the model, and the
// images, make two records differ, and that the solvers and the budget
// do not.
func TestColourSameModel(t *testing.T) {
	t.Parallel()
	base := fastRun()
	base.DataSHA256 = "abc"
	same := []func(c *ColourRun){
		func(c *ColourRun) { c.Adjoint = "fixed-point" },
		func(c *ColourRun) { c.Anderson = 0 },
		func(c *ColourRun) { c.MaxIter = 900 },
	}
	differ := []func(c *ColourRun){
		func(c *ColourRun) { c.DataSHA256 = "abd" },
		func(c *ColourRun) { c.Bins = 9 },
		func(c *ColourRun) { c.THeat = 2e-3 },
		func(c *ColourRun) { c.KHeat = 21 },
		func(c *ColourRun) { c.L = 51 },
		func(c *ColourRun) { c.Loss = "kl" },
		func(c *ColourRun) { c.LambdaC = 1 },
		func(c *ColourRun) { c.LambdaS = 2 },
		func(c *ColourRun) { c.DropSaturated = true },
		func(c *ColourRun) { c.Mode = "exact" },
		func(c *ColourRun) { c.Tol = 1e-5 },
		func(c *ColourRun) { c.Coarse = 2 },
		func(c *ColourRun) { c.CoarseIters = 11 },
		func(c *ColourRun) { c.Polish = 3 },
		func(c *ColourRun) { c.PolishEvery = 2 },
	}
	for i, change := range append(same, differ...) {
		o := *base
		change(&o)
		if got, want := base.SameModel(&o), i < len(same); got != want {
			t.Errorf("change %d: SameModel = %v, want %v", i, got, want)
		}
	}
	exact, empty := &ColourRun{Mode: "exact"}, &ColourRun{}
	if !exact.SameModel(empty) || empty.RunMode() != "exact" {
		t.Errorf("a record without a mode is not an exact-mode one (RunMode %q)", empty.RunMode())
	}
}

// TestColourConfig checks the objectives of a run: the exact one with L
// iterations on the run's heat kernel, and fast mode's in tolerance mode
// with the run's solvers.
func TestColourConfig(t *testing.T) {
	t.Parallel()
	run := fastRun()
	heat := kernel.HeatOptions{T: 9, Steps: 9, Memory: kernel.Store}
	exact, err := run.Config(heat)
	if err != nil {
		t.Fatal(err)
	}
	if exact.Heat.T != 1e-3 || exact.Heat.Steps != 20 || exact.Heat.Memory != kernel.Store ||
		exact.Sinkhorn != (ot.Settings{Iterations: 50}) || exact.Loss != ot.L2 || exact.LambdaS != 1 {
		t.Errorf("Config = %+v", exact)
	}
	fast, err := run.Objective(heat)
	if err != nil {
		t.Fatal(err)
	}
	want := ot.Settings{Iterations: 50, Tol: 1e-4, Gradient: ot.ImplicitGMRES, Anderson: 5}
	if fast.Sinkhorn != want {
		t.Errorf("Objective's Sinkhorn = %+v, want %+v", fast.Sinkhorn, want)
	}
	run.Mode = "exact"
	if cfg, _ := run.Objective(heat); cfg.Sinkhorn != exact.Sinkhorn {
		t.Errorf("exact mode's Objective = %+v, want the exact Config's %+v", cfg.Sinkhorn, exact.Sinkhorn)
	}
	run.Loss = "l3"
	if _, err := run.Config(heat); err == nil {
		t.Error("Config accepted the loss l3")
	}
}

// TestColourCheckFast checks that exact mode clears fast mode's settings
// and that fast mode refuses a bad solver or too many halvings.
func TestColourCheckFast(t *testing.T) {
	t.Parallel()
	run := fastRun()
	run.Mode, run.Polish = "exact", 3
	if err := run.CheckFast(); err != nil || run.Tol != 0 || run.Adjoint != "" || run.Coarse != 0 || run.Polish != 0 {
		t.Errorf("exact mode: CheckFast = %v, record %+v", err, run)
	}
	run = fastRun()
	run.Polish = 4
	if err := run.CheckFast(); err != nil || run.PolishEvery != learn.DefaultPolishEvery {
		t.Errorf("polish: CheckFast = %v, PolishEvery %d", err, run.PolishEvery)
	}
	for _, change := range []func(c *ColourRun){
		func(c *ColourRun) { c.Adjoint = "lu" },
		func(c *ColourRun) { c.Anderson = -1 },
		func(c *ColourRun) { c.Coarse = 3 }, // 8 → 4 → 2 → 1
	} {
		run := fastRun()
		change(run)
		if err := run.CheckFast(); err == nil {
			t.Errorf("CheckFast accepted %+v", run)
		}
	}
}

// TestColourRecord checks Describe, and that ReadColourRun reads back
// what was written and refuses another command's record and a changed one.
func TestColourRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := filepath.Join(dir, "a.png")
	if err := os.WriteFile(img, []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := kernel.Cube(3, 8)
	if err != nil {
		t.Fatal(err)
	}
	run := fastRun()
	if err := run.Describe(dir, &dataset.Colour{Files: []string{img}, Space: dataset.Space{Graph: g}}, "go"); err != nil {
		t.Fatal(err)
	}
	if run.N != 512 || run.Dim != 3 || run.Alpha != kernel.GridAlpha(8) || run.Files[0] != "a.png" || run.DataSHA256 == "" || run.Backend != "go" {
		t.Errorf("Describe: %+v", run)
	}
	path := filepath.Join(dir, "params.json")
	if err := rundir.WriteChecked(path, run); err != nil {
		t.Fatal(err)
	}
	back, err := ReadColourRun(path)
	if err != nil || !back.SameModel(run) || back.Input != run.Input {
		t.Errorf("ReadColourRun = %+v, %v", back, err)
	}
	run.Command = "learn"
	if err := rundir.WriteChecked(path, run); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadColourRun(path); err == nil || !strings.Contains(err.Error(), "not written by gmlg colorlearn") {
		t.Errorf("a learn record: %v", err)
	}
}

// TestColourReadMetric checks that a metric of the wrong shape for the
// run's bins is refused.
func TestColourReadMetric(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.npy")
	data := make([]float64, 3*8)
	for i := range data {
		data[i] = 1
	}
	if err := dataset.WriteNpyFile(path, &dataset.Array{Shape: []int{3, 8}, Data: data}); err != nil {
		t.Fatal(err)
	}
	if _, err := (&ColourRun{Bins: 2}).ReadMetric(path); err != nil {
		t.Errorf("n = 2: %v", err)
	}
	if _, err := (&ColourRun{Bins: 3}).ReadMetric(path); err == nil || !strings.Contains(err.Error(), "[3,27] for n = 3") {
		t.Errorf("n = 3: %v", err)
	}
}
