package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/learn/synth"
)

// graphModel are the model options of the graph tests: t in squared edges
// (synth --graph's default), the pure-Go backend.
var graphModel = []string{"--t", "0.2", "--steps", "10", "--sinkhorn-iters", "50", "--backend", "go", "--threads", "2"}

// TestGraphLearnsTrueMetric makes a dataset on a 100-vertex random
// geometric graph with a slow region, learns its edge weights back, and
// checks that they correlate with the true ones at 0.9 or more on the edges
// that carry mass (synth.CarriesMass: both ends above the uniform share 1/N in
// some frame; the data say nothing about the others). It then runs eval,
// interp and render on the run, which must read the same graph.
func TestGraphLearnsTrueMetric(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	mustGmlg(t, append([]string{"synth", "--graph", "geometric", "--n", "10", "--sequences", "3", "--frames", "4", "-o", data}, graphModel...)...)
	mustExist(t, filepath.Join(data, "edges.npy"), filepath.Join(data, "coords.npy"), filepath.Join(data, "metric_true.npy"), filepath.Join(data, "metric_true.png"))
	sp, err := dataset.ReadGraphFolder(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := sp.Graph
	sameShape(t, readNpy(t, filepath.Join(data, "edges.npy")), g.NumEdges(), 2)
	if raw, err := os.ReadFile(filepath.Join(data, "edges.npy")); err != nil || !strings.Contains(string(raw[:min(len(raw), 128)]), "'descr': '<i8'") {
		t.Errorf("edges.npy is not an int64 array (err %v)", err)
	}
	sameShape(t, readNpy(t, filepath.Join(data, "coords.npy")), 100, 2)
	truth := readNpy(t, filepath.Join(data, "metric_true.npy"))
	sameShape(t, truth, g.NumEdges())

	run := filepath.Join(t.TempDir(), "run")
	// λ_s = 1e-3: 1e-2 outweighs the data term of so small a graph at the
	// uniform start (the line search then fails at once).
	out := mustGmlg(t, append([]string{"learn", data, "-o", run, "--lambda-s", "1e-3", "--skip-endpoints", "--max-iter", "20", "--progress", "none"}, graphModel...)...)
	if !strings.Contains(out, "on the edges that carry mass") {
		t.Errorf("learn does not report the correlation with the truth:\n%s", out)
	}
	// The frames on a graph with coordinates are drawn on its vertices.
	mustExist(t, filepath.Join(run, "metric.png"), filepath.Join(run, "metric-0001.png"), filepath.Join(run, "loss.png"), filepath.Join(run, "recs.png"))
	learned := readNpy(t, filepath.Join(run, "metric.npy"))
	sameShape(t, learned, g.NumEdges())
	sameShape(t, readNpy(t, filepath.Join(run, "rec-00-01.npy")), g.N())
	var p runlog.Record
	readJSON(t, filepath.Join(run, "params.json"), &p)
	if p.Model.Metric != "edge" || p.Data.Edges != g.NumEdges() || p.Data.Vertices != g.N() || p.Kernel.Alpha != 1 {
		t.Errorf("params.json: metric %q, %d edges, %d vertices, α = %g; want edge, %d, %d, 1",
			p.Model.Metric, p.Data.Edges, p.Data.Vertices, p.Kernel.Alpha, g.NumEdges(), g.N())
	}

	// The correlation on the edges that carry mass, from the files.
	set, err := dataset.Load(data, &dataset.Options{Length: g.N()})
	if err != nil {
		t.Fatal(err)
	}
	mass := synth.CarriesMass(g, set.Frames())
	carrying := 0
	for _, c := range mass {
		if c {
			carrying++
		}
	}
	if carrying < g.NumEdges()/2 {
		t.Errorf("only %d of %d edges carry mass", carrying, g.NumEdges())
	}
	r, ok := synth.Pearson(truth.Data, learned.Data, mass)
	t.Logf("correlation %.3f on the %d of %d edges that carry mass", r, carrying, g.NumEdges())
	if !ok || r < 0.9 {
		t.Errorf("correlation of learned and true weights on the %d edges that carry mass: %.3f (defined: %v), want ≥ 0.9", carrying, r, ok)
	}
	var res runlog.Result
	readJSON(t, filepath.Join(run, "result.json"), &res)
	if res.TruthCorrelationMass == nil || *res.TruthCorrelationMass != r {
		t.Errorf("result.json: truth_correlation_mass %v, want %v", res.TruthCorrelationMass, r)
	}

	// eval at the learned metric gives learn's F; interp and render read the graph.
	ev := filepath.Join(t.TempDir(), "eval")
	mustGmlg(t, "eval", "--run", run, "-o", ev)
	var e evalParams
	readJSON(t, filepath.Join(ev, "eval.json"), &e)
	if d := math.Abs(e.Result.F - res.F); d > 1e-9*math.Abs(res.F) { // metric.npy holds exp(x), not x
		t.Errorf("eval at metric.npy: F = %v, learn reported %v", e.Result.F, res.F)
	}
	sameShape(t, readNpy(t, filepath.Join(ev, "grad.npy")), g.NumEdges())
	ip := filepath.Join(t.TempDir(), "interp")
	mustGmlg(t, "interp", data, "--run", run, "--frames", "3", "-o", ip)
	sameShape(t, readNpy(t, filepath.Join(ip, "interp-01.npy")), g.N())
	mustExist(t, filepath.Join(ip, "interp.png"))
	if out := mustGmlg(t, "render", run); !strings.Contains(out, "redrew") {
		t.Errorf("render: %s", out)
	}
}

// TestGraphInputErrors checks that a bad graph folder is refused with a
// message naming the problem.
func TestGraphInputErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edges []float64
		shape []int
		frame int
		want  string
	}{
		{"not pairs", []float64{0, 1, 2}, []int{3}, 3, "want [E,2]"},
		{"fraction", []float64{0, 1.5, 1, 2}, []int{2, 2}, 3, "not a vertex index"},
		{"self-loop", []float64{0, 1, 2, 2}, []int{2, 2}, 3, "self-loop"},
		{"frame length", []float64{0, 1, 1, 2}, []int{2, 2}, 4, "one value per vertex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]*dataset.Array{"edges.npy": {Shape: tc.shape, Data: tc.edges}}
			for j := range 3 {
				f := make([]float64, tc.frame)
				f[j%tc.frame] = 1
				files[fmt.Sprintf("array-%02d.npy", j)] = &dataset.Array{Shape: []int{tc.frame}, Data: f}
			}
			for name, a := range files {
				if err := dataset.WriteNpyFile(filepath.Join(dir, name), a); err != nil {
					t.Fatal(err)
				}
			}
			code, _, errs := gmlg(t, t.Context(), "learn", dir, "-o", filepath.Join(t.TempDir(), "run"), "--progress", "none")
			if code == 0 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want a failure naming %q", code, errs, tc.want)
			}
		})
	}
}

// TestSynthSphere makes a dataset on the triangulated sphere and checks its
// files: 3-D coordinates, one true weight per edge, the pictures of the
// frames and of the truth, which render draws again.
func TestSynthSphere(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sphere")
	mustGmlg(t, append([]string{"synth", "--graph", "sphere", "--n", "10", "--sequences", "2", "--frames", "3", "-o", data}, graphModel...)...)
	sp, err := dataset.ReadGraphFolder(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameShape(t, readNpy(t, filepath.Join(data, "coords.npy")), 92, 3)
	sameShape(t, readNpy(t, filepath.Join(data, "metric_true.npy")), sp.Graph.NumEdges())
	sameShape(t, readNpy(t, filepath.Join(data, "array-01-02.npy")), 92)
	mustExist(t, filepath.Join(data, "frames.png"), filepath.Join(data, "metric_true.png"))
	if out := mustGmlg(t, "render", data); !strings.Contains(out, "redrew 2 picture(s)") {
		t.Errorf("render: %s", out)
	}
}
