package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gmlg/gmlg/learn/runlog"
)

// presets are the settings that --preset NAME gives the options the
// command line leaves out; fastPresets are those it gives in fast mode
// too, and largePresets those it gives in fast mode at --bins largeBins or
// more instead. "colour" is the paper's colour setting (Fig. 18): the
// images of the folder read as RGB histograms (runlog.Colour) at 16³ bins,
// t = 1e-3 in 20 steps, L = 50, L2 loss, λ_c = 0, λ_s = 1, 500
// iterations, a snapshot every 50; in fast mode a Sinkhorn tolerance of
// 1e-4, one coarse level and a warm-up of 50 iterations with 10 heat
// steps, or of 200 with 5 from 32³ on (docs/colour.md, "The warm-up").
var (
	presets = map[string]map[string]string{
		"":       {},
		"colour": {"t": "1e-3", "steps": "20", "sinkhorn-iters": "50", "loss": "l2", "lambda-c": "0", "lambda-s": "1", "max-iter": "500", "save-every": "50"},
	}
	fastPresets = map[string]map[string]string{
		"colour": {"tol": "1e-4", "coarse": "1", "warm-steps": "10", "warm-iters": "50"},
	}
	largePresets = map[string]map[string]string{
		"colour": {"warm-steps": "5", "warm-iters": "200"},
	}
)

// largeBins is the fewest bins per channel that largePresets apply to.
const largeBins = 32

// colourOnly and framesOnly are the options of one kind of data.
var (
	colourOnly = []string{"bins", "drop-saturated"}
	framesOnly = []string{"floor"}
)

func init() {
	register(&command{
		name:    "learn",
		summary: "learn a ground metric from a folder of frames on a grid or a graph, or of colour images (--preset colour); continue a run with --resume",
		usage: `[options] DIR | --resume RUN_DIR [--max-iter K]

DIR holds frames: .npy arrays (array-XX.npy, or array-SS-TT.npy for several
sequences) or grey PNG/JPEG images on a grid, or 1-D arrays on the graph of
DIR/edges.npy. With --preset colour, DIR holds colour images read as RGB
histograms at --bins bins per channel (the n³ colour cube; --drop-saturated
as the reference), and the preset gives the paper's colour settings to the
options left out: ` + presetHelp("colour") + `. "gmlg colorlearn" is
"gmlg learn --preset colour".

--resume RUN_DIR continues a run with every setting of its params.json; only
` + flagList(runlog.ResumeFlags) + ` may be given with it.`,
		setup: setupLearn,
	})
}

// presetHelp describes the values of the preset name.
func presetHelp(name string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(presets[name])) {
		parts = append(parts, "--"+k+" "+presets[name][k])
	}
	for _, k := range slices.Sorted(maps.Keys(fastPresets[name])) {
		parts = append(parts, "--"+k+" "+fastPresets[name][k]+" (fast mode)")
	}
	for _, k := range slices.Sorted(maps.Keys(largePresets[name])) {
		parts = append(parts, fmt.Sprintf("--%s %s (fast mode, --bins %d or more)", k, largePresets[name][k], largeBins))
	}
	return strings.Join(parts, ", ")
}

// learnFlags are learn's options: the run's record and those that only
// say how this invocation works.
type learnFlags struct {
	rec                      runlog.Record
	out, resume, preset, pro string
	force                    bool
}

