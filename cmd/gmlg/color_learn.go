package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot"
	"github.com/gmlg/gmlg/ot/color"
	"github.com/gmlg/gmlg/ot/draw"
)

// The paper's colour-learning preset (docs/method.md,
// "Defaults and paper presets", Fig. 18 row): seldovia2 at 16³, loss L2,
// t_heat = 1e-3, 20 implicit steps, L = 50 Sinkhorn iterations, λ_c = 0,
// λ_s = 1, 500 L-BFGS iterations, a snapshot every 50. These are colorlearn's
// defaults.
const (
	colorPresetBins      = 16
	colorPresetT         = 1e-3
	colorPresetSteps     = 20
	colorPresetL         = 50
	colorPresetLambdaS   = 1.0
	colorPresetIters     = 500
	colorPresetSaveEvery = 50
)

// colorLearnOptions are colorlearn's flags.
type colorLearnOptions struct {
	out           string
	force         bool
	pattern       string
	bins          int
	dropSaturated bool
	t             float64
	steps         int
	L             int
	loss          ot.Loss
	lambdaC       float64
	lambdaS       float64
	iters         int
	saveEvery     int
	resume        string // the run folder to continue, or ""
	backend       string
	store         bool
	mode          string
	tol           float64
	coarse        int
	coarseIters   int
	polishEvery   int
	adjoint       string
	anderson      int
	polish        int
	progress      string
}

