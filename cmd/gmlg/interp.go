package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot"
	"github.com/gmlg/gmlg/ot/draw"
)

// interpParams are recorded in the interpolation's params.json.
type interpParams struct {
	Command    string       `json:"command"`
	Version    string       `json:"version"`
	Method     string       `json:"method"`
	Source     string       `json:"source"`
	Target     string       `json:"target"`
	Run        string       `json:"run,omitempty"`
	MetricFile string       `json:"metric_file,omitempty"`
	Frames     int          `json:"frames"`
	Floor      float64      `json:"floor"`
	Model      runlog.Model `json:"model"`
	// from says where Model's barycenter settings come from (modelSource).
	from string
}

// interpSpec names every file interp writes (see learnSpec).
var interpSpec = rundir.Spec{Command: "interp", Outputs: []string{"interp-*.npy", "interp.png", "params.json"}}

func init() {
	register(&command{
		name:    "interp",
		summary: "interpolate between two histograms with a learned metric, a uniform one, or linearly (on a graph: DIR is its folder)",
		usage:   "[options] SOURCE TARGET | [options] DIR",
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			p := interpParams{Frames: 10, Model: runlog.DefaultModel()}
			var out, pattern string
			var force bool
			var seq int
			outFlags(fs, &out, &force, "interp", "output `folder`")
			fs.StringVar(&p.Method, "method", "", "interpolation: metric (Sinkhorn barycenters with the heat kernel of --run or --metric-file), uniform (the same with all weights 1, Euclidean), or linear ((1−t)·source + t·target); empty = metric when a metric is given, else uniform")
			fs.StringVar(&p.Run, "run", "", "learning run `RUN_DIR`: its metric.npy, and its t, steps, scheme, metric kind and barycenter model (mode, tol, Anderson depth, Sinkhorn iterations) unless given here")
			fs.StringVar(&p.MetricFile, "metric-file", "", "metric `FILE.npy` in the [d,N] layout, or of E edge weights when DIR is a graph folder, or a run's checkpoint.gob (overrides the run's metric.npy)")
			fs.StringVar(&p.Model.Metric, "metric", p.Model.Metric, "parameterisation of --metric-file: vertex or edge")
			fs.IntVar(&p.Frames, "frames", p.Frames, "number of `frames` from t = 0 to t = 1, ≥ 2 and at most "+fmt.Sprint(limits.MaxFrames))
			fs.Float64Var(&p.Floor, "floor", 0, "add floor·max(I)/N to both histograms before normalising, ≥ 0")
			fs.StringVar(&pattern, "pattern", "", "file `glob` inside DIR (as for gmlg learn)")
			fs.IntVar(&seq, "sequence", 0, "with DIR: which `sequence` (0-based) gives the first and last frames")
			interpFlags(&p.Model, fs)
			return func(ctx context.Context, args []string) error {
				set := flagsGiven(fs)
				if p.Run != "" {
					rp, err := runParams(fs, p.Run, func(m *runlog.Model, fs *flag.FlagSet) {
						interpFlags(m, fs)
						fs.StringVar(&m.Metric, "metric", m.Metric, "")
					})
					if err != nil {
						return err
					}
					p.Model = rp.Model
					if p.MetricFile == "" {
						p.MetricFile = filepath.Join(p.Run, "metric.npy")
					}
				}
				p.from = modelSource(p.Run, set)
				stdout, _ := outputs(ctx)
				return runInterp(ctx, &p, args, pattern, seq, out, force, stdout)
			}
		},
	})
}

// runParams reads the params.json of the learning run in dir and
// re-applies the flags given on fs that declare declares onto its model,
// so that the command line wins over the run's record.
func runParams(fs *flag.FlagSet, dir string, declare func(*runlog.Model, *flag.FlagSet)) (*runlog.Record, error) {
	rp, err := readRunParams(dir)
	if err != nil {
		return nil, err
	}
	fs2 := flag.NewFlagSet("", flag.ContinueOnError)
	fs2.SetOutput(io.Discard)
	declare(&rp.Model, fs2)
	fs.Visit(func(f *flag.Flag) {
		if fs2.Lookup(f.Name) != nil && err == nil {
			err = fs2.Set(f.Name, f.Value.String())
		}
	})
	return rp, err
}

// readRunParams reads the params.json of a learning run.
func readRunParams(dir string) (*runlog.Record, error) {
	p := runlog.Record{Model: runlog.DefaultModel()}
	if err := runlog.ReadRecord(dir, &p); err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	return &p, nil
}