func setupLearn(fs *flag.FlagSet) func(context.Context, []string) error {
	f := &learnFlags{rec: runlog.Record{Model: runlog.DefaultModel(), Optimizer: runlog.DefaultOptimizer()}}
	p := &f.rec
	outFlags(fs, &f.out, &f.force, "run", "run `folder` to write")
	fs.StringVar(&f.resume, "resume", "", "continue the run in `RUN_DIR` with all of its own settings")
	fs.StringVar(&f.preset, "preset", "", "settings for the options left out: empty for the reference's defaults, or colour (colour images as RGB histograms, the paper's colour settings)")
	fs.StringVar(&p.Data.Pattern, "pattern", "", "file `glob` of the frames or images inside DIR; empty = array-*.npy, else *.png/*.jpg/*.jpeg; taken in the numeric order of their names (array-2 before array-10)")
	fs.Float64Var(&p.Data.Floor, "floor", 0, "frames: add floor·max(I)/N to every value of a frame I before normalising (removes zeros for --loss kl; the reference's data use 1e-6), ≥ 0")
	binsFlag(fs, &p.Data.Bins)
	dropSaturatedFlag(fs, &p.Data.DropSaturated)
	objectiveFlags(&p.Model, fs)
	fs.BoolVar(&p.Model.Store, "store", false, "exact mode: keep every heat sub-step of an evaluation for its reverse pass (fewer solves, the same result, about 2·L·steps·N·frames·8 bytes more) instead of recomputing them")
	o := &p.Optimizer
	fs.IntVar(&o.MaxIter, "max-iter", o.MaxIter, "maximum number of L-BFGS `iterations` (accepted steps) on the data's grid with --steps, in all (a resumed run's count included), ≥ 1")
	fs.IntVar(&o.SaveEvery, "save-every", o.SaveEvery, "save the metric, pictures and a checkpoint every `K` iterations (and at iteration 1 and at the end), ≥ 1")
	fs.IntVar(&o.History, "history", o.History, "L-BFGS memory: number of correction `pairs` m, ≥ 1")
	fs.IntVar(&o.MaxLinesearch, "max-linesearch", o.MaxLinesearch, "maximum objective `evaluations` per line search, ≥ 1")
	fs.Float64Var(&o.FTol, "ftol", o.FTol, "stop when the relative decrease of the objective is ≤ ftol (scipy's factr·eps); 0 disables")
	fs.Float64Var(&o.GTol, "gtol", o.GTol, "stop when the largest gradient component is ≤ gtol (scipy's pgtol); 0 disables")
	fs.StringVar(&o.Init, "init", o.Init, "starting metric: ones, or a `FILE.npy` holding a [d,N] metric, or E edge weights for graph data (not its log), or a run's checkpoint.gob")
	fs.IntVar(&o.Coarse, "coarse", 0, "fast mode: start from a metric learned coarse to fine on the grid halved `K` times (n → ⌈n/2⌉ each), then prolonged; 0 = off")
	fs.IntVar(&o.CoarseIters, "coarse-iters", o.CoarseIters, "fast mode with --coarse: L-BFGS `iterations` on each coarse level (short stages work best), ≥ 1")
	fs.IntVar(&o.WarmSteps, "warm-steps", 0, "fast mode: the heat `steps` of the warm-up (the coarse levels and --warm-iters), fewer than --steps: cheaper iterations that cross the objective's early plateaus sooner (docs/colour.md); 0 = --steps")
	fs.IntVar(&o.WarmIters, "warm-iters", 0, "fast mode with --warm-steps: L-BFGS `iterations` on the data's grid with --warm-steps heat sub-steps before those with --steps")
	fs.IntVar(&o.Polish, "polish", 0, "fast mode: finish with this many L-BFGS `iterations` on the exact (reference) objective, from the iterate that scores best on it (docs/colour.md); 0 = off")
	fs.IntVar(&o.PolishEvery, "polish-every", 0, "fast mode with --polish: score the iterates with the exact objective every `k` iterations (exact.tsv); 0 = 10")
	progressFlag(fs, &f.pro)
	return func(ctx context.Context, args []string) error {
		given := flagsGiven(fs)
		if err := checkProgress(f.pro); err != nil {
			return err
		}
		if _, ok := presets[f.preset]; !ok {
			return usagef("--preset: unknown preset %q (want colour, or none)", f.preset)
		}
		if f.resume != "" {
			if len(args) > 0 {
				return usagef("--resume continues RUN_DIR with its own data; do not also give DIR (%q)", args[0])
			}
			if err := checkResumeFlags(fs, append(slices.Clone(runlog.ResumeFlags), "preset")); err != nil {
				return err
			}
			if given["threads"] {
				if err := checkThreads("--threads", p.Model.Threads); err != nil {
					return err
				}
			}
			return resumeLearn(ctx, f, given)
		}
		switch len(args) {
		case 0:
			return usagef("missing the data folder DIR (see gmlg learn -h)")
		case 1:
		default:
			return usagef("expected one data folder, got %d arguments", len(args))
		}
		p.Data.Dir = args[0]
		if err := f.applyPreset(fs, given); err != nil {
			return err
		}
		return startLearn(ctx, f)
	}
}

