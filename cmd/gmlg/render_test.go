package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRenderEveryKind makes a folder of every kind gmlg writes, grids and
// graphs, removes its pictures and has render draw them again.
func TestRenderEveryKind(t *testing.T) {
	tmp := t.TempDir()
	data := tinyData(t, "1")
	graph := filepath.Join(tmp, "graph")
	mustGmlg(t, append([]string{"synth", "--graph", "sphere", "--n", "6", "-o", graph}, tinyModel...)...)
	colours := filepath.Join(tmp, "colours")
	images := colorTestFrames(t, colours, 4)
	dir := func(name string) string { return filepath.Join(tmp, name) }
	colour := []string{"--bins", "4", "-t", "1e-2", "--steps", "3", "--sinkhorn-iters", "10", "--lambda-s", "0.01", "--progress", "none"}
	for _, tc := range []struct {
		name     string
		make     []string
		pictures []string
	}{
		{"learn", learnArgs(data, dir("learn"), "--max-iter", "2"), []string{"metric.png", "metric-0001.png", "loss.png", "recs.png", "metric-vs-truth.png"}},
		{"learn on a graph", learnArgs(graph, dir("learng"), "--max-iter", "2"), []string{"metric.png", "recs.png", "loss.png"}},
		{"colour learn", append(append([]string{"colorlearn", "--max-iter", "2", "-o", dir("colour")}, colour...), colours), []string{"metric.png", "recs.png", "loss.png"}},
		{"synth", []string{"synth", "--n", "8", "--frames", "3", "-o", dir("synth")}, []string{"frames.png", "a-metric.png"}},
		{"synth graph", []string{"synth", "--graph", "geometric", "--n", "6", "-o", dir("synthg")}, []string{"frames.png", "metric_true.png"}},
		{"interp", append([]string{"interp", data, "-o", dir("interp")}, tinyModel...), []string{"interp.png"}},
		{"interp on a graph", append([]string{"interp", graph, "-o", dir("interpg")}, tinyModel...), []string{"interp.png"}},
		{"eval", append([]string{"eval", data, "-o", dir("eval")}, tinyModel...), []string{"recs.png"}},
		{"sunset", []string{"sunset", "--method", "linear", "--bins", "4", "--prolong", "0", "--frames", "2", "--transfer-iters", "5", "--progress", "none",
			"-o", dir("sunset"), images[0], images[3]}, []string{"hists.png", "frames.png"}},
		{"transfer", []string{"transfer", "--bins", "4", "--transfer-iters", "5", "--progress", "none", "-o", dir("transfer"), images[0], images[1]},
			[]string{"transfers.png"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustGmlg(t, tc.make...)
			out := tc.make[slices.Index(tc.make, "-o")+1]
			for _, p := range tc.pictures {
				if err := os.Remove(filepath.Join(out, p)); err != nil {
					t.Fatalf("%s wrote no %s: %v", tc.make[0], p, err)
				}
			}
			said := mustGmlg(t, "render", out)
			if !strings.Contains(said, "gmlg render: redrew") {
				t.Errorf("render said %q", said)
			}
			for _, p := range tc.pictures {
				if _, err := os.Stat(filepath.Join(out, p)); err != nil {
					t.Errorf("render did not draw %s again: %v", p, err)
				}
			}
		})
	}
}
