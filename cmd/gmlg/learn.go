package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// The files learn writes in a run folder, every one (its manifest lists them for
// --force).
var learnOutputs = []string{
	"params.json", "log.txt", "checkpoint.gob", "result.json", "loss.npy", "loss.png",
	"metric.npy", "metric.png", "metric-*.npy", "metric-*.png", "metric-vs-truth.png", "rec-*.npy", "recs.png", "recs-*.png",
}

// learnResumeFlags are the flags that --resume accepts: they do not change
// the result (see checkResumeFlags).
var learnResumeFlags = []string{"max-iter", "threads", "progress"}

func init() {
	register(&command{
		name:    "learn",
		summary: "learn a ground metric from a folder of frames on a grid, or on a graph given by edges.npy (or continue a run with --resume)",
		usage:   "[options] DIR | --resume RUN_DIR [--max-iter K]",
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			p := runlog.LearnRun{Model: runlog.DefaultModel(), Optimizer: runlog.DefaultOptimizer()}
			var out, resume, progress string
			var force bool
			outFlag(fs, &out, "run", "run `folder` to write")
			fs.BoolVar(&force, "force", false, "write into a folder that is not empty: the previous gmlg output there is removed as a whole; other files stay and are never overwritten")
			fs.StringVar(&resume, "resume", "", "continue the run in `RUN_DIR` with all of its own settings (only --max-iter, --threads and --progress may be given)")
			fs.StringVar(&p.Data.Pattern, "pattern", "", "file `glob` of the frames inside DIR; empty = array-*.npy, else *.png/*.jpg/*.jpeg; frames are taken in the numeric order of their names (array-2 before array-10)")
			fs.Float64Var(&p.Data.Floor, "floor", 0, "add floor·max(I)/N to every value of a frame I before normalising (removes zeros for --loss kl; the reference's data use 1e-6), ≥ 0")
			objectiveFlags(&p.Model, fs)
			fs.IntVar(&p.Optimizer.MaxIter, "max-iter", p.Optimizer.MaxIter, "maximum number of L-BFGS `iterations` (accepted steps), ≥ 1")
			fs.IntVar(&p.Optimizer.SaveEvery, "save-every", p.Optimizer.SaveEvery, "save the metric, pictures and a checkpoint every `K` iterations (and at iteration 1 and at the end), ≥ 1")
			fs.IntVar(&p.Optimizer.History, "history", p.Optimizer.History, "L-BFGS memory: number of correction `pairs` m, ≥ 1")
			fs.IntVar(&p.Optimizer.MaxLinesearch, "max-linesearch", p.Optimizer.MaxLinesearch, "maximum objective `evaluations` per line search, ≥ 1")
			fs.Float64Var(&p.Optimizer.FTol, "ftol", p.Optimizer.FTol, "stop when the relative decrease of the objective is ≤ ftol (scipy's factr·eps); 0 disables")
			fs.Float64Var(&p.Optimizer.GTol, "gtol", p.Optimizer.GTol, "stop when the largest gradient component is ≤ gtol (scipy's pgtol); 0 disables")
			fs.StringVar(&p.Optimizer.Init, "init", p.Optimizer.Init, "starting metric: ones, or a `FILE.npy` holding a [d,N] metric, or E edge weights for graph data (not its log)")
			fs.IntVar(&p.Optimizer.Coarse, "coarse", 0, "fast mode: start from a metric learned coarse to fine on the grid halved `K` times (n → ⌈n/2⌉ each), then prolonged; 0 = off")
			fs.IntVar(&p.Optimizer.CoarseIters, "coarse-iters", learn.DefaultCoarseIters, "fast mode with --coarse: L-BFGS `iterations` on each coarse level (short stages work best; see learn.DefaultCoarseIters), ≥ 1")
			fs.StringVar(&progress, "progress", "auto", "progress display: bar (on a terminal), log (structured lines on stderr), none, or auto (bar on a terminal, log otherwise)")
			return func(ctx context.Context, args []string) error {
				set := flagsGiven(fs)
				switch progress {
				case "auto", "bar", "log", "none":
				default:
					return usagef("--progress: unknown mode %q (want auto, bar, log or none)", progress)
				}
				if resume != "" {
					if len(args) > 0 {
						return usagef("--resume continues RUN_DIR with its own data; do not also give DIR (%q)", args[0])
					}
					if err := checkResumeFlags(fs, learnResumeFlags); err != nil {
						return err
					}
					maxIter := 0
					if set["max-iter"] {
						maxIter = p.Optimizer.MaxIter
					}
					threads := -1 // the run's own
					if set["threads"] {
						if err := checkThreads("--threads", p.Model.Threads); err != nil {
							return err
						}
						threads = p.Model.Threads
					}
					return resumeLearn(ctx, resume, maxIter, threads, progress)
				}
				switch len(args) {
				case 0:
					return usagef("missing the data folder DIR (see gmlg learn -h)")
				case 1:
				default:
					return usagef("expected one data folder, got %d arguments", len(args))
				}
				p.Data.Dir = args[0]
				return startLearn(ctx, &p, out, force, progress)
			}
		},
	})
}

