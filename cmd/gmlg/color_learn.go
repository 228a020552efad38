package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot"
	"github.com/gmlg/gmlg/ot/color"
)

// colorLearnFlags are colorlearn's flags: the settings a run records in
// its params.json, and those that only say how this invocation works.
type colorLearnFlags struct {
	runlog.ColourRun
	loss     ot.Loss
	out      string
	force    bool
	resume   string // the run folder to continue, or ""
	store    bool
	progress string
	threads  int
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
--max-iter (a new total), --progress, --store, --threads and fast mode's
--adjoint and --anderson may be given with it; any other option is a usage error.
The result is the same as an uninterrupted run's (in fast
mode close to it: the Sinkhorn warm start restarts cold). The final point
always gets its snapshot, so --resume with --max-iter equal to the
checkpoint's iteration just writes the pictures of that point.`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := &colorLearnFlags{}
			o.declare(fs)
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

// declare declares colorlearn's flags on fs, with the paper's colour
// preset (dataset.ColourPreset) as defaults.
func (o *colorLearnFlags) declare(fs *flag.FlagSet) {
	pre := dataset.ColourPreset
	fs.StringVar(&o.out, "o", "colorlearn-out", "run `directory` for the results")
	fs.BoolVar(&o.force, "force", false, "write into a folder that is not empty, replacing the previous gmlg output there (other files stay)")
	fs.StringVar(&o.Pattern, "pattern", "*.png", "file name `glob` of the images inside DIR")
	fs.IntVar(&o.Bins, "bins", pre.Bins, "histogram `bins` n per channel (N = n³), at most "+fmt.Sprint(limits.MaxBins))
	fs.BoolVar(&o.DropSaturated, "drop-saturated", false, "drop pixels with a channel equal to 255 (reference-compatible histograms)")
	fs.Float64Var(&o.THeat, "t", pre.T, "heat diffusion `time` t_heat")
	fs.IntVar(&o.KHeat, "steps", pre.Steps, "implicit Euler `steps` of the heat kernel (k_heat)")
	fs.IntVar(&o.L, "sinkhorn-iters", pre.Iterations, "Sinkhorn `iterations` L per barycenter, ≥ 1")
	fs.Var(&o.loss, "loss", "data term: l2, l1 or kl")
	fs.Float64Var(&o.LambdaC, "lambda-c", 0, "weight of the closeness-to-1 regulariser")
	fs.Float64Var(&o.LambdaS, "lambda-s", pre.LambdaS, "weight of the smoothness regulariser")
	fs.IntVar(&o.MaxIter, "max-iter", pre.MaxIter, "maximum number of L-BFGS `iterations` (in all, counting a resumed run's; fast mode: on the finest grid)")
	fs.IntVar(&o.SaveEvery, "save-every", pre.SaveEvery, "write metric and histogram snapshots every `k` iterations (and at 1 and the end)")
	fs.StringVar(&o.resume, "resume", "", "continue the run in `RUN_DIR` from its checkpoint, with all of its own settings (see above for the options that may be given with it)")
	fs.StringVar(&o.Backend, "backend", "", backendHelp("empty"))
	fs.BoolVar(&o.store, "store", false, "exact mode: keep every heat sub-step of an evaluation for its reverse pass (about 2·L·steps·N·(frames−2)·8 bytes; fewer solves, same result) instead of recomputing them")
	fs.StringVar(&o.Mode, "mode", "exact", "exact (the reference: L Sinkhorn iterations from scratch, unrolled gradient) or fast (converged, warm-started Sinkhorn, implicit gradient, coarse grids first; --max-iter then counts the finest grid's iterations)")
	fs.Float64Var(&o.Tol, "tol", 1e-4, "fast mode: Sinkhorn marginal and adjoint `tolerance` (L1 marginal violation, relative adjoint increment)")
	fs.IntVar(&o.Coarse, "coarse", 1, "fast mode: coarse `levels` learnt first (each halves n: 1 at n = 16 means 8³ then 16³)")
	fs.IntVar(&o.CoarseIters, "coarse-iters", learn.DefaultCoarseIters, "fast mode: L-BFGS `iterations` on each coarse level")
	fs.StringVar(&o.Adjoint, "adjoint", "gmres", "fast mode: adjoint `solver` of the implicit gradient, gmres or fixed-point (more kernel applications)")
	fs.IntVar(&o.Anderson, "anderson", 5, "fast mode: Anderson acceleration `depth` of the Sinkhorn iterations (0 = off: plain iterations)")
	fs.IntVar(&o.Polish, "polish", 0, "fast mode: finish with this many L-BFGS `iterations` on the exact (reference) objective, started from the finest-level iterate that scores best on it (scored every --polish-every iterations; the finest level stops at the first score above the best); 0 = off. See docs/colour.md")
	fs.IntVar(&o.PolishEvery, "polish-every", 0, "fast mode with --polish: score the finest level's iterates with the exact objective every `k` iterations, into exact.tsv (fewer scores cost less, more stop the level closer to the best iterate); 0 = "+fmt.Sprint(learn.DefaultPolishEvery))
	fs.StringVar(&o.progress, "progress", "auto", "progress display: log (a line per iteration on stderr), none, or auto (log)")
	fs.IntVar(&o.threads, "threads", 0, "number of CPU `threads` (Go's GOMAXPROCS: the solves and the elementwise work); 0 = all cores; the results do not depend on it")
	for _, a := range [][3]string{{"n", "bins", ""}, {"L", "sinkhorn-iters", ""}, {"iters", "max-iter", ""}, {"q", "progress", "none"}} {
		aliasFlag(fs, a[0], a[1], a[2])
	}
}