// presetValues returns the values that preset gives in mode ("exact" or
// "fast") at bins bins per channel.
func presetValues(preset, mode string, bins int) map[string]string {
	values := maps.Clone(presets[preset])
	if mode == "fast" {
		maps.Copy(values, fastPresets[preset])
		if bins >= largeBins {
			maps.Copy(values, largePresets[preset])
		}
	}
	return values
}

// applyPreset gives the options left out the values of the preset, sets
// the kind of data it reads, and refuses the options of the other kind.
func (f *learnFlags) applyPreset(fs *flag.FlagSet, given map[string]bool) error {
	values := presetValues(f.preset, f.rec.Model.Mode, f.rec.Data.Bins)
	for name, v := range values {
		if !given[name] {
			if err := fs.Set(name, v); err != nil {
				return fmt.Errorf("preset %s: --%s %s: %w", f.preset, name, v, err)
			}
		}
	}
	// --warm-steps 0 turns the preset's warm-up off; so do a --steps that
	// leaves it no cheaper heat kernel and --coarse 0 --warm-iters 0,
	// which leave it no level.
	switch o := &f.rec.Optimizer; {
	case !given["warm-iters"] && o.WarmSteps == 0:
		o.WarmIters = 0
	case !given["warm-steps"] && !given["warm-iters"] && o.WarmSteps >= f.rec.Model.Steps:
		o.WarmSteps, o.WarmIters = 0, 0
	case !given["warm-steps"] && o.Coarse == 0 && o.WarmIters == 0:
		o.WarmSteps = 0
	}
	d := &f.rec.Data
	other, what := framesOnly, "colour images"
	d.Kind = runlog.Colour
	if f.preset != "colour" {
		d.Kind, d.Bins, other, what = runlog.Frames, 0, colourOnly, "frames (give --preset colour to learn from colour images)"
	}
	for _, name := range other {
		if given[name] {
			return usagef("--%s does not apply to %s", name, what)
		}
	}
	return nil
}

// checkRecord validates every setting of rec, as usage errors naming the
// options.
func checkRecord(rec *runlog.Record) error {
	if err := checkModel(&rec.Model); err != nil {
		return err
	}
	if err := flagLimit(rec.Optimizer.Check(&rec.Model)); err != nil {
		return err
	}
	d := &rec.Data
	if !(d.Floor >= 0) || math.IsInf(d.Floor, 0) {
		return usagef("--floor must be a finite number ≥ 0, got %g", d.Floor)
	}
	if d.Kind == runlog.Colour {
		if d.Bins < 2 {
			return usagef("--bins must be at least 2, got %d", d.Bins)
		}
		return checkBins("--bins", d.Bins)
	}
	return nil
}

// startLearn begins a new run.
func startLearn(ctx context.Context, f *learnFlags) error {
	p := &f.rec
	if err := checkRecord(p); err != nil {
		return err
	}
	if p.Optimizer.Init != "ones" {
		p.Optimizer.Init = absolute(p.Optimizer.Init)
	}
	p.Data.Dir = absolute(p.Data.Dir)
	inputs := []string{p.Data.Dir, initFile(p.Optimizer.Init)}
	if err := checkInputs(f.out, inputs...); err != nil {
		return err
	}
	applyThreads(p.Model.Threads)
	j, err := newJob(ctx, p, f.out, f.pro)
	if err != nil {
		return err
	}
	x0, err := j.StartPoint()
	if err != nil {
		return err
	}
	od, err := takeOutDir(ctx, f.out, learnSpec, f.force, nil, inputs...)
	if err != nil {
		return err
	}
	defer od.Close()
	return runErr(j.Run(ctx, x0, nil))
}