// startLearn begins a new run.
func startLearn(ctx context.Context, p *runlog.LearnRun, out string, force bool, progress string) error {
	if err := checkModel(&p.Model); err != nil {
		return err
	}
	if err := flagLimit(p.Optimizer.Check()); err != nil {
		return err
	}
	if p.Optimizer.Coarse > 0 && (p.Model.Mode != "fast" || p.Model.Metric != "vertex") {
		return usagef("--coarse needs --mode fast and --metric vertex (got --mode %s --metric %s)", p.Model.Mode, p.Model.Metric)
	}
	if !(p.Data.Floor >= 0) || math.IsInf(p.Data.Floor, 0) {
		return usagef("--floor must be a finite number ≥ 0, got %g", p.Data.Floor)
	}
	if p.Optimizer.Init != "ones" {
		abs, err := filepath.Abs(p.Optimizer.Init)
		if err == nil {
			p.Optimizer.Init = abs
		}
	}
	if abs, err := filepath.Abs(p.Data.Dir); err == nil {
		p.Data.Dir = abs
	}
	applyThreads(p.Model.Threads)
	r, err := newRun(p, out, progress)
	if err != nil {
		return err
	}
	defer r.close()
	_, stderr := outputs(ctx)
	warnColour(stderr, "learn", r.ds.set)
	warnGaps(stderr, "learn", r.ds.set)
	x0, err := r.start()
	if err != nil {
		return err
	}
	od, err := takeOutDir(ctx, out, learnSpec, force, p.Data.Dir, initFile(p.Optimizer.Init))
	if err != nil {
		return err
	}
	defer od.Close()
	return r.optimize(ctx, x0, nil)
}

// resumeLearn continues the run in dir from its checkpoint.
func resumeLearn(ctx context.Context, dir string, maxIter, threads int, progress string) error {
	od, err := openRunDir(ctx, dir, "gmlg learn --resume", learnSpec)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	defer od.Close()
	var p runlog.LearnRun
	if err := runlog.ReadLearnRun(dir, &p); err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if err := checkInputs(dir, p.Data.Dir, initFile(p.Optimizer.Init)); err != nil {
		return err
	}
	if err := checkModel(&p.Model); err != nil {
		return fmt.Errorf("--resume: %s: %w", filepath.Join(dir, "params.json"), err)
	}
	if err := flagLimit(p.Optimizer.Check()); err != nil {
		return fmt.Errorf("--resume: %s: %w", filepath.Join(dir, "params.json"), err)
	}
	_, stderr := outputs(ctx)
	ck, err := runlog.ReadCheckpointIfAny(filepath.Join(dir, runlog.CheckpointName))
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if maxIter > 0 {
		p.Optimizer.MaxIter = maxIter
	}
	if threads >= 0 {
		p.Model.Threads = threads
	}
	applyThreads(p.Model.Threads)
	switch {
	case ck == nil:
		fmt.Fprintf(stderr, "gmlg learn --resume: %s holds no checkpoint yet (the run stopped before its first iteration); starting it again with its own settings\n", dir)
	case ck.Level == p.Optimizer.Coarse && ck.State.Iter >= p.Optimizer.MaxIter:
		return fmt.Errorf("--resume: the run in %s already made %d iterations (max-iter %d); pass a larger --max-iter to continue it",
			dir, ck.State.Iter, p.Optimizer.MaxIter)
	case ck.Done && maxIter == 0:
		return fmt.Errorf("--resume: the run in %s finished (%s); pass --max-iter to continue it", dir, ck.Status)
	}
	checksum := p.Data.Checksum
	r, err := newRun(&p, dir, progress)
	if err != nil {
		return err
	}
	defer r.close()
	if r.p.Data.Checksum != checksum {
		return fmt.Errorf("--resume: the frames in %s changed since the run started (checksum %s, now %s)", p.Data.Dir, checksum, r.p.Data.Checksum)
	}
	if ck == nil {
		x0, err := r.start()
		if err != nil {
			return err
		}
		return r.optimize(ctx, x0, nil)
	}
	r.p.Resumed++
	return r.optimize(ctx, nil, ck)
}

