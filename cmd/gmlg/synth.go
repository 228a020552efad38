package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/learn/synth"
)

// synthParams are recorded in the dataset's params.json.
type synthParams struct {
	Command   string       `json:"command"`
	Version   string       `json:"version"`
	N         int          `json:"n"`
	Frames    int          `json:"frames"`
	Sequences int          `json:"sequences"`
	Truth     string       `json:"truth"`
	RawEnds   bool         `json:"raw_endpoints"`
	Model     runlog.Model `json:"model"`
	Backend   string       `json:"backend_used"`
	// Graph is the kind of graph of --graph ("" for the grid), with its
	// seed and size.
	Graph    string `json:"graph,omitempty"`
	Seed     uint64 `json:"seed,omitempty"`
	Vertices int    `json:"N,omitempty"`
	Edges    int    `json:"edges,omitempty"`
}

// synthSpec names every file synth writes (see learnSpec).
var synthSpec = rundir.Spec{Command: "synth", Outputs: []string{"array-*.npy", "a-metric.npy", "a-metric.png", "frames.png", "params.json",
	dataset.EdgesFile, dataset.CoordsFile, dataset.GraphTruthFile, "metric_true.png"}}

func init() {
	register(&command{
		name:    "synth",
		summary: "make a synthetic dataset (frames + true metric) with gmlg's forward model, on a grid or (--graph) on a random graph",
		usage:   "[options]",
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			p := synthParams{N: 20, Frames: 5, Sequences: 5, Truth: "analytic", RawEnds: true, Model: runlog.DefaultModel()}
			// A quick forward model: the demo learns it back in about a minute.
			p.Model.T, p.Model.Steps = 3e-3, 10
			var out string
			var force bool
			outFlags(fs, &out, &force, "synth", "output `folder`")
			fs.IntVar(&p.N, "n", p.N, "grid `side` n (the frames are n×n; with --graph, the graph has n² vertices), ≥ 4")
			fs.StringVar(&p.Graph, "graph", "", "make a graph folder instead of a grid: geometric (n² random points in the unit square joined when closer than 2/n) or sphere (the triangulated unit sphere of about n² vertices), each with a slow region at the centre; writes edges.npy, coords.npy, metric_true.npy; t is then in squared edges (default 0.2)")
			fs.Uint64Var(&p.Seed, "seed", 1, "with --graph geometric: `seed` of the random points")
			fs.IntVar(&p.Frames, "frames", p.Frames, "`frames` per sequence (t = 0 … 1), ≥ 3")
			fs.IntVar(&p.Sequences, "sequences", p.Sequences, fmt.Sprintf("number of `sequences` (1 = the reference's sticks; up to %d, the others are Gaussians crossing the square)", len(synth.PolePairs)))
			fs.StringVar(&p.Truth, "truth", p.Truth, "true metric: analytic (the reference's two tilted Gaussians) or uniform")
			fs.BoolVar(&p.RawEnds, "raw-endpoints", p.RawEnds, "make the first and last frames the poles themselves, so that the true metric reproduces every frame when learning with --skip-endpoints; false gives the reference's blurred poles K(P/K·1)")
			kernelFlags(&p.Model, fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q (synth takes options only)", args[0])
				}
				stdout, _ := outputs(ctx)
				if p.Graph != "" {
					set := flagsGiven(fs)
					if !set["t"] {
						p.Model.T = synthGraphT
					}
					if !set["steps"] {
						p.Model.Steps = synthGraphSteps
					}
					if !set["truth"] {
						p.Truth = "slow-region"
					}
				}
				if p.Graph == "" || p.Graph == "sphere" {
					p.Seed = 0
				}
				return runSynth(ctx, &p, out, force, stdout)
			}
		},
	})
}

// The graphs of gmlg synth --graph (package synth): geometric, a random
// geometric graph in the unit square, and sphere, the triangulated unit
// sphere, each with a slow region as its true metric.
var synthGraphs = map[string]func(n int, seed uint64) (*synth.Graph, error){
	"geometric": synth.Geometric,
	"sphere":    func(n int, _ uint64) (*synth.Graph, error) { return synth.Sphere(n) },
}

// synthGraphT and synthGraphSteps are the diffusion time (in squared edges,
// see dataset.Space) and steps of synth --graph when --t and --steps are
// not given: a blur over about √(2t) ≈ 0.6 edges, like the grid's default
// on its grid.
const (
	synthGraphT     = 0.2
	synthGraphSteps = 10
)