func init() {
	register(&command{
		name:    "colorlearn",
		summary: "learn the colour metric of a time-lapse (a folder of images) in RGB space",
		usage: `[options] DIR | --resume RUN_DIR [--max-iter K]

Computes the RGB histogram of every image of DIR (names matching --pattern,
in the numeric order of their names: frame-2 before frame-10) at n = --bins
bins per channel, and learns the [3,N] vertex metric of the
n³ colour grid (row 0 = B axis, 1 = G, 2 = R) whose heat-kernel displacement
interpolation between the first and last histogram best reproduces the
others. The defaults are the paper's preset (Fig. 18): n = 16, L2 loss,
t = 1e-3, 20 steps, L = 50, λ_c = 0, λ_s = 1, 500 iterations, a snapshot
every 50.

Saturated pixels: by default a pixel with a channel equal to 255 counts in
the top bin; --drop-saturated drops it, as the reference implementation does
(its histograms are then bitwise identical to the reference's).

The run directory (-o) receives params.json, metric-XXXX.npy ([3,N],
float64, exp of the optimisation variable) and metric.npy (the latest,
rewritten every iteration),
metric-XXXX.png (per-axis heat maps), hists-XXXX.png (observed histograms
above their reconstructions), loss.npy and loss.png (rewritten every
iteration) and checkpoint.gob (the optimiser state, every iteration).
params.json and checkpoint.gob carry a SHA-256 checksum: a file changed
or damaged since colorlearn wrote it is refused, never used. A folder that
is not empty is refused unless --force, which replaces a previous gmlg
output there as a whole and never a file that gmlg did not write; a
folder that another gmlg process is writing is refused, naming it.

Interrupting (Ctrl-C) saves a checkpoint and prints the command that
continues the run: --resume RUN_DIR reads every setting from the run's
params.json (its images, mode and iteration count included), and only
--max-iter (a new total), --progress, --store and fast mode's --adjoint
and --anderson may be given with it; any other option is a usage error.
The result is the same as an uninterrupted run's (in fast
mode close to it: the Sinkhorn warm start restarts cold). The final point
always gets its snapshot, so --resume with --max-iter equal to the
checkpoint's iteration just writes the pictures of that point.`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := &colorLearnOptions{}
			fs.StringVar(&o.out, "o", "colorlearn-out", "run `directory` for the results")
			fs.BoolVar(&o.force, "force", false, "write into a folder that is not empty, replacing the previous gmlg output there (other files stay)")
			fs.StringVar(&o.pattern, "pattern", "*.png", "file name `glob` of the images inside DIR")
			fs.IntVar(&o.bins, "bins", colorPresetBins, "histogram `bins` n per channel (N = n³), at most "+fmt.Sprint(limits.MaxBins))
			fs.BoolVar(&o.dropSaturated, "drop-saturated", false, "drop pixels with a channel equal to 255 (reference-compatible histograms)")
			fs.Float64Var(&o.t, "t", colorPresetT, "heat diffusion `time` t_heat")
			fs.IntVar(&o.steps, "steps", colorPresetSteps, "implicit Euler `steps` of the heat kernel (k_heat)")
			fs.IntVar(&o.L, "sinkhorn-iters", colorPresetL, "Sinkhorn `iterations` L per barycenter, ≥ 1")
			fs.Var(&o.loss, "loss", "data term: l2, l1 or kl")
			fs.Float64Var(&o.lambdaC, "lambda-c", 0, "weight of the closeness-to-1 regulariser")
			fs.Float64Var(&o.lambdaS, "lambda-s", colorPresetLambdaS, "weight of the smoothness regulariser")
			fs.IntVar(&o.iters, "max-iter", colorPresetIters, "maximum number of L-BFGS `iterations` (in all, counting a resumed run's; fast mode: on the finest grid)")
			fs.IntVar(&o.saveEvery, "save-every", colorPresetSaveEvery, "write metric and histogram snapshots every `k` iterations (and at 1 and the end)")
			fs.StringVar(&o.resume, "resume", "", "continue the run in `RUN_DIR` from its checkpoint, with all of its own settings (see above for the options that may be given with it)")
			fs.StringVar(&o.backend, "backend", "", backendHelp("empty"))
			fs.BoolVar(&o.store, "store", false, "exact mode: keep every heat sub-step of an evaluation for its reverse pass (about 2·L·steps·N·(frames−2)·8 bytes; fewer solves, same result) instead of recomputing them")
			fs.StringVar(&o.mode, "mode", "exact", "exact (the reference: L Sinkhorn iterations from scratch, unrolled gradient) or fast (converged, warm-started Sinkhorn, implicit gradient, coarse grids first; --max-iter then counts the finest grid's iterations)")
			fs.Float64Var(&o.tol, "tol", 1e-4, "fast mode: Sinkhorn marginal and adjoint `tolerance` (L1 marginal violation, relative adjoint increment)")
			fs.IntVar(&o.coarse, "coarse", 1, "fast mode: coarse `levels` learnt first (each halves n: 1 at n = 16 means 8³ then 16³)")
			fs.IntVar(&o.coarseIters, "coarse-iters", learn.DefaultCoarseIters, "fast mode: L-BFGS `iterations` on each coarse level")
			fs.StringVar(&o.adjoint, "adjoint", "gmres", "fast mode: adjoint `solver` of the implicit gradient, gmres or fixed-point (more kernel applications)")
			fs.IntVar(&o.anderson, "anderson", 5, "fast mode: Anderson acceleration `depth` of the Sinkhorn iterations (0 = off: plain iterations)")
			fs.IntVar(&o.polish, "polish", 0, "fast mode: finish with this many L-BFGS `iterations` on the exact (reference) objective, started from the finest-level iterate that scores best on it (scored every --polish-every iterations; the finest level stops at the first score above the best); 0 = off. See docs/colour.md")
			fs.IntVar(&o.polishEvery, "polish-every", 0, "fast mode with --polish: score the finest level's iterates with the exact objective every `k` iterations, into exact.tsv (fewer scores cost less, more stop the level closer to the best iterate); 0 = "+fmt.Sprint(learn.DefaultPolishEvery))
			fs.StringVar(&o.progress, "progress", "auto", "progress display: log (a line per iteration on stderr), none, or auto (log)")
			for _, a := range [][3]string{{"n", "bins", ""}, {"L", "sinkhorn-iters", ""}, {"iters", "max-iter", ""}, {"q", "progress", "none"}} {
				aliasFlag(fs, a[0], a[1], a[2])
			}
			return func(ctx context.Context, args []string) error {
				dir, err := colorLearnArgs(fs, o, args)
				if err != nil {
					return err
				}
				_, logw := outputs(ctx)
				if o.progress == "none" {
					logw = io.Discard
				}
				return colorLearn(ctx, dir, o, logw)
			}
		},
	})
}