// colorResumeFlags are the flags that colorlearn --resume accepts: the
// iteration count, how the work is stored, the progress output, the threads
// and fast mode's solvers, none of which change the model (see
// checkResumeFlags).
var colorResumeFlags = []string{"max-iter", "progress", "store", "threads", "adjoint", "anderson"}

// colorLearnArgs checks colorlearn's positional arguments and returns the
// image folder: the one given, or with --resume the run's own, after
// setting o to the run's settings.
func colorLearnArgs(fs *flag.FlagSet, o *colorLearnFlags, args []string) (string, error) {
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
	return o.resumed(flagsGiven(fs))
}

// resumed sets o to the settings recorded in the params.json of the run
// o.resume, except those of the flags in given (which checkResumeFlags
// allowed), and returns the run's image folder.
func (o *colorLearnFlags) resumed(given map[string]bool) (string, error) {
	path := filepath.Join(o.resume, colorParamsFile)
	p, err := runlog.ReadColourRun(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("--resume: %s is not a colorlearn run folder: %w", o.resume, err)
		}
		return "", fmt.Errorf("--resume: %w", err)
	}
	if err := o.loss.Set(p.Loss); err != nil {
		return "", fmt.Errorf("--resume: %s: %w", path, err)
	}
	flags := o.ColourRun
	o.ColourRun, o.out = *p, o.resume
	o.Mode = p.RunMode()
	if given["max-iter"] {
		o.MaxIter = flags.MaxIter
	}
	if given["adjoint"] {
		o.Adjoint = flags.Adjoint
	}
	if given["anderson"] {
		o.Anderson = flags.Anderson
	}
	return p.Input, nil
}

