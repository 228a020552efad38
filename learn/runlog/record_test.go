package runlog

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
)

// TestOptimizerCheck checks that every bad setting is refused naming its
// option, and that CoarseIters is cleared without Coarse.
func TestOptimizerCheck(t *testing.T) {
	t.Parallel()
	fast := DefaultModel()
	fast.Mode = "fast"
	for _, c := range []struct {
		flag   string
		change func(o *Optimizer)
	}{
		{"--max-iter", func(o *Optimizer) { o.MaxIter = 0 }},
		{"--save-every", func(o *Optimizer) { o.SaveEvery = 0 }},
		{"--history", func(o *Optimizer) { o.History = 0 }},
		{"--max-linesearch", func(o *Optimizer) { o.MaxLinesearch = 0 }},
		{"--ftol", func(o *Optimizer) { o.FTol = -1 }},
		{"--gtol", func(o *Optimizer) { o.GTol = math.Inf(1) }},
		{"--init", func(o *Optimizer) { o.Init = "" }},
		{"--coarse", func(o *Optimizer) { o.Coarse = -1 }},
		{"--coarse-iters", func(o *Optimizer) { o.Coarse, o.CoarseIters = 1, 0 }},
		{"--coarse and --init", func(o *Optimizer) { o.Coarse, o.CoarseIters, o.Init = 1, 5, "m.npy" }},
		{"--warm-steps and --warm-iters", func(o *Optimizer) { o.WarmSteps, o.WarmIters = 5, -1 }},
		{"--warm-steps 20", func(o *Optimizer) { o.WarmSteps, o.WarmIters = 20, 5 }}, // not below the model's 20
		{"--warm-iters", func(o *Optimizer) { o.WarmIters = 5 }},
		{"--warm-steps needs --coarse", func(o *Optimizer) { o.WarmSteps = 5 }},
	} {
		o := DefaultOptimizer()
		c.change(&o)
		if err := o.Check(&fast); err == nil || !strings.HasPrefix(err.Error(), c.flag) {
			t.Errorf("%s: Check = %v", c.flag, err)
		}
	}
	exact := DefaultModel()
	o := DefaultOptimizer()
	o.WarmSteps, o.WarmIters = 5, 10
	if err := o.Check(&exact); err == nil || !strings.HasPrefix(err.Error(), "--warm-steps needs --mode fast") {
		t.Errorf("--warm-steps in exact mode: Check = %v", err)
	}
	o = DefaultOptimizer()
	o.WarmSteps, o.WarmIters = 5, 10
	if err := o.Check(&fast); err != nil {
		t.Errorf("a warm-up of 10 iterations with 5 steps in fast mode: Check = %v", err)
	}
	o = DefaultOptimizer()
	o.CoarseIters = 7
	if err := o.Check(&fast); err != nil || o.CoarseIters != 0 {
		t.Errorf("without --coarse: Check = %v, CoarseIters %d", err, o.CoarseIters)
	}
}

// TestOptimizerSettings checks that a zero tolerance is disabled in learn's
// settings and that the others pass through.
func TestOptimizerSettings(t *testing.T) {
	t.Parallel()
	o := DefaultOptimizer()
	o.GTol = 0
	s := o.Settings(nil)
	want := learn.Settings{MaxIter: 500, History: 20, MaxLinesearch: 20, FTol: o.FTol, GTol: -1}
	if s != want {
		t.Errorf("Settings = %+v, want %+v", s, want)
	}
}

// TestDataRead checks the description of a folder of grid frames and
// that its Space is the grid back.
func TestDataRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for j := 0; j < 3; j++ {
		a := &dataset.Array{Shape: []int{4, 4}, Data: make([]float64, 16)}
		a.Data[j] = 1
		if err := dataset.WriteNpyFile(filepath.Join(dir, "array-0"+string(rune('0'+j))+".npy"), a); err != nil {
			t.Fatal(err)
		}
	}
	sp, set, err := dataset.LoadSpace(dir, &dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := Data{Kind: Frames, Dir: dir, Edges: 9, Sequences: []int{7}}
	src, err := d.Read(nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.Space.Graph.N() != sp.Graph.N() || len(src.Seqs) != len(set.Sequences) {
		t.Errorf("Read: %d vertices, %d sequences", src.Space.Graph.N(), len(src.Seqs))
	}
	if d.Dim != 2 || d.Side != 4 || d.Vertices != 16 || d.Edges != 0 || len(d.Files) != 3 || d.Checksum == "" ||
		len(d.Sequences) != 1 || d.Sequences[0] != 3 {
		t.Errorf("Describe: %+v", d)
	}
	back, err := d.Space(nil)
	if err != nil || back.IsGraph() || back.Graph.N() != 16 {
		t.Errorf("Space = %v, %v", back, err)
	}
	d.Edges = 5 // a graph run whose folder has no edge list
	if _, err := d.Space(nil); err == nil || !strings.Contains(err.Error(), "the run's graph") {
		t.Errorf("graph without edges.npy: %v", err)
	}
}

// TestReadRecord checks that a learn run's record reads back over the
// given defaults, and that a missing record and another command's are
// refused.
func TestReadRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := Record{Model: DefaultModel()}
	if err := ReadRecord(dir, &p); err == nil || !strings.Contains(err.Error(), "is not a run folder") {
		t.Errorf("empty folder: %v", err)
	}
	path := filepath.Join(dir, "params.json")
	if err := rundir.WriteChecked(path, map[string]any{"command": "learn", "model": map[string]any{"t": 0.5}}); err != nil {
		t.Fatal(err)
	}
	if err := ReadRecord(dir, &p); err != nil || p.Model.T != 0.5 || p.Model.Steps != DefaultModel().Steps {
		t.Errorf("ReadLearnRun = %v, model %+v", err, p.Model)
	}
	if err := rundir.WriteChecked(path, map[string]any{"command": "synth"}); err != nil {
		t.Fatal(err)
	}
	if err := ReadRecord(dir, &p); err == nil || !strings.Contains(err.Error(), "not written by gmlg learn") {
		t.Errorf("a synth record: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"command":"learn"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReadRecord(dir, &p); err == nil {
		t.Error("a record without its checksum was accepted")
	}
}