func runSynth(ctx context.Context, p *synthParams, out string, force bool, stdout io.Writer) error {
	switch {
	case p.N < 4:
		return usagef("--n must be at least 4, got %d", p.N)
	case p.N > 512:
		return usagef("--n must be at most 512, got %d", p.N)
	case p.Frames < 3:
		return usagef("--frames must be at least 3, got %d", p.Frames)
	case p.Frames > 100:
		return usagef("--frames must be at most 100, got %d", p.Frames)
	case p.Sequences < 1 || p.Sequences > len(synth.PolePairs):
		return usagef("--sequences must be between 1 and %d, got %d", len(synth.PolePairs), p.Sequences)
	case p.Graph == "" && p.Truth != "analytic" && p.Truth != "uniform":
		return usagef("--truth: unknown metric %q (want analytic or uniform)", p.Truth)
	case p.Graph != "" && synthGraphs[p.Graph] == nil:
		return usagef("--graph: unknown graph %q (want geometric or sphere)", p.Graph)
	case p.Graph != "" && p.Truth != "slow-region":
		return usagef("--truth %s: the %s graph's true metric is its slow region (leave out --truth)", p.Truth, p.Graph)
	}
	if err := checkKernel(&p.Model); err != nil {
		return err
	}
	size := limits.Objective{Dim: 2, Side: p.N, Interior: max(p.Frames-2, 0) * p.Sequences, Endpoints: min(p.Frames, 2) * p.Sequences, Forward: true}
	if err := size.Check("synth's interpolation", "pass a smaller --n, --frames or --sequences"); err != nil {
		return err
	}
	applyThreads(p.Model.Threads)
	start := time.Now()
	sp, metric, theta, poles, err := synthSpace(p)
	if err != nil {
		return err
	}
	if err := checkSpaceT(sp, "--t", p.Model.T, p.Model.Steps); err != nil {
		return err
	}
	heat := p.Model.HeatOptions()
	p.Backend = kernel.DefaultBackend().Name()
	if heat.Backend != nil {
		p.Backend = heat.Backend.Name()
	}
	seqs, err := synth.Generate(&synth.Config{Graph: sp.Graph, Metric: metric, Theta: theta, Heat: heat,
		Iterations: p.Model.SinkhornIters, Frames: p.Frames, Poles: poles, RawEndpoints: p.RawEnds})
	if err != nil {
		return runlog.ExplainEval(err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p.Command, p.Version = "synth", rundir.Version()
	od, err := takeOutDir(ctx, out, synthSpec, force, p)
	if err != nil {
		return err
	}
	defer od.Close()
	pictures, err := dataset.WriteSynthetic(out, sp, theta, seqs, p.Truth)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("of %d×%d", p.N, p.N)
	if p.Graph != "" {
		where = fmt.Sprintf("on a %s graph of %d vertices and %d edges", p.Graph, p.Vertices, p.Edges)
	}
	fmt.Fprintf(stdout, "gmlg synth: wrote %d sequence(s) of %d frames %s to %s in %.1fs\n", len(seqs), p.Frames, where, out, time.Since(start).Seconds())
	if len(pictures) == 2 { // the true metric's, then the frames'
		fmt.Fprintf(stdout, "  pictures: %s (frames), %s (true metric)\n", pictures[1], pictures[0])
	}
	fmt.Fprintf(stdout, "  next: %s\n", learnHint(p, out))
	return nil
}

// synthSpace returns the grid or graph of p, the parameterisation and
// value of its true metric, and the poles of its sequences.
func synthSpace(p *synthParams) (dataset.Space, kernel.Metric, []float64, [][2][]float64, error) {
	if p.Graph != "" {
		sg, err := synthGraphs[p.Graph](p.N, p.Seed)
		if err != nil {
			return dataset.Space{}, nil, nil, nil, err
		}
		p.Vertices, p.Edges = sg.G.N(), sg.G.NumEdges()
		sp := dataset.Space{Graph: sg.G, Coords: &dataset.Array{Shape: []int{sg.G.N(), sg.Dim}, Data: sg.Coords}}
		return sp, kernel.EdgeMetric{G: sg.G}, sg.Weights, sg.Poles(p.Sequences), nil
	}
	g, err := kernel.Cube(2, p.N)
	if err != nil {
		return dataset.Space{}, nil, nil, nil, err
	}
	theta, err := synth.GridTruth(p.Truth, p.N)
	if err != nil {
		return dataset.Space{}, nil, nil, nil, err
	}
	poles, err := synth.GridPoles(2, p.N, p.Sequences)
	return dataset.Space{Graph: g}, kernel.VertexMetric{G: g}, theta, poles, err
}

// learnHint is the learn command that fits a synthetic dataset with its own
// forward model.
func learnHint(p *synthParams, out string) string {
	cmd := fmt.Sprintf("gmlg learn %s --t %g --steps %d", quoteArg(out), p.Model.T, p.Model.Steps)
	if p.Model.SinkhornIters != 50 {
		cmd += fmt.Sprintf(" --sinkhorn-iters %d", p.Model.SinkhornIters)
	}
	if p.Model.Scheme != "backward-euler" {
		cmd += " --scheme " + p.Model.Scheme
	}
	// On the synthetic graphs the data term is smaller than on a grid of
	// as many vertices: λ_s = 0.01 stops the first line search on the
	// 64-vertex geometric graph, and 0.001 learns every graph well
	// (correlation with the true weights 0.97 on 64 vertices, 0.99 and
	// 1.00 on the default geometric graph and sphere after 50 iterations).
	lambdaS := "0.01"
	if p.Graph != "" {
		lambdaS = "0.001"
	}
	cmd += " --lambda-s " + lambdaS
	if p.RawEnds {
		cmd += " --skip-endpoints"
	}
	return cmd + " --max-iter 50"
}
