package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// evalParams are recorded in eval.json with the results.
type evalParams struct {
	Command    string            `json:"command"`
	Version    string            `json:"version"`
	Data       runlog.Data       `json:"data"`
	MetricFile string            `json:"metric_file"`
	Run        string            `json:"run,omitempty"`
	Model      runlog.Model      `json:"model"`
	Kernel     runlog.KernelInfo `json:"kernel"`
	Result     evalResult        `json:"result"`
	// from says where Model's barycenter settings come from (modelSource).
	from string
}

// evalResult is the value of the objective and its parts.
type evalResult struct {
	F           float64     `json:"F"`
	Data        float64     `json:"data_term"`
	FC          float64     `json:"f_c"`
	FS          float64     `json:"f_s"`
	Regularizer float64     `json:"regularizer"`
	PerFrame    [][]float64 `json:"loss_per_frame"`
	GradNorm    float64     `json:"grad_norm"`
	GradMax     float64     `json:"grad_max"`
	Seconds     float64     `json:"seconds"`
}

// evalSpec names every file eval writes (see learnSpec).
var evalSpec = rundir.Spec{Command: "eval", Outputs: []string{"eval.json", "grad.npy", "rec-*.npy", "recs.png"}}

func init() {
	register(&command{
		name:    "eval",
		summary: "evaluate the objective and its gradient at a metric on a dataset, grid or graph (F in eval.json, ∇ in grad.npy)",
		usage:   "[options] DIR | --run RUN_DIR [DIR]",
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			p := evalParams{Model: runlog.DefaultModel(), Data: runlog.Data{Kind: runlog.Frames}}
			var out string
			var force bool
			outFlags(fs, &out, &force, "eval", "output `folder` for eval.json, grad.npy, the reconstructions rec-*.npy and recs.png")
			fs.StringVar(&p.MetricFile, "metric-file", "", "metric `FILE.npy` in the [d,N] layout, or of E edge weights for graph data (the metric itself, not its log), or a run's checkpoint.gob; empty = the run's metric.npy, or the uniform metric (all ones)")
			fs.StringVar(&p.Run, "run", "", "learning run `RUN_DIR` whose settings and data (when DIR is not given) are used unless given here")
			fs.StringVar(&p.Data.Pattern, "pattern", "", "file `glob` of the frames inside DIR (as for gmlg learn)")
			fs.Float64Var(&p.Data.Floor, "floor", 0, "add floor·max(I)/N to every frame before normalising, ≥ 0")
			objectiveFlags(&p.Model, fs)
			return func(ctx context.Context, args []string) error {
				set := flagsGiven(fs)
				if p.Run != "" {
					rp, err := runParams(fs, p.Run, objectiveFlags)
					if err != nil {
						return err
					}
					p.Model = rp.Model
					d := rp.Data
					if set["pattern"] {
						d.Pattern = p.Data.Pattern
					}
					if set["floor"] {
						d.Floor = p.Data.Floor
					}
					p.Data = d
					if p.MetricFile == "" {
						p.MetricFile = filepath.Join(p.Run, "metric.npy")
					}
				}
				switch len(args) {
				case 0:
					if p.Run == "" {
						return usagef("missing the data folder DIR (see gmlg eval -h)")
					}
				case 1:
					p.Data.Dir = args[0]
				default:
					return usagef("expected one data folder, got %d arguments", len(args))
				}
				p.from = modelSource(p.Run, set)
				stdout, _ := outputs(ctx)
				return runEval(ctx, &p, out, force, stdout)
			}
		},
	})
}

func runEval(ctx context.Context, p *evalParams, out string, force bool, stdout io.Writer) error {
	if err := checkModel(&p.Model); err != nil {
		return err
	}
	inputs := []string{p.Data.Dir, p.Run, p.MetricFile}
	if err := checkInputs(out, inputs...); err != nil {
		return err
	}
	applyThreads(p.Model.Threads)
	if !(p.Data.Floor >= 0) || math.IsInf(p.Data.Floor, 0) {
		return usagef("--floor must be a finite number ≥ 0, got %g", p.Data.Floor)
	}
	src, err := p.Data.Read(&p.Model)
	if err != nil {
		return err
	}
	_, stderr := outputs(ctx)
	if src.Set != nil {
		warnFrames(stderr, "eval", src.Set)
	}
	if err := src.Check(&p.Model); err != nil {
		return optionErr(err)
	}
	obj, err := src.Objective(&p.Model)
	if err != nil {
		return err
	}
	defer obj.Close()
	fmt.Fprintln(stdout, p.Model.Line(p.from))
	kind := p.Model.MetricKind()
	x := make([]float64, obj.Dim())
	if p.MetricFile != "" {
		theta, err := runlog.ReadMetric(p.MetricFile, src.Space, kind)
		if err != nil {
			return err
		}
		if err := src.Space.Bound().CheckMetric(p.MetricFile, theta, p.Model.T, p.Model.Steps); err != nil {
			return err
		}
		x = learn.LogOf(theta)
	} else {
		p.MetricFile = "ones"
	}
	p.Kernel = runlog.NewKernelInfo(obj, src.Space.Alpha())
	grad := make([]float64, obj.Dim())
	t0 := time.Now()
	f, err := obj.Eval(grad, x)
	if err != nil {
		return runlog.ExplainEval(err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	terms := obj.LastTerms()
	gn, gm := 0.0, 0.0
	for _, v := range grad {
		gn += v * v
		gm = math.Max(gm, math.Abs(v))
	}
	p.Result = evalResult{F: f, Data: terms.Data, FC: terms.FC, FS: terms.FS, Regularizer: terms.Regularizer,
		PerFrame: terms.PerFrame, GradNorm: math.Sqrt(gn), GradMax: gm, Seconds: time.Since(t0).Seconds()}
	od, err := takeOutDir(ctx, out, evalSpec, force, nil, inputs...)
	if err != nil {
		return err
	}
	defer od.Close()
	if err := src.Space.WriteMetric(filepath.Join(out, "grad.npy"), kind, grad); err != nil {
		return err
	}
	p.Command, p.Version = "eval", rundir.Version()
	if err := rundir.WriteChecked(filepath.Join(out, "eval.json"), p); err != nil {
		return err
	}
	if _, err := runlog.WriteRecs(out, src.Space, src.Observed(), obj.Reconstructions(), "reconstructions at "+filepath.Base(p.MetricFile)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "F = %.17g\n  data term %.17g, regularizer %.17g (f_c %.6g, f_s %.6g)\n  ‖∇_x F‖ = %.6g, max |∂F/∂x| = %.6g\n  wrote %s and %s\n",
		f, terms.Data, terms.Regularizer, terms.FC, terms.FS, p.Result.GradNorm, gm,
		filepath.Join(out, "eval.json"), filepath.Join(out, "grad.npy"))
	return nil
}