// colorResumeFlags are the flags that colorlearn --resume accepts: the
// iteration count, how the work is stored, the progress output
// and fast mode's solvers, none of which change the model (see
// checkResumeFlags).
var colorResumeFlags = []string{"max-iter", "progress", "store", "adjoint", "anderson"}

// colorRetired are the options that colorlearn runs may have recorded and
// that it no longer has.
var colorRetired = []retiredOption{
	{member: []string{"uncorrected"}, flag: "--uncorrected", now: "fast mode corrects its objective to first order"},
	{member: []string{"exact_every"}, flag: "--exact-every", now: "the exact objective is scored only by --polish, every --polish-every iterations"},
}

// colorLearnArgs checks colorlearn's positional arguments and returns the
// image folder: the one given, or with --resume the run's own, after
// setting o to the run's settings.
func colorLearnArgs(fs *flag.FlagSet, o *colorLearnOptions, args []string) (string, error) {
	if o.resume == "" {
		if len(args) != 1 {
			return "", usagef("want exactly one image directory, got %d arguments", len(args))
		}
		return args[0], nil
	}
	if len(args) > 0 {
		return "", usagef("--resume continues RUN_DIR with its own images; do not also give DIR (%q)", args[0])
	}
	if err := checkResumeFlags(fs, colorResumeFlags); err != nil {
		return "", err
	}
	return colorResumeOptions(o, flagsGiven(fs))
}

// colorResumeOptions sets o to the settings recorded in the params.json of
// the run o.resume, except those of the flags in given (which
// checkResumeFlags allowed), and returns the run's image folder.
func colorResumeOptions(o *colorLearnOptions, given map[string]bool) (string, error) {
	p, err := colorReadParams(filepath.Join(o.resume, colorParamsFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("--resume: %s is not a colorlearn run folder: %w", o.resume, err)
		}
		return "", fmt.Errorf("--resume: %w", err)
	}
	if err := o.loss.Set(p.Loss); err != nil {
		return "", fmt.Errorf("--resume: %s: %w", filepath.Join(o.resume, colorParamsFile), err)
	}
	o.out = o.resume
	o.pattern, o.bins, o.dropSaturated = p.Pattern, p.Bins, p.DropSaturated
	o.t, o.steps, o.L = p.THeat, p.KHeat, p.L
	o.lambdaC, o.lambdaS, o.saveEvery = p.LambdaC, p.LambdaS, p.SaveEvery
	o.backend, o.mode = p.Backend, colorMode(p.Mode)
	o.tol, o.coarse, o.coarseIters = p.Tol, p.Coarse, p.CoarseIters
	o.polish, o.polishEvery = p.Polish, p.PolishEvery
	if !given["max-iter"] {
		o.iters = p.MaxIter
	}
	if !given["adjoint"] && colorMode(p.Mode) == "fast" {
		o.adjoint = recordedAdjoint(p.Adjoint)
	}
	if !given["anderson"] {
		o.anderson = p.Anderson
	}
	return p.Input, nil
}

// colorInterrupted is the error of a run stopped by Ctrl-C (exit status
// 130): it gives the command that continues the run when a checkpoint was
// saved.
func colorInterrupted(out, ckpt string) error {
	if _, err := os.Stat(ckpt); err != nil {
		return exitError{fmt.Errorf("interrupted before the first checkpoint; nothing to resume (start again with --force)"), 130}
	}
	return exitError{fmt.Errorf("interrupted; checkpoint saved. Resume with:\n  %s", resumeCommand("colorlearn", out)), 130}
}

// colorRun is a colorlearn run once its inputs are read: the histograms
// of its images on the n³ colour grid g, the parameters it records, the
// heat kernel's settings and where its checkpoint goes.
type colorRun struct {
	o      *colorLearnOptions
	dir    string // the image folder, as given
	g      *kernel.Graph
	hists  [][]float64
	params *colorLearnParams
	heat   kernel.HeatOptions
	ckpt   string
	logw   io.Writer
}