// initFile is the file an --init value names, "" for the uniform start.
func initFile(init string) string {
	if init == "ones" {
		return ""
	}
	return init
}

// learnRun is one learning run in progress; it is the learn.Observer of
// its learn.Run that writes the run folder, composed (observers) with the
// checkpoint file, the log and the progress bar of package runlog.
type learnRun struct {
	learn.NopObserver
	p    *runlog.LearnRun
	dir  string
	ds   *dataFolder
	obj  *learn.Objective // the current level's, open while it runs
	mode string
	log  *slog.Logger
	logf *os.File
	bar  *runlog.Bar
	note func(string) // a line for the terminal when a progress bar hides the log
	obs  [][][]float64
	snap *runlog.Snapshots

	truthCorr string   // correlation with the true metric, when known
	pictures  []string // the final pictures that finish drew
}

// newRun loads the data and readies the model (nothing is written yet).
func newRun(p *runlog.LearnRun, dir, progress string) (*learnRun, error) {
	ds, err := loadData(p.Data.Dir, p.Data.Pattern, p.Data.Floor)
	if err != nil {
		return nil, err
	}
	if ds.IsGraph() && p.Optimizer.Coarse > 0 {
		return nil, usagef("--coarse needs grid data; %s is a graph folder (%s)", p.Data.Dir, dataset.EdgesFile)
	}
	if err := p.Data.Describe(ds.set, ds.space); err != nil {
		return nil, err
	}
	p.Data.Gaps = ds.set.Gaps
	if err := prepareObjective(ds, &p.Model); err != nil {
		return nil, err
	}
	if p.Optimizer.Coarse > 0 {
		if _, err := learn.HalveGrid(ds.Graph.Dims()); err != nil {
			return nil, usagef("--coarse %d: the %v grid is too small to halve", p.Optimizer.Coarse, ds.Graph.Dims())
		}
	}
	p.Command, p.Version = "learn", rundir.Version()
	r := &learnRun{p: p, dir: dir, ds: ds, mode: progress, obs: ds.set.Frames()}
	// The loss curve and the reconstruction strip are redrawn at most
	// every 10 s during a run; the end and interruptions always draw them.
	r.snap = &runlog.Snapshots{Dir: dir, Space: ds.space, Kind: p.Model.MetricKind(), Finest: p.Optimizer.Coarse,
		Every: p.Optimizer.SaveEvery, Observed: r.obs, Period: 10 * time.Second}
	return r, nil
}

// start returns the log metric the run starts from: nil for the uniform
// metric, else that of its --init file.
func (r *learnRun) start() ([]float64, error) {
	p := r.p
	if p.Optimizer.Init == "ones" {
		return nil, nil
	}
	theta, err := r.ds.ReadMetric(p.Optimizer.Init, p.Model.MetricKind())
	if err == nil {
		err = r.ds.Bound().CheckMetric(p.Optimizer.Init, theta, p.Model.T, p.Model.Steps)
	}
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	return learn.LogOf(theta), nil
}