func runInterp(ctx context.Context, p *interpParams, args []string, pattern string, seq int, out string, force bool, stdout io.Writer) error {
	switch p.Method {
	case "":
		p.Method = "uniform"
		if p.MetricFile != "" {
			p.Method = "metric"
		}
	case "metric":
		if p.MetricFile == "" {
			return usagef("--method metric needs --run RUN_DIR or --metric-file FILE.npy")
		}
	case "uniform", "linear":
	default:
		return usagef("--method: unknown method %q (want metric, uniform or linear)", p.Method)
	}
	if p.Frames < 2 {
		return usagef("--frames must be at least 2, got %d", p.Frames)
	}
	if err := checkFrames("--frames", p.Frames); err != nil {
		return err
	}
	if !(p.Floor >= 0) || math.IsInf(p.Floor, 0) {
		return usagef("--floor must be a finite number ≥ 0, got %g", p.Floor)
	}
	if err := checkModel(&p.Model); err != nil {
		return err
	}
	inputs := append([]string{p.Run, p.MetricFile}, args...)
	if err := checkInputs(out, inputs...); err != nil {
		return err
	}
	applyThreads(p.Model.Threads)
	var src, dst []float64
	var sp dataset.Space
	switch len(args) {
	case 1:
		if st, err := os.Stat(args[0]); err == nil && !st.IsDir() {
			return usagef("one file given (%s): interp needs SOURCE and TARGET files, or a folder DIR", args[0])
		}
		var set *dataset.Set
		var err error
		sp, set, err = dataset.LoadSpace(args[0], &dataset.Options{Memory: limits.Memory, Pattern: pattern, Floor: p.Floor, MinFrames: 2})
		if err != nil {
			return err
		}
		if seq < 0 || seq >= len(set.Sequences) {
			return usagef("--sequence %d out of range: %s holds %d sequence(s)", seq, args[0], len(set.Sequences))
		}
		fr := set.Sequences[seq].Frames
		src, dst = fr[0].Data, fr[len(fr)-1].Data
		p.Source, p.Target = fr[0].Path, fr[len(fr)-1].Path
	case 2:
		var err error
		var shape, shape2 []int
		if src, shape, err = dataset.ReadHistogram(args[0], p.Floor, &dataset.Options{Memory: limits.Memory}); err != nil {
			return err
		}
		if dst, shape2, err = dataset.ReadHistogram(args[1], p.Floor, &dataset.Options{Memory: limits.Memory}); err != nil {
			return err
		}
		if dataset.ShapeString(shape) != dataset.ShapeString(shape2) {
			return fmt.Errorf("%s has shape %s but %s has shape %s", args[0], dataset.ShapeString(shape), args[1], dataset.ShapeString(shape2))
		}
		if sp.Graph, err = kernel.Cube(len(shape), shape[0]); err != nil {
			return err
		}
		p.Source, p.Target = args[0], args[1]
	case 0:
		return usagef("missing the histograms: give SOURCE TARGET files or a folder DIR")
	default:
		return usagef("expected SOURCE TARGET or DIR, got %d arguments", len(args))
	}
	if err := checkInterpMemory(p, sp); err != nil {
		return err
	}
	var recs [][]float64
	if p.Method == "linear" {
		recs = ot.Linear(src, dst, ot.Linspace(p.Frames))
	} else {
		fmt.Fprintln(stdout, p.Model.Line(p.from))
		var err error
		if recs, err = heatInterp(p, sp, src, dst); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p.Command, p.Version = "interp", rundir.Version()
	od, err := takeOutDir(ctx, out, interpSpec, force, p, inputs...)
	if err != nil {
		return err
	}
	defer od.Close()
	for j, f := range recs {
		a := &dataset.Array{Shape: sp.HistShape(), Data: f}
		if err := dataset.WriteNpyFile(filepath.Join(out, fmt.Sprintf("interp-%02d.npy", j)), a); err != nil {
			return err
		}
	}
	drew, err := framesPicture(sp, filepath.Join(out, "interp.png"), []draw.Frames{{Name: "interpolated", Frames: [][][]float64{recs}}}, p.title())
	if err != nil {
		return err
	}
	if !drew { // histograms on a graph without coordinates have no picture
		fmt.Fprintf(stdout, "gmlg interp: wrote %d frames (%s) to %s\n", len(recs), p.Method, out)
		return nil
	}
	fmt.Fprintf(stdout, "gmlg interp: wrote %d frames (%s) to %s; picture %s\n", len(recs), p.Method, out, filepath.Join(out, "interp.png"))
	return nil
}

// title is the title of interp.png.
func (p *interpParams) title() string {
	if p.Method == "metric" {
		return "metric interpolation (" + filepath.Base(p.MetricFile) + ")"
	}
	return p.Method + " interpolation"
}

// framesPicture draws the frames of every part on sp (Space.FramesImage).
func framesPicture(sp dataset.Space, path string, parts []draw.Frames, title string) (bool, error) {
	img, err := sp.FramesImage(parts, title)
	return runlog.WriteImage(path, img, err)
}

// heatInterp interpolates src and dst on sp with Sinkhorn barycenters
// under the heat kernel of p's metric (--method metric) or of unit weights
// (learn.NewKernel, ot.Interpolate).
func heatInterp(p *interpParams, sp dataset.Space, src, dst []float64) ([][]float64, error) {
	if err := checkSpaceT(sp, "--t", p.Model.T, p.Model.Steps); err != nil {
		return nil, err
	}
	cfg := p.Model.Config()
	cfg.Metric = sp.MetricKind(cfg.Metric)
	var theta []float64
	source := "the uniform metric"
	if p.Method == "metric" {
		var err error
		if theta, err = runlog.ReadMetric(p.MetricFile, sp, cfg.Metric); err != nil {
			return nil, err
		}
		if err := sp.Bound().CheckMetric(p.MetricFile, theta, p.Model.T, p.Model.Steps); err != nil {
			return nil, err
		}
		source = "metric " + p.MetricFile
	}
	h, err := learn.NewKernel(sp.Graph, theta, cfg)
	if err != nil {
		return nil, runlog.ExplainEval(kernel.ExplainNotPosDef(err, source, "--t, --steps"))
	}
	defer h.Close()
	recs, err := ot.Interpolate(h, []ot.Sequence{{Source: src, Target: dst, Frames: p.Frames}}, &cfg.Sinkhorn)
	if err != nil {
		return nil, runlog.ExplainEval(err)
	}
	return recs[0], nil
}