// colorLearn runs colorlearn.
func colorLearn(ctx context.Context, dir string, o *colorLearnOptions, logw io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	files, err := colorListImages(dir, o.pattern)
	if err != nil {
		return err
	}
	if len(files) < 3 {
		return fmt.Errorf("%s: need at least 3 images matching %q (first, last and one to fit), found %d", dir, o.pattern, len(files))
	}
	if err := checkColorLearnMemory(o, len(files)); err != nil {
		return err
	}
	hists, err := colorHistograms(files, o.bins, o.dropSaturated)
	if err != nil {
		return err
	}
	g, err := kernel.Cube(3, o.bins)
	if err != nil {
		return err
	}
	var backend = kernel.DefaultBackend()
	if o.backend != "" {
		if backend, err = kernel.Backend(o.backend); err != nil {
			return usagef("--backend: %v", err)
		}
	}
	params, err := colorNewParams(dir, files, o, g, backend.Name())
	if err != nil {
		return err
	}
	od, err := takeColorRunDir(ctx, o)
	if err != nil {
		return err
	}
	defer od.Close()
	memory := kernel.Recompute
	if o.store {
		memory = kernel.Store
	}
	r := &colorRun{o: o, dir: dir, g: g, hists: hists, params: params, logw: logw,
		heat: kernel.HeatOptions{T: o.t, Steps: o.steps, Backend: backend, Memory: memory},
		ckpt: filepath.Join(o.out, colorCheckpointFile)}
	if o.mode == "fast" {
		return r.fast(ctx)
	}
	return r.exact(ctx)
}

// check validates colorlearn's options, as usage errors.
func (o *colorLearnOptions) check() error {
	switch {
	case o.bins < 2:
		return usagef("--bins must be at least 2, got %d", o.bins)
	case !(o.t > 0):
		return usagef("--t must be positive, got %g", o.t)
	case o.steps < 1:
		return usagef("--steps must be at least 1, got %d", o.steps)
	case o.L < 1:
		return usagef("--sinkhorn-iters must be at least 1, got %d", o.L)
	case o.iters < 1:
		return usagef("--max-iter must be at least 1, got %d", o.iters)
	case o.saveEvery < 1:
		return usagef("--save-every must be at least 1, got %d", o.saveEvery)
	case o.lambdaC < 0 || o.lambdaS < 0:
		return usagef("--lambda-c and --lambda-s must be non-negative")
	case o.progress != "auto" && o.progress != "log" && o.progress != "none":
		return usagef("--progress: unknown mode %q (want auto, log or none)", o.progress)
	case o.mode != "exact" && o.mode != "fast":
		return usagef("--mode: unknown mode %q (want exact or fast)", o.mode)
	case o.mode == "fast" && o.store:
		return usagef("--store applies to exact mode only (fast mode's kernel applications are not differentiated one by one)")
	case o.mode == "fast" && (!(o.tol > 0) || o.coarse < 0 || o.coarseIters < 1 || o.polish < 0 || o.polishEvery < 0):
		return usagef("--tol and --coarse-iters must be positive, --coarse, --polish and --polish-every non-negative")
	case o.mode != "fast" && o.polish != 0:
		return usagef("--polish applies to fast mode only (exact mode minimises the exact objective throughout)")
	case o.polish == 0 && o.polishEvery != 0:
		return usagef("--polish-every applies with --polish only (it spaces the scores that choose the polish's start)")
	}
	if err := checkBins("--bins", o.bins); err != nil {
		return err
	}
	return checkHeatT("--t", o.t, o.steps, 3, o.bins)
}

// colorHistograms returns the RGB histograms of the image files, at n bins
// per channel.
func colorHistograms(files []string, n int, dropSaturated bool) ([][]float64, error) {
	hists := make([][]float64, len(files))
	for i, f := range files {
		img, err := colorLoadImage(f, 0)
		if err != nil {
			return nil, err
		}
		hists[i], err = color.Histogram(img, &color.HistOptions{Bins: n, DropSaturated: dropSaturated})
		if err != nil {
			return nil, fmt.Errorf("histogram of %s: %w", f, err)
		}
	}
	return hists, nil
}