func (r *learnRun) close() {
	if r.logf != nil {
		r.logf.Close()
	}
}

// finest is the index of the data's own grid among the run's levels.
func (r *learnRun) finest() int { return r.p.Optimizer.Coarse }

// optimize runs learn.Run from x0 (nil: the uniform metric) or from the
// resume checkpoint, writing the run folder as it goes.
func (r *learnRun) optimize(ctx context.Context, x0 []float64, resume *learn.Checkpoint) error {
	stdout, stderr := outputs(ctx)
	if err := rundir.WriteChecked(filepath.Join(r.dir, "params.json"), r.p); err != nil {
		return err
	}
	bar, err := r.openLog(stderr)
	if err != nil {
		return err
	}
	r.logStart(resume)
	start := 0
	r.note = func(string) {} // the log lines already reach stderr unless a bar is drawn
	if bar {
		r.note = func(msg string) { fmt.Fprintln(stderr, "gmlg learn: "+msg) }
	}
	if resume != nil && resume.Level == r.finest() {
		start = resume.State.Iter
		r.snap.Saved = resume.State.Iter
	}
	r.bar = runlog.NewBar(stderr, bar, r.finest(), start, r.p.Optimizer.MaxIter)
	if ctx.Err() == nil {
		stop := context.AfterFunc(ctx, func() {
			r.bar.Note("interrupted: finishing the current iteration and saving a checkpoint (this can take a few seconds)…")
		})
		defer stop()
	}
	id, err := r.p.Identity()
	if err != nil {
		return err
	}
	if resume != nil {
		if err := runlog.CheckRun(filepath.Join(r.dir, runlog.CheckpointName), resume.Run, id); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
	}
	set := r.settings(x0, resume)
	set.Run = id
	t0 := time.Now()
	res, err := learn.Run(ctx, r.ds.Graph, r.ds.seqs, r.p.Model.Config(), set)
	r.bar.Finish()
	if err != nil {
		return r.failed(ctx, res, err)
	}
	defer res.Objective.Close()
	r.obj = res.Objective
	if err := r.finish(res.Result); err != nil {
		return err
	}
	if err := r.checkLinesearch(stderr, res); err != nil {
		return err
	}
	r.report(stdout, res.Result, time.Since(t0))
	return nil
}

// settings are the run's learn.RunSettings, with r, the log, the bar and
// the checkpoint file as observers.
func (r *learnRun) settings(x0 []float64, resume *learn.Checkpoint) *learn.RunSettings {
	o := &r.p.Optimizer
	obs := runlog.Observers{&runlog.Log{Logger: r.log, Finest: r.finest()}, r.bar, r, r.snap, runlog.CheckpointFile(filepath.Join(r.dir, runlog.CheckpointName))}
	set := &learn.RunSettings{
		Settings:        o.Settings(obs),
		Coarse:          learn.CoarseSchedule(o.Coarse, o.CoarseIters),
		Start:           x0,
		CheckpointEvery: o.SaveEvery,
		Resume:          resume,
	}
	if o.Coarse > 0 && resume == nil {
		r.log.Info("coarse start", "levels", o.Coarse, "iters_per_level", o.CoarseIters)
		r.note(fmt.Sprintf("learning the starting metric on %d coarser grid(s), %d iterations each…", o.Coarse, o.CoarseIters))
	}
	return set
}

// openLog opens the run's log.txt for appending and sets r.log to write
// structured lines to it, and to stderr as well unless a progress bar is
// drawn there; it reports whether one is.
func (r *learnRun) openLog(stderr io.Writer) (bar bool, err error) {
	r.logf, err = rundir.OpenAppend(filepath.Join(r.dir, "log.txt"))
	if err != nil {
		return false, fmt.Errorf("log file: %w", err)
	}
	bar = r.mode == "bar" || (r.mode == "auto" && isTerminal(stderr))
	logw := io.Writer(r.logf)
	if r.mode == "log" || (r.mode == "auto" && !bar) {
		logw = io.MultiWriter(r.logf, stderr)
	}
	r.log = slog.New(slog.NewTextHandler(logw, nil))
	return bar, nil
}

