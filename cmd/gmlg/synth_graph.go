package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot/draw"
)

// The graphs of gmlg synth --graph (package synth): geometric, a random
// geometric graph in the unit square, and sphere, the triangulated unit
// sphere, each with a slow region as its true metric.
var synthGraphs = map[string]func(n int, seed uint64) (*synth.Graph, error){
	"geometric": synth.Geometric,
	"sphere":    func(n int, _ uint64) (*synth.Graph, error) { return synth.Sphere(n) },
}

// graphTruthTitle is the title of the picture of the true edge weights.
const graphTruthTitle = "true edge weights (slow region)"

// synthGraphT and synthGraphSteps are the diffusion time (in squared edges,
// see space) and steps of synth --graph when --t and --steps are not given:
// a blur over about √(2t) ≈ 0.6 edges, like the grid's default on its
// grid.
const (
	synthGraphT     = 0.2
	synthGraphSteps = 10
)

// runSynthGraph makes the dataset of synth --graph in out (the flags are
// checked).
func runSynthGraph(ctx context.Context, p *synthParams, out string, force bool, stdout io.Writer) error {
	start := time.Now()
	sg, err := synthGraphs[p.Graph](p.N, p.Seed)
	if err != nil {
		return err
	}
	g, w := sg.G, sg.Weights
	sp := space{Graph: g, Coords: &dataset.Array{Shape: []int{g.N(), sg.Dim}, Data: sg.Coords}}
	if err := checkSpaceT(sp, "--t", p.Model.T, p.Model.Steps); err != nil {
		return err
	}
	seqs, err := generateSynth(ctx, p, g, kernel.EdgeMetric{G: g}, w, sg.Poles(p.Sequences))
	if err != nil {
		return err
	}
	od, err := takeOutDir(ctx, out, synthSpec, force)
	if err != nil {
		return err
	}
	defer od.Close()
	if err := dataset.WriteSequences(out, seqs, sp.HistShape()); err != nil {
		return err
	}
	if err := dataset.WriteEdges(filepath.Join(out, dataset.EdgesFile), sp.Edges()); err != nil {
		return err
	}
	if err := dataset.WriteNpyFile(filepath.Join(out, dataset.CoordsFile), sp.Coords); err != nil {
		return err
	}
	if err := sp.WriteMetric(filepath.Join(out, dataset.GraphTruthFile), learn.EdgeMetric, w); err != nil {
		return err
	}
	p.Vertices, p.Edges = g.N(), g.NumEdges()
	p.Command, p.Version = "synth", rundir.Version()
	if err := rundir.WriteChecked(filepath.Join(out, "params.json"), p); err != nil {
		return err
	}
	if _, err := drawSynthGraph(out, sp, w, seqs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "gmlg synth: wrote %d sequence(s) of %d frames on a %s graph of %d vertices and %d edges to %s in %.1fs\n",
		len(seqs), p.Frames, p.Graph, g.N(), g.NumEdges(), out, time.Since(start).Seconds())
	fmt.Fprintf(stdout, "  pictures: %s (frames), %s (true edge weights)\n",
		filepath.Join(out, "frames.png"), filepath.Join(out, "metric_true.png"))
	fmt.Fprintf(stdout, "  next: %s\n", learnHint(p, out))
	return nil
}

// drawSynthGraph draws the pictures of a synthetic dataset on the graph of
// sp, with true edge weights w, into out, and returns their paths.
func drawSynthGraph(out string, sp space, w []float64, seqs [][][]float64) ([]string, error) {
	metric, frames := filepath.Join(out, "metric_true.png"), filepath.Join(out, "frames.png")
	if _, err := metricPicture(sp, metric, learn.EdgeMetric, w, graphTruthTitle); err != nil {
		return nil, err
	}
	if _, err := framesPicture(sp, frames, []draw.Frames{{Name: "sequence", Frames: seqs}}, "synthetic frames (slow-region metric)"); err != nil {
		return nil, err
	}
	return []string{metric, frames}, nil
}