// colorNewParams returns the params.json of a run of o on the images files
// of dir, on the colour grid g with the named kernel backend, after
// checking fast mode's settings.
func colorNewParams(dir string, files []string, o *colorLearnOptions, g *kernel.Graph, backend string) (*colorLearnParams, error) {
	sum, _, err := rundir.Checksum(files)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	input := dir // absolute, so that --resume finds the images from any folder
	if abs, err := filepath.Abs(dir); err == nil {
		input = abs
	}
	n := o.bins
	params := &colorLearnParams{
		Command: "colorlearn", Version: rundir.Version(), Input: input, Pattern: o.pattern, Files: names,
		DataSHA256: sum, Bins: n, N: g.N(), Dim: 3, Alpha: kernel.GridAlpha(n), DropSaturated: o.dropSaturated,
		THeat: o.t, KHeat: o.steps, L: o.L, Loss: o.loss.String(), LambdaC: o.lambdaC, LambdaS: o.lambdaS,
		MaxIter: o.iters, SaveEvery: o.saveEvery, Backend: backend, Mode: o.mode,
	}
	if o.mode != "fast" {
		return params, nil
	}
	params.Tol, params.Coarse, params.CoarseIters = o.tol, o.coarse, o.coarseIters
	if err := checkFastSolvers("--", o.adjoint, o.anderson); err != nil {
		return nil, err
	}
	params.Adjoint, params.Anderson = o.adjoint, o.anderson
	if o.polish > 0 {
		params.Polish, params.PolishEvery = o.polish, o.polishEvery
		if params.PolishEvery == 0 {
			params.PolishEvery = learn.DefaultPolishEvery
		}
	}
	for k, m := 0, n; k < o.coarse; k++ {
		if m = learn.CoarseSide(m); m < 2 {
			return nil, usagef("--coarse %d: halving n = %d that often leaves fewer than 2 bins", o.coarse, n)
		}
	}
	return params, nil
}

// exact is colorlearn --mode exact: learn.Run on the reference objective,
// checkpointing every iteration, and the final point's snapshot.
func (r *colorRun) exact(ctx context.Context) error {
	o := r.o
	resume, err := colorResumeState(o, r.ckpt, r.params, r.logw)
	if err != nil {
		return err
	}
	if err := rundir.WriteChecked(filepath.Join(o.out, colorParamsFile), r.params); err != nil {
		return err
	}
	fmt.Fprintf(r.logw, "colorlearn: %d images of %s at %d³ bins (N = %d, %d metric parameters), t = %g, %d steps, L = %d, λ_s = %g, %d iterations\n",
		len(r.hists), r.dir, o.bins, r.g.N(), 3*r.g.N(), o.t, o.steps, o.L, o.lambdaS, o.iters)
	rec := &colorExactRecorder{colorRun: r, theta: make([]float64, 3*r.g.N()), last: time.Now()}
	if resume != nil {
		rec.lastIter = resume.State.Iter
	}
	res, err := learn.Run(ctx, r.g, []learn.Sequence{{Frames: r.hists}}, r.config(),
		&learn.RunSettings{Settings: learn.Settings{MaxIter: o.iters, Observer: rec}, Resume: resume})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return colorInterrupted(o.out, r.ckpt)
		}
		return err
	}
	defer res.Objective.Close()
	if res.State.Iter == 0 {
		// f_s = ‖Lap θ‖ is not differentiable at the constant start, and a
		// large λ_s can stall the first line search (docs/method.md,
		// "Regularisers").
		fmt.Fprintf(r.logw, "warning: %s before the first iteration; the metric stays constant (try a smaller --lambda-s)\n", res.Status)
	}
	if err := r.finalSnapshot(res.Objective, res.Result, rec.theta); err != nil {
		return err
	}
	fmt.Fprintf(r.logw, "done: %s after %d iterations, F = %.10g; metric in %s\n",
		res.Status, res.State.Iter, res.F, filepath.Join(o.out, "metric.npy"))
	return nil
}

// config is the exact-mode objective's configuration of the run
// (fastConfig is fast mode's).
func (r *colorRun) config() *learn.Config {
	o := r.o
	return &learn.Config{
		Heat:     r.heat,
		Sinkhorn: ot.Settings{Iterations: o.L}, Loss: o.loss, LambdaC: o.lambdaC, LambdaS: o.lambdaS,
	}
}

// colorCheckpointer is the learn.Observer report that every colorlearn
// run shares: it writes the checkpoint file.
type colorCheckpointer struct{ path string }