// logStart logs the run's settings, or where a resumed run continues.
func (r *learnRun) logStart(resume *learn.Checkpoint) {
	if resume != nil {
		st := resume.State
		r.log.Info("resume", "dir", r.dir, "iter", st.Iter, "evals", st.Evals, "f", st.F, "max_iter", r.p.Optimizer.MaxIter)
		return
	}
	r.log.Info("start", "data", r.p.Data.Dir, "n", r.p.Data.Side, "dim", r.p.Data.Dim, "sequences", len(r.p.Data.Sequences),
		"t", r.p.Model.T, "steps", r.p.Model.Steps, "sinkhorn_iters", r.p.Model.SinkhornIters, "loss", r.p.Model.Loss,
		"lambda_c", r.p.Model.LambdaC, "lambda_s", r.p.Model.LambdaS, "max_iter", r.p.Optimizer.MaxIter)
}

// LevelStart keeps the level's objective; on the data's own grid it
// records the factorisation in params.json and the log.
func (r *learnRun) LevelStart(level int, _ []int, obj *learn.Objective) {
	r.obj = obj
	if level != r.finest() {
		return
	}
	r.p.Kernel = runlog.NewKernelInfo(obj, r.ds.Alpha())
	r.log.Info("kernel", "params", r.p.Kernel.Params, "backend", r.p.Kernel.Backend, "ordering", r.p.Kernel.Ordering, "nnz_l", r.p.Kernel.NNZL)
	if err := rundir.WriteChecked(filepath.Join(r.dir, "params.json"), r.p); err != nil {
		r.log.Error("params.json", "err", err)
	}
}

// LevelDone notes the end of a coarse level on the terminal.
func (r *learnRun) LevelDone(rep learn.LevelReport) {
	if rep.Level != r.finest() {
		r.note(fmt.Sprintf("coarse level %v: %d iterations, F = %.6g (%s)", rep.Dims, rep.Iter, rep.F, rep.Elapsed.Round(time.Millisecond)))
	}
}

// failed is the error of a run that stopped with err: learn.Run saved the
// checkpoint of the state it reached, if any; the metric and loss of a
// state on the data's grid are saved too, and the error says how to
// continue.
func (r *learnRun) failed(ctx context.Context, res *learn.RunResult, err error) error {
	if res == nil || res.Result == nil || res.State == nil {
		if ctx.Err() != nil {
			return exitError{fmt.Errorf("interrupted during the first evaluation; start the run again with:\n  %s", resumeCommand("learn", r.dir)), 130}
		}
		return evalHint(err)
	}
	st := res.State
	where := fmt.Sprintf("iteration %d", st.Iter)
	if level := res.Levels[len(res.Levels)-1].Level; level != r.finest() {
		where = fmt.Sprintf("iteration %d of coarse level %d", st.Iter, level)
	} else if serr := r.snap.Save(st, false); serr != nil {
		return fmt.Errorf("%w; saving the metric also failed: %v", err, serr)
	}
	if ctx.Err() != nil {
		r.log.Info("interrupted", "iter", st.Iter, "evals", st.Evals, "f", st.F)
		return exitError{fmt.Errorf("interrupted at %s; checkpoint saved. Resume with:\n  %s",
			where, resumeCommand("learn", r.dir)), 130}
	}
	r.log.Error("failed", "iter", st.Iter, "err", err)
	return fmt.Errorf("%w\n(the state at %s is saved; after fixing the cause, continue with %s)",
		evalHint(err), where, resumeCommand("learn", r.dir))
}

// checkLinesearch turns a line search that failed before the first
// iteration into an error, and one that failed later into a warning on
// stderr (the metric reached is kept).
func (r *learnRun) checkLinesearch(stderr io.Writer, res *learn.RunResult) error {
	if res.Status != learn.LinesearchFailure {
		return nil
	}
	r.log.Warn("linesearch failed", "iter", res.State.Iter)
	if err := firstStepFailed(res, r.p.Model.LambdaS); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "gmlg learn: warning: the line search could not decrease F at iteration %d; the metric of iteration %d is kept\n",
		res.State.Iter+1, res.State.Iter)
	return nil
}