// check validates colorlearn's options, as usage errors.
func (o *colorLearnFlags) check() error {
	switch {
	case o.Bins < 2:
		return usagef("--bins must be at least 2, got %d", o.Bins)
	case !(o.THeat > 0):
		return usagef("--t must be positive, got %g", o.THeat)
	case o.KHeat < 1:
		return usagef("--steps must be at least 1, got %d", o.KHeat)
	case o.L < 1:
		return usagef("--sinkhorn-iters must be at least 1, got %d", o.L)
	case o.MaxIter < 1:
		return usagef("--max-iter must be at least 1, got %d", o.MaxIter)
	case o.SaveEvery < 1:
		return usagef("--save-every must be at least 1, got %d", o.SaveEvery)
	case o.LambdaC < 0 || o.LambdaS < 0:
		return usagef("--lambda-c and --lambda-s must be non-negative")
	case o.progress != "auto" && o.progress != "log" && o.progress != "none":
		return usagef("--progress: unknown mode %q (want auto, log or none)", o.progress)
	case o.Mode != "exact" && o.Mode != "fast":
		return usagef("--mode: unknown mode %q (want exact or fast)", o.Mode)
	case o.Mode == "fast" && o.store:
		return usagef("--store applies to exact mode only (fast mode's kernel applications are not differentiated one by one)")
	case o.Mode == "fast" && (!(o.Tol > 0) || o.Coarse < 0 || o.CoarseIters < 1 || o.Polish < 0 || o.PolishEvery < 0):
		return usagef("--tol and --coarse-iters must be positive, --coarse, --polish and --polish-every non-negative")
	case o.Mode != "fast" && o.Polish != 0:
		return usagef("--polish applies to fast mode only (exact mode minimises the exact objective throughout)")
	case o.Polish == 0 && o.PolishEvery != 0:
		return usagef("--polish-every applies with --polish only (it spaces the scores that choose the polish's start)")
	}
	if err := checkBins("--bins", o.Bins); err != nil {
		return err
	}
	if err := checkThreads("--threads", o.threads); err != nil {
		return err
	}
	return checkHeatT("--t", o.THeat, o.KHeat, 3, o.Bins)
}

// colorLearn runs colorlearn: it reads the images of dir as histograms on
// the colour cube (dataset.ReadColour) and learns their metric.
func colorLearn(ctx context.Context, dir string, o *colorLearnFlags, logw io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	if err := checkInputs(o.out, dir); err != nil {
		return err
	}
	files, err := dataset.ListImages(dir, o.Pattern)
	if err != nil {
		return err
	}
	if len(files) < 3 {
		return fmt.Errorf("%s: need at least 3 images matching %q (first, last and one to fit), found %d", dir, o.Pattern, len(files))
	}
	if err := checkColorLearnMemory(o, len(files)); err != nil {
		return err
	}
	col, err := dataset.ReadColour(files, &color.HistOptions{Bins: o.Bins, DropSaturated: o.DropSaturated}, &dataset.ImageOptions{Memory: limits.Memory})
	if err != nil {
		return err
	}
	backend := kernel.DefaultBackend()
	if o.Backend != "" {
		if backend, err = kernel.Backend(o.Backend); err != nil {
			return usagef("--backend: %v", err)
		}
	}
	applyThreads(o.threads)
	if err := o.record(dir, col, backend.Name()); err != nil {
		return err
	}
	od, err := takeColorRunDir(ctx, o.out, o.resume, o.force, dir)
	if err != nil {
		return err
	}
	defer od.Close()
	memory := kernel.Recompute
	if o.store {
		memory = kernel.Store
	}
	heat := kernel.HeatOptions{Backend: backend, Memory: memory}
	exact, err := o.Config(heat)
	if err != nil {
		return err
	}
	model, err := o.Objective(heat)
	if err != nil {
		return err
	}
	r := &colorRun{o: o, dir: dir, col: col, logw: logw, ckpt: filepath.Join(o.out, runlog.CheckpointName), exact: *exact, model: *model}
	return r.run(ctx)
}

// record completes the params.json of a run on the images col of dir,
// with the named kernel backend: the data's description, and fast mode's
// settings (cleared in exact mode) after checking them.
func (o *colorLearnFlags) record(dir string, col *dataset.Colour, backend string) error {
	o.Loss = o.loss.String()
	if err := o.Describe(dir, col, backend); err != nil {
		return err
	}
	return flagLimit(o.CheckFast())
}

// colorCheckResume makes sure that a resumed run's images, and the
// settings read back from its params.json, are those it started with.
func colorCheckResume(path string, p *runlog.ColourRun, logw io.Writer) error {
	old, err := runlog.ReadColourRun(path)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if old.DataSHA256 != p.DataSHA256 {
		return fmt.Errorf("--resume: the images in %s changed since the run started (checksum %s, now %s)", p.Input, old.DataSHA256, p.DataSHA256)
	}
	if !old.SameModel(p) {
		return fmt.Errorf("--resume: the settings differ from those of %s", path)
	}
	return nil
}