// Checkpoint writes the run's checkpoint atomically.
func (c colorCheckpointer) Checkpoint(data []byte) error {
	return rundir.WriteFile(c.path, data, 0o644)
}

// colorExactRecorder is exact mode's learn.Observer: per iteration the log
// line (with the time per iteration since the previous one), the progress
// files (metric.npy through the buffer theta) and, every --save-every
// iterations, at the first and at the last, a snapshot; and the
// checkpoints.
type colorExactRecorder struct {
	learn.NopObserver
	*colorRun
	obj      *learn.Objective
	theta    []float64
	last     time.Time
	lastIter int
}

// LevelStart keeps the objective for the snapshots' reconstructions.
func (rec *colorExactRecorder) LevelStart(_ int, _ []int, obj *learn.Objective) { rec.obj = obj }

// Checkpoint writes the run's checkpoint atomically.
func (rec *colorExactRecorder) Checkpoint(data []byte) error {
	return colorCheckpointer{rec.ckpt}.Checkpoint(data)
}

// Iteration records an accepted iteration.
func (rec *colorExactRecorder) Iteration(p *learn.Progress) error {
	o := rec.o
	now := time.Now()
	per := now.Sub(rec.last) / time.Duration(max(1, p.Iter-rec.lastIter))
	rec.last, rec.lastIter = now, p.Iter
	fmt.Fprintf(rec.logw, "iter %4d/%d  F = %.10g  |g| = %.4g  evals %d  %.1fs/it  elapsed %s\n",
		p.Iter, o.iters, p.F, p.GradNorm, p.Evals, per.Seconds(), p.Elapsed.Round(time.Second))
	if err := colorSaveProgress(o.out, p.State.Losses, p.X, rec.theta); err != nil {
		return err
	}
	if p.Iter == 1 || p.Iter%o.saveEvery == 0 || p.Iter == o.iters {
		return colorSnapshot(o.out, p.Iter, p.X, o.bins, rec.hists, rec.obj.Reconstructions()[0])
	}
	return nil
}

// finalSnapshot makes sure that the final point has its snapshot even when
// the optimiser stopped early (convergence) or a resumed run had nothing
// left to do.
func (r *colorRun) finalSnapshot(obj *learn.Objective, res *learn.Result, theta []float64) error {
	final := filepath.Join(r.o.out, fmt.Sprintf("metric-%04d.npy", res.State.Iter))
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	if _, err := obj.Eval(nil, res.X); err != nil {
		return err
	}
	if err := colorSnapshot(r.o.out, res.State.Iter, res.X, r.o.bins, r.hists, obj.Reconstructions()[0]); err != nil {
		return err
	}
	return dataset.WriteNpyFile(filepath.Join(r.o.out, "metric.npy"), &dataset.Array{Shape: []int{3, r.g.N()}, Data: theta})
}

// colorSaveProgress rewrites dir's loss.npy, loss.png and metric.npy (exp x,
// through the buffer theta of len(x)).
func colorSaveProgress(dir string, losses, x, theta []float64) error {
	if err := dataset.WriteNpyFile(filepath.Join(dir, "loss.npy"), &dataset.Array{Shape: []int{len(losses)}, Data: losses}); err != nil {
		return err
	}
	if lp, err := draw.LossPlot(losses, &draw.LossOptions{Title: "colorlearn loss"}); err == nil {
		if err := savePicture(filepath.Join(dir, "loss.png"), lp); err != nil {
			return err
		}
	}
	for i, v := range x {
		theta[i] = math.Exp(v)
	}
	return dataset.WriteNpyFile(filepath.Join(dir, "metric.npy"), &dataset.Array{Shape: []int{3, len(x) / 3}, Data: theta})
}

// colorSnapshot writes metric-IIII.npy (exp x, [3,n³]), its heat maps
// metric-IIII.png and hists-IIII.png (the observed histograms above their
// reconstructions recs) into dir.
func colorSnapshot(dir string, iter int, x []float64, n int, hists, recs [][]float64) error {
	return colorSnapshotTag(dir, fmt.Sprintf("%04d", iter), x, n, hists, recs)
}