// resumeLearn continues the run in f.resume from its checkpoint, with the
// options a resumed run may change that the command line gives.
func resumeLearn(ctx context.Context, f *learnFlags, given map[string]bool) error {
	dir := f.resume
	od, err := openRunDir(ctx, dir, "gmlg learn --resume", learnSpec)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	defer od.Close()
	j, ck, err := runlog.ResumeJob(dir, func(rec *runlog.Record) error {
		m, o := &rec.Model, &f.rec.Model
		for name, set := range map[string]func(){
			"max-iter": func() { rec.Optimizer.MaxIter = f.rec.Optimizer.MaxIter },
			"threads":  func() { m.Threads = o.Threads },
			"store":    func() { m.Store = o.Store },
			"adjoint":  func() { m.Adjoint = o.Adjoint },
			"anderson": func() { m.Anderson = o.Anderson },
		} {
			if given[name] {
				set()
			}
		}
		if f.preset == "colour" && rec.Data.Kind != runlog.Colour {
			return usagef("--preset colour: the run in %s learns from %s data", dir, rec.Data.Kind)
		}
		if err := checkRecord(rec); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, runlog.ParamsName), err)
		}
		return checkInputs(dir, rec.Data.Dir, initFile(rec.Optimizer.Init))
	})
	if err != nil {
		return optionErr(fmt.Errorf("--resume: %w", err))
	}
	if ck == nil {
		_, stderr := outputs(ctx)
		fmt.Fprintf(stderr, "gmlg learn --resume: %s holds no checkpoint yet (the run stopped before its first iteration); starting it again with its own settings\n", dir)
	}
	applyThreads(j.Rec.Model.Threads)
	prepareJob(ctx, j, f.pro)
	var x0 []float64
	if ck == nil {
		if x0, err = j.StartPoint(); err != nil {
			return err
		}
	}
	return runErr(j.Run(ctx, x0, ck))
}

// newJob reads the data of rec for a run in dir (runlog.NewJob), with
// the warnings about its frames.
func newJob(ctx context.Context, rec *runlog.Record, dir, progress string) (*runlog.Job, error) {
	j, err := runlog.NewJob(rec, dir)
	if err != nil {
		return nil, optionErr(err)
	}
	prepareJob(ctx, j, progress)
	if set := j.Source().Set; set != nil {
		warnFrames(j.Stderr, "learn", set)
	}
	return j, nil
}

// prepareJob sets where the job j reports.
func prepareJob(ctx context.Context, j *runlog.Job, progress string) {
	j.Stdout, j.Stderr = outputs(ctx)
	j.Progress, j.Resume = progress, resumeCommand("learn", j.Dir)
}

// runErr is the error of a finished job: an interruption exits with
// status 130.
func runErr(err error) error {
	if errors.Is(err, runlog.ErrInterrupted) {
		return exitError{err, 130}
	}
	return optionErr(err)
}

// optionErr makes an error of the run's options a usage error.
func optionErr(err error) error {
	var oe *runlog.OptionError
	if errors.As(err, &oe) {
		return usageError{err}
	}
	return err
}

// initFile is the file an --init value names, "" for the uniform start.
func initFile(init string) string {
	if init == "ones" {
		return ""
	}
	return init
}

// absolute is path made absolute when it can be (a run resumed from
// another folder finds its inputs).
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// checkResumeFlags returns a usage error naming every flag given on fs
// that is not in allowed (or --resume itself), or nil: a resumed run takes
// every setting from its params.json, and the command line may only give
// those that cannot change its result (runlog.ResumeFlags).
func checkResumeFlags(fs *flag.FlagSet, allowed []string) error {
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" && !slices.Contains(allowed, f.Name) {
			bad = append(bad, f.Name)
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return usagef("%s cannot be given with --resume: the run's params.json sets every setting, and only %s may change",
		flagList(bad), flagList(allowed))
}

// resumeCommand is the shell command that continues the run of command
// cmd in dir, quoted for the shell, naming gmlg as the user ran it
// (os.Args[0], e.g. bin/gmlg) so that it works when pasted.
func resumeCommand(cmd, dir string) string {
	prog := "gmlg"
	if len(os.Args) > 0 && os.Args[0] != "" {
		prog = os.Args[0]
	}
	return quoteArg(prog) + " " + cmd + " --resume " + quoteArg(dir)
}

// quoteArg quotes a path for a shell command line when it needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// progressFlag declares --progress.
func progressFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "progress", "auto", "progress display: bar (on a terminal), log (structured lines on stderr), none, or auto (bar on a terminal, log otherwise)")
}

// checkProgress validates a --progress value.
func checkProgress(mode string) error {
	switch mode {
	case "auto", "bar", "log", "none":
		return nil
	}
	return usagef("--progress: unknown mode %q (want auto, bar, log or none)", mode)
}

// progressWriter is where a command that prints progress lines writes
// them under --progress mode: stderr, or nowhere with none.
func progressWriter(ctx context.Context, mode string) io.Writer {
	if mode == "none" {
		return io.Discard
	}
	_, stderr := outputs(ctx)
	return stderr
}
