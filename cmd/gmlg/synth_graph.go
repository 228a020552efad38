package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/synth"
)

// The graphs of gmlg synth --graph.
//
// geometric is a random geometric graph: n² points drawn uniformly in the
// unit square (seeded by --seed), two of them joined when they are closer
// than geometricRadius/n, twice the points' typical spacing 1/n,
// which gives each vertex about π·2² ≈ 12 neighbours and a connected
// graph with overwhelming probability.
//
// Its true metric has a slow region: the weight of an edge with midpoint m
// is 1 − 0.8·exp(−|m − c|²/(2·0.15²)), c = (0.5, 0.5), so that an edge at
// the centre conducts five times less than one far from it.
const geometricRadius = 2.0

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

// geometricGraph returns the random geometric graph on n² points (see
// above) and the points, row-major [N,2].
func geometricGraph(n int, seed uint64) (*kernel.Graph, []float64, error) {
	N := n * n
	rng := rand.New(rand.NewPCG(seed, seed))
	xy := make([]float64, 2*N)
	for i := range xy {
		xy[i] = rng.Float64()
	}
	r := geometricRadius / float64(n)
	// Bin the points in square cells of side ≥ r, so that neighbours lie
	// in the same or an adjacent cell.
	cells := max(1, int(1/r))
	cell := func(v float64) int { return min(int(v*float64(cells)), cells-1) }
	bins := make([][]int, cells*cells)
	for i := range N {
		k := cell(xy[2*i+1])*cells + cell(xy[2*i])
		bins[k] = append(bins[k], i)
	}
	var edges [][2]int
	for i := range N {
		cx, cy := cell(xy[2*i]), cell(xy[2*i+1])
		for y := max(cy-1, 0); y <= min(cy+1, cells-1); y++ {
			for x := max(cx-1, 0); x <= min(cx+1, cells-1); x++ {
				for _, j := range bins[y*cells+x] {
					if j > i && math.Hypot(xy[2*j]-xy[2*i], xy[2*j+1]-xy[2*i+1]) < r {
						edges = append(edges, [2]int{i, j})
					}
				}
			}
		}
	}
	g, err := kernel.FromEdges(N, edges)
	if err != nil {
		return nil, nil, err
	}
	if c := g.Components(); c != 1 {
		return nil, nil, fmt.Errorf("the geometric graph of seed %d has %d connected components; try another --seed or a larger --n", seed, c)
	}
	return g, xy, nil
}

// slowRegionWeights returns the true edge weights of the geometric graph
// (see above) from the points xy.
func slowRegionWeights(g *kernel.Graph, xy []float64) []float64 {
	w := make([]float64, g.NumEdges())
	for e := range w {
		i, j := g.Edge(e)
		mx, my := (xy[2*i]+xy[2*j])/2-0.5, (xy[2*i+1]+xy[2*j+1])/2-0.5
		w[e] = 1 - 0.8*math.Exp(-(mx*mx+my*my)/(2*0.15*0.15))
	}
	return w
}

// graphPole returns the histogram on the points xy of pole p: a Gaussian
// of standard deviation p.Sigma (0.07 for a rectangle) centred on p's
// centre, floored as synth.Pole.Histogram does and normalised to sum 1.
func graphPole(xy []float64, p synth.Pole) []float64 {
	x0, y0, sigma := p.X0, p.Y0, p.Sigma
	if p.Shape == "rect" {
		x0, y0, sigma = (p.X0+p.X1)/2, (p.Y0+p.Y1)/2, 0.07
	}
	h := make([]float64, len(xy)/2)
	mx := 0.0
	for i := range h {
		dx, dy := xy[2*i]-x0, xy[2*i+1]-y0
		h[i] = math.Exp(-(dx*dx + dy*dy) / (2 * sigma * sigma))
		mx = max(mx, h[i])
	}
	s := 0.0
	for i := range h {
		h[i] += mx * synth.Floor / float64(len(h))
		s += h[i]
	}
	for i := range h {
		h[i] /= s
	}
	return h
}

// runSynthGraph makes the dataset of synth --graph geometric in out (the
// flags are checked).
func runSynthGraph(ctx context.Context, p *synthParams, out string, force bool, stdout io.Writer) error {
	start := time.Now()
	g, xy, err := geometricGraph(p.N, p.Seed)
	if err != nil {
		return err
	}
	sp := space{graph: g, coords: &dataset.Array{Shape: []int{g.N(), 2}, Data: xy}}
	if err := sp.checkHeatT("--t", p.Model.T, p.Model.Steps); err != nil {
		return err
	}
	w := slowRegionWeights(g, xy)
	var poles [][2][]float64
	for _, pq := range synthPoles[:p.Sequences] {
		poles = append(poles, [2][]float64{graphPole(xy, pq[0]), graphPole(xy, pq[1])})
	}
	seqs, err := generateSynth(ctx, p, g, kernel.EdgeMetric{G: g}, w, poles)
	if err != nil {
		return err
	}
	od, err := takeOutDir(ctx, out, synthSpec, force)
	if err != nil {
		return err
	}
	defer od.Close()
	if err := writeSynthFrames(out, seqs, sp.histShape()); err != nil {
		return err
	}
	edges := make([][2]int, g.NumEdges())
	for e := range edges {
		edges[e][0], edges[e][1] = g.Edge(e)
	}
	if err := dataset.WriteEdges(filepath.Join(out, edgesName), edges); err != nil {
		return err
	}
	if err := dataset.WriteNpyFile(filepath.Join(out, coordsName), sp.coords); err != nil {
		return err
	}
	if err := sp.writeMetric(filepath.Join(out, graphTruthName), learn.EdgeMetric, w); err != nil {
		return err
	}
	p.Vertices, p.Edges = g.N(), g.NumEdges()
	p.Command, p.Version = "synth", rundir.Version()
	if err := rundir.WriteChecked(filepath.Join(out, "params.json"), p); err != nil {
		return err
	}
	if _, err := sp.metricPicture(filepath.Join(out, "metric_true.png"), learn.EdgeMetric, w, graphTruthTitle); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "gmlg synth: wrote %d sequence(s) of %d frames on a geometric graph of %d vertices and %d edges to %s in %.1fs\n",
		len(seqs), p.Frames, g.N(), g.NumEdges(), out, time.Since(start).Seconds())
	fmt.Fprintf(stdout, "  picture: %s (true edge weights)\n", filepath.Join(out, "metric_true.png"))
	fmt.Fprintf(stdout, "  next: %s\n", learnHint(p, out))
	return nil
}