// colorSnapshotTag is colorSnapshot with the files' tag given (fast mode's
// polish writes metric-polish-XXXX.npy, …).
func colorSnapshotTag(dir, tag string, x []float64, n int, hists, recs [][]float64) error {
	theta := make([]float64, len(x))
	for i, v := range x {
		theta[i] = math.Exp(v)
	}
	a := &dataset.Array{Shape: []int{3, len(x) / 3}, Data: theta}
	if err := dataset.WriteNpyFile(filepath.Join(dir, "metric-"+tag+".npy"), a); err != nil {
		return err
	}
	pic, err := draw.MetricMaps(theta, 3, n, "metric, iteration "+tag, 240)
	if err != nil {
		return err
	}
	if err := savePicture(filepath.Join(dir, "metric-"+tag+".png"), pic); err != nil {
		return err
	}
	pic2, err := colorHistComparison(hists, recs, n, "iteration "+tag)
	if err != nil {
		return err
	}
	return savePicture(filepath.Join(dir, "hists-"+tag+".png"), pic2)
}

// colorResumeState returns the checkpoint of the exact-mode run that
// --resume continues (nil without --resume), after checking that the
// run's images and settings are those of params. (A new run's folder
// holds no checkpoint: takeColorRunDir refuses one that holds a run.)
func colorResumeState(o *colorLearnOptions, ckpt string, params *colorLearnParams, logw io.Writer) (*learn.Checkpoint, error) {
	if o.resume == "" {
		return nil, nil
	}
	ck, err := colorLoadAnyCheckpoint(ckpt)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if ck == nil {
		return nil, fmt.Errorf("--resume: no checkpoint %s", ckpt)
	}
	if ck.Level != learn.ExactLevel && ck.Level != 0 {
		return nil, fmt.Errorf("--resume: %s is not an exact-mode checkpoint", ckpt)
	}
	if err := colorCheckResume(filepath.Join(o.out, colorParamsFile), params, logw); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "resuming %s at iteration %d (F = %.6g)\n", o.out, ck.State.Iter, ck.State.F)
	return ck, nil
}

// colorCheckResume makes sure that a resumed run's images, and the
// settings read back from its params.json, are those it started with, and
// notes on logw the options of the run that gmlg no longer has.
func colorCheckResume(path string, p *colorLearnParams, logw io.Writer) error {
	old, err := colorReadParams(path)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if old.DataSHA256 != p.DataSHA256 {
		return fmt.Errorf("--resume: the images in %s changed since the run started (checksum %s, now %s)", p.Input, old.DataSHA256, p.DataSHA256)
	}
	if old.Bins != p.Bins || old.THeat != p.THeat || old.KHeat != p.KHeat ||
		old.L != p.L || old.Loss != p.Loss || old.LambdaC != p.LambdaC || old.LambdaS != p.LambdaS ||
		old.DropSaturated != p.DropSaturated || colorMode(old.Mode) != colorMode(p.Mode) ||
		old.Tol != p.Tol || old.Coarse != p.Coarse || old.CoarseIters != p.CoarseIters ||
		old.Polish != p.Polish || old.PolishEvery != p.PolishEvery {
		return fmt.Errorf("--resume: the settings differ from those of %s", path)
	}
	return noteRetired(logw, path, colorRetired)
}

// colorMode is the mode of a run's params ("exact" when not recorded).
func colorMode(m string) string {
	if m == "" {
		return "exact"
	}
	return m
}

// colorHistComparison draws the observed histograms above their
// reconstructions, on a common scale.
func colorHistComparison(obs, recs [][]float64, n int, title string) (image.Image, error) {
	labels := make([]string, len(obs))
	for i := range obs {
		labels[i] = fmt.Sprintf("obs %d", i)
	}
	opt := &draw.HistogramOptions{Size: 160}
	top, err := draw.HistogramStrip(obs, n, labels, opt)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		labels[i] = fmt.Sprintf("rec %d", i)
	}
	bottom, err := draw.HistogramStrip(recs, n, labels, opt)
	if err != nil {
		return nil, err
	}
	return draw.Stack(draw.Label(title, top.Bounds().Dx()), top, bottom), nil
}