// firstStepFailed is the error of a run whose line search failed before
// its first iteration, on every level, whatever the progress display:
// nothing was learned. It is nil for any other result.
func firstStepFailed(res *learn.RunResult, lambdaS float64) error {
	if res.Status != learn.LinesearchFailure {
		return nil
	}
	for _, l := range res.Levels {
		if l.Iter > 0 {
			return nil
		}
	}
	// The non-smooth ‖Lap w‖ at the constant start can stop L-BFGS at
	// once when λ_s outweighs the data term (docs/method.md,
	// "Regularisers").
	return fmt.Errorf("the line search could not decrease F at iteration 1: nothing was learned; at the uniform start this usually means --lambda-s (%g) is too large for the data term (try a 10× smaller value or --smooth squared)",
		lambdaS)
}

// report logs the end of the run and prints its summary on stdout: the
// status, the metric and pictures written, and the agreement with a true
// metric when the data has one.
func (r *learnRun) report(stdout io.Writer, res *learn.Result, elapsed time.Duration) {
	r.log.Info("done", "status", res.Status.String(), "iter", res.State.Iter, "evals", res.State.Evals, "f", res.F,
		"elapsed", elapsed.Round(time.Millisecond))
	fmt.Fprintf(stdout, "gmlg learn: %s after %d iterations (%d evaluations, %.1fs): F = %.6g\n",
		res.Status, res.State.Iter, res.State.Evals, elapsed.Seconds(), res.F)
	var pics []string
	for _, name := range r.pictures {
		pics = append(pics, filepath.Join(r.dir, name))
	}
	fmt.Fprintf(stdout, "  metric:   %s\n  pictures: %s\n", filepath.Join(r.dir, "metric.npy"), strings.Join(pics, ", "))
	switch {
	case r.truthCorr != "" && r.ds.IsGraph():
		fmt.Fprintf(stdout, "  truth:    correlation of the edge weights with %s: %s\n", dataset.GraphTruthFile, r.truthCorr)
	case r.truthCorr != "":
		fmt.Fprintf(stdout, "  truth:    %s (correlation of the edge weights with %s: %s)\n",
			filepath.Join(r.dir, "metric-vs-truth.png"), dataset.TruthFile, r.truthCorr)
	}
}

// finish writes the final outputs: the final point (runlog.Snapshots.Final),
// the comparison with the true metric when the data has one, and result.json.
func (r *learnRun) finish(res *learn.Result) error {
	st := res.State
	if r.obj.LastTerms().F != st.F || r.obj.Reconstructions() == nil {
		if _, err := r.obj.Eval(nil, st.X); err != nil {
			return evalHint(err)
		}
	}
	var err error
	if r.pictures, err = r.snap.Final(st, r.obj); err != nil {
		return err
	}
	theta := learn.Exp(nil, st.X)
	rr := runlog.NewResult(res, r.obj)
	if r.ds.IsGraph() {
		if all, mass, ok := dataset.GraphTruthCorrelation(r.p.Data.Dir, r.ds.Graph, theta, r.obs); ok {
			rr.TruthCorrelation, rr.TruthCorrelationMass = &all, &mass
			r.truthCorr = fmt.Sprintf("%.3f on all edges, %.3f on the edges that carry mass", all, mass)
		}
	} else {
		if _, err := truthPicture(filepath.Join(r.dir, "metric-vs-truth.png"), r.p.Data.Dir, dataset.PadMetric(r.ds.Graph, r.snap.Kind, theta),
			r.p.Data.Dim, r.p.Data.Side, fmt.Sprintf("true metric (%s) and learned metric (iteration %d)", dataset.TruthFile, st.Iter)); err != nil {
			return err
		}
		if c, ok := dataset.TruthCorrelation(r.p.Data.Dir, r.ds.Graph, r.obj.Metric(), theta); ok {
			rr.TruthCorrelation = &c
			r.truthCorr = fmt.Sprintf("%.3f", c)
		}
	}
	return rundir.WriteJSON(filepath.Join(r.dir, "result.json"), rr)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
