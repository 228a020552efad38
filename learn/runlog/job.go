package runlog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot"
)

// The log of a run and the tables of a tolerance-mode run (IterationTable,
// TrialTable and, with a polish, ScoreTable).
const (
	IterationsName = "iterations.tsv"
	LinesearchName = "linesearch.tsv"
	ExactName      = "exact.tsv"
	LogName        = "log.txt"
)

// Outputs are the glob patterns of every file a Job writes in its folder.
var Outputs = []string{
	ParamsName, LogName, CheckpointName, ResultName, "loss.npy", "loss.png",
	"metric.npy", "metric.png", "metric-*.npy", "metric-*.png", "metric-vs-truth.png", "rec-*.npy", "recs.png",
	IterationsName, LinesearchName, ExactName,
}

// OptionError is an error of a run's settings, found once its data are
// read (a diffusion time too large for the data's grid, say): the caller
// reports it as a usage error.
type OptionError struct{ Err error }

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// ErrInterrupted is the error, wrapped, of a run stopped by the
// cancellation of its context; the message says how to continue it.
var ErrInterrupted = errors.New("interrupted")

// Job is one learning run that writes its folder (Outputs); the caller
// holds the folder (package rundir) while it runs.
type Job struct {
	learn.NopObserver
	Rec *Record // the run's record; NewJob completes it
	Dir string  // the run folder
	// Progress is how the run shows its progress on Stderr: "bar" (a
	// progress bar), "log" (the structured log lines), "none", or "auto"
	// (a bar on a terminal, log lines otherwise).
	Progress       string
	Stdout, Stderr io.Writer
	// Resume is the shell command that continues the run, printed when it
	// stops early.
	Resume string

	src   *Source
	fine  int // the index of the finest level (Optimizer.Levels before it)
	log   *slog.Logger
	logf  *os.File
	bar   *Bar
	shown bool // a progress bar hides the log on Stderr
	snap  *Snapshots
	clock *Clock
	obj   *learn.Objective // the current level's, open while it runs
	done  []string         // the final pictures drawn
	truth string           // the agreement with a true metric, when known
}

// NewJob reads the data of rec (sizes vetted by limits.Memory), records
// what they are, and checks the model against them: the heat time, the
// coarse levels and the objective's memory. Nothing is written.
func NewJob(rec *Record, dir string) (*Job, error) {
	if rec.Data.Kind == "" {
		rec.Data.Kind = Frames
	}
	src, err := rec.Data.Read(&rec.Model)
	if err != nil {
		return nil, err
	}
	m, o := &rec.Model, &rec.Optimizer
	if err := src.Check(m); err != nil {
		return nil, err
	}
	if o.WarmSteps > 0 {
		if err := src.Space.Bound().CheckTime("--t", m.T, o.WarmSteps); err != nil {
			return nil, &OptionError{fmt.Errorf("with --warm-steps %d: %w", o.WarmSteps, err)}
		}
	}
	if o.Coarse > 0 {
		if src.Space.IsGraph() {
			return nil, &OptionError{fmt.Errorf("--coarse needs grid data; %s is a graph folder (%s)", rec.Data.Dir, dataset.EdgesFile)}
		}
		if m.Metric != learn.VertexMetric.String() {
			return nil, &OptionError{fmt.Errorf("--coarse needs --metric vertex (got %s)", m.Metric)}
		}
		dims := src.Space.Graph.Dims()
		for range o.Coarse {
			if dims, err = learn.HalveGrid(dims); err != nil {
				return nil, &OptionError{fmt.Errorf("--coarse %d: the %v grid is too small to halve that often", o.Coarse, src.Space.Graph.Dims())}
			}
		}
	}
	rec.Command, rec.Version = "learn", rundir.Version()
	j := &Job{Rec: rec, Dir: dir, Progress: "none", Stdout: io.Discard, Stderr: io.Discard, src: src, fine: len(o.Levels())}
	// The loss curve and the reconstruction strip are redrawn at most
	// every 10 s during a run; the end and interruptions always draw them.
	j.snap = &Snapshots{Dir: dir, Space: src.Space, Kind: m.MetricKind(), Finest: j.finest(), Every: o.SaveEvery,
		Observed: src.Observed(), Period: 10 * time.Second}
	if o.Polish > 0 {
		j.snap.Polish = j.finest() + 1
	}
	return j, nil
}

// Source returns the run's data.
func (j *Job) Source() *Source { return j.src }

// StartPoint returns the log metric a new run starts from: nil for the
// uniform metric, else that of its --init file.
func (j *Job) StartPoint() ([]float64, error) {
	o, m := &j.Rec.Optimizer, &j.Rec.Model
	if o.Init == "ones" {
		return nil, nil
	}
	theta, err := ReadMetric(o.Init, j.src.Space, m.MetricKind())
	if err == nil {
		err = j.src.Space.Bound().CheckMetric(o.Init, theta, m.T, cmp.Or(o.WarmSteps, m.Steps))
	}
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	return learn.LogOf(theta), nil
}

// finest is the index of the data's own grid at the model's heat steps
// among the run's levels.
func (j *Job) finest() int { return j.fine }

// Run learns the metric from x0 (nil: the uniform metric), or from ck to
// continue the run that wrote it, writing the run folder as it goes. A
// cancelled ctx stops the run after a last checkpoint (ErrInterrupted).
func (j *Job) Run(ctx context.Context, x0 []float64, ck *learn.Checkpoint) error {
	id, err := j.Rec.Identity()
	if err != nil {
		return err
	}
	if ck != nil {
		if err := CheckRun(filepath.Join(j.Dir, CheckpointName), ck.Run, id); err != nil {
			return err
		}
	}
	if err := rundir.WriteChecked(filepath.Join(j.Dir, ParamsName), j.Rec); err != nil {
		return err
	}
	if err := j.openLog(); err != nil {
		return err
	}
	defer j.logf.Close()
	j.logStart(ck)
	start := 0
	if ck != nil && ck.Level == j.finest() {
		start = ck.State.Iter
		j.snap.Saved = ck.State.Iter
	}
	j.bar = NewBar(j.Stderr, j.shown, j.finest(), start, j.Rec.Optimizer.MaxIter)
	if ctx.Err() == nil {
		stop := context.AfterFunc(ctx, func() {
			j.bar.Note("interrupted: finishing the current iteration and saving a checkpoint (this can take a few seconds)…")
		})
		defer stop()
	}
	j.clock = NewClock()
	obs, tables, err := j.observers()
	for _, t := range tables {
		defer t.Close()
	}
	if err != nil {
		return err
	}
	o := &j.Rec.Optimizer
	set := &learn.RunSettings{
		Settings:        o.Settings(obs),
		Coarse:          o.Levels(),
		Polish:          learn.Polish{Iters: o.Polish, Every: o.PolishEvery},
		Start:           x0,
		CheckpointEvery: o.SaveEvery,
		Run:             id,
		Resume:          ck,
	}
	if o.Coarse > 0 && ck == nil {
		j.log.Info("coarse start", "levels", o.Coarse, "iters_per_level", o.CoarseIters)
		j.tell(fmt.Sprintf("learning the starting metric on %d coarser grid(s), %d iterations each…", o.Coarse, o.CoarseIters))
	}
	if o.WarmIters > 0 && ck == nil {
		j.log.Info("warm start", "steps", o.WarmSteps, "iters", o.WarmIters)
		j.tell(fmt.Sprintf("warming up on the data's grid: %d iterations with %d heat steps…", o.WarmIters, o.WarmSteps))
	}
	res, err := learn.Run(ctx, j.src.Space.Graph, j.src.Seqs, j.Rec.Model.Config(), set)
	j.bar.Finish()
	if err != nil {
		return j.failed(ctx, res, err)
	}
	defer res.Objective.Close()
	j.obj = res.Objective
	if err := j.finish(res); err != nil {
		return err
	}
	if err := j.checkLinesearch(res); err != nil {
		return err
	}
	j.report(res.Result)
	return nil
}

// observers are the run's learn.Observer: the log, the bar, j, the
// snapshots, the checkpoint file and, in tolerance mode, the tables, which
// the caller closes (those opened before an error too).
func (j *Job) observers() (Observers, []*Table, error) {
	obs := Observers{&Log{Logger: j.log, Finest: j.finest()}, j.bar, j, j.snap, CheckpointFile(filepath.Join(j.Dir, CheckpointName))}
	if j.Rec.Model.Mode != "fast" {
		return obs, nil, nil
	}
	path := func(name string) string { return filepath.Join(j.Dir, name) }
	iters, err := NewIterationTable(path(IterationsName), j.clock)
	if err != nil {
		return nil, nil, err
	}
	trials, err := NewTrialTable(path(LinesearchName))
	if err != nil {
		return nil, []*Table{iters.Table}, err
	}
	tables, obs := []*Table{iters.Table, trials.Table}, append(obs, iters, trials)
	if j.Rec.Optimizer.Polish > 0 {
		scores, err := NewScoreTable(path(ExactName), j.clock)
		if err != nil {
			return nil, tables, err
		}
		tables, obs = append(tables, scores.Table), append(obs, scores)
	}
	return obs, tables, nil
}

// openLog opens the run's log for appending and sets j.log to write
// structured lines to it, and to Stderr as well unless a progress bar is
// shown there (then tell writes the lines meant for the terminal).
func (j *Job) openLog() (err error) {
	j.logf, err = rundir.OpenAppend(filepath.Join(j.Dir, LogName))
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	j.shown = j.Progress == "bar" || (j.Progress == "auto" && isTerminal(j.Stderr))
	logw := io.Writer(j.logf)
	if j.Progress == "log" || (j.Progress == "auto" && !j.shown) {
		logw = io.MultiWriter(j.logf, j.Stderr)
	}
	j.log = slog.New(slog.NewTextHandler(logw, nil))
	return nil
}

// tell writes msg for the terminal when a progress bar hides the log.
func (j *Job) tell(msg string) {
	if j.shown {
		fmt.Fprintln(j.Stderr, "gmlg learn: "+msg)
	}
}

// logStart logs the run's settings, or where a resumed run continues, and
// notes where the backend factorises on OpenBLAS kernels that leave out
// the processor's vector units (kernel.BLASInfo).
func (j *Job) logStart(ck *learn.Checkpoint) {
	r := j.Rec
	if ck != nil {
		st := ck.State
		j.log.Info("resume", "dir", j.Dir, "level", ck.Level, "iter", st.Iter, "evals", st.Evals, "f", st.F, "max_iter", r.Optimizer.MaxIter)
	} else {
		j.log.Info("start", "data", r.Data.Dir, "kind", r.Data.Kind, "n", r.Data.Side, "dim", r.Data.Dim, "sequences", len(r.Data.Sequences),
			"mode", r.Model.Mode, "t", r.Model.T, "steps", r.Model.Steps, "sinkhorn_iters", r.Model.SinkhornIters, "loss", r.Model.Loss,
			"lambda_c", r.Model.LambdaC, "lambda_s", r.Model.LambdaS, "max_iter", r.Optimizer.MaxIter)
	}
	b := kernel.BLAS()
	if a := blasAdvice(r.Model.Backend, b); a != "" {
		j.log.Info("blas", "core", b.Core, "suggest", b.Suggest, "advice", a)
	}
}

// blasAdvice returns b's advice (kernel.BLASInfo.Advice) where the backend
// of that name factorises on OpenBLAS, else "".
func blasAdvice(backend string, b kernel.BLASInfo) string {
	if !kernel.OnBLAS(backend) {
		return ""
	}
	return b.Advice()
}

// LevelStart keeps the level's objective; on the data's own grid it
// records the factorisation in params.json and the log.
func (j *Job) LevelStart(level int, _ []int, obj *learn.Objective) {
	j.obj = obj
	if level != j.finest() {
		return
	}
	j.Rec.Kernel = NewKernelInfo(obj, j.src.Space.Alpha())
	j.log.Info("kernel", "params", j.Rec.Kernel.Params, "backend", j.Rec.Kernel.Backend, "ordering", j.Rec.Kernel.Ordering, "nnz_l", j.Rec.Kernel.NNZL,
		"blas", j.Rec.Kernel.BLAS)
	if err := rundir.WriteChecked(filepath.Join(j.Dir, ParamsName), j.Rec); err != nil {
		j.log.Error("params.json", "err", err)
	}
}

// Iteration notes the WarmUpShown iterations of the warm-up levels on the
// terminal, whose bar shows the finest level's.
func (j *Job) Iteration(p *learn.Progress) error {
	if p.Level < j.finest() && WarmUpShown(p.Iter) {
		j.tell(fmt.Sprintf("warm-up level %d: iteration %d, F = %.6g (%s)", p.Level, p.Iter, p.F, p.Elapsed.Round(time.Second)))
	}
	return nil
}

// LevelDone notes the end of a warm-up level on the terminal.
func (j *Job) LevelDone(rep learn.LevelReport) {
	if rep.Level < j.finest() {
		j.tell(fmt.Sprintf("warm-up level %v, %d heat steps: %d iterations, F = %.6g (%s)", rep.Dims, rep.Steps, rep.Iter, rep.F, rep.Elapsed.Round(time.Millisecond)))
	}
}

// failed is the error of a run that stopped with err after learn.Run saved
// the checkpoint of the state it reached, if any; it saves the metric and
// loss of a state on the data's grid, and says how to continue.
func (j *Job) failed(ctx context.Context, res *learn.RunResult, err error) error {
	if res == nil || res.Result == nil || res.State == nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w during the first evaluation; start the run again with:\n  %s", ErrInterrupted, j.Resume)
		}
		return ExplainEval(err)
	}
	st := res.State
	where := fmt.Sprintf("iteration %d", st.Iter)
	if level := res.Levels[len(res.Levels)-1].Level; level < j.finest() {
		where = fmt.Sprintf("iteration %d of warm-up level %d", st.Iter, level)
	} else if serr := j.snap.Save(st, false); serr != nil {
		return fmt.Errorf("%w; saving the metric also failed: %v", err, serr)
	}
	if ctx.Err() != nil {
		j.log.Info("interrupted", "iter", st.Iter, "evals", st.Evals, "f", st.F)
		return fmt.Errorf("%w at %s; checkpoint saved. Resume with:\n  %s", ErrInterrupted, where, j.Resume)
	}
	j.log.Error("failed", "iter", st.Iter, "err", err)
	return fmt.Errorf("%w\n(the state at %s is saved; after fixing the cause, continue with %s)", ExplainEval(err), where, j.Resume)
}

// checkLinesearch turns a line search that failed before any level's first
// iteration into an error (nothing was learned), and one that failed later
// into a warning on Stderr (the metric reached is kept).
func (j *Job) checkLinesearch(res *learn.RunResult) error {
	if res.Status != learn.LinesearchFailure {
		return nil
	}
	j.log.Warn("linesearch failed", "iter", res.State.Iter)
	if !slices.ContainsFunc(res.Levels, func(l learn.LevelReport) bool { return l.Iter > 0 }) {
		// The non-smooth ‖Lap w‖ at the constant start can stop L-BFGS at
		// once when λ_s outweighs the data term (docs/method.md,
		// "Regularisers").
		return fmt.Errorf("the line search could not decrease F at iteration 1: nothing was learned; at the uniform start this usually means --lambda-s (%g) is too large for the data term (try a 10× smaller value or --smooth squared)",
			j.Rec.Model.LambdaS)
	}
	fmt.Fprintf(j.Stderr, "gmlg learn: warning: the line search could not decrease F at iteration %d; the metric of iteration %d is kept\n",
		res.State.Iter+1, res.State.Iter)
	return nil
}

// finish writes the final point (Snapshots.Final), the comparison with a
// true metric, and result.json (with the exact objective in fast mode).
func (j *Job) finish(res *learn.RunResult) error {
	st := res.State
	if j.obj.LastTerms().F != st.F || j.obj.Reconstructions() == nil {
		if _, err := j.obj.Eval(nil, st.X); err != nil {
			return ExplainEval(err)
		}
	}
	var err error
	if j.done, err = j.snap.Final(st, j.obj); err != nil {
		return err
	}
	theta := learn.Exp(nil, st.X)
	rr := NewResult(res, j.obj, j.clock)
	if err := j.compareTruth(rr, theta, st.Iter); err != nil {
		return err
	}
	if cfg := j.Rec.Model.Config(); !j.obj.Exact() {
		// The run's kernel goes before the exact objective's Sinkhorn
		// tape (2·L·N·C floats: 420 MB at 32³ with L = 50 and C = 16) is
		// made beside it.
		j.obj.Close()
		f, err := learn.ExactScore(j.src.Space.Graph, j.src.Seqs, cfg, st.X)
		if err != nil {
			return ExplainEval(err)
		}
		rr.FExact = &f
	} else if j.Rec.Model.Mode == "fast" {
		rr.FExact = &rr.F // the polish's objective is the exact one
	}
	return rundir.WriteJSON(filepath.Join(j.Dir, ResultName), rr)
}

// compareTruth records and draws the agreement of the learned metric theta
// with the data's true metric, when the data were made by gmlg synth.
func (j *Job) compareTruth(rr *Result, theta []float64, iter int) error {
	d, sp := &j.Rec.Data, j.src.Space
	if d.Kind != Frames {
		return nil
	}
	if sp.IsGraph() {
		if all, mass, ok := dataset.GraphTruthCorrelation(d.Dir, sp.Graph, theta, j.snap.Observed); ok {
			rr.TruthCorrelation, rr.TruthCorrelationMass = &all, &mass
			j.truth = fmt.Sprintf("correlation of the edge weights with %s: %.3f on all edges, %.3f on the edges that carry mass",
				dataset.GraphTruthFile, all, mass)
		}
		return nil
	}
	out, err := TruthPicture(j.Dir, d, sp, j.snap.Kind, theta, iter)
	if err != nil {
		return err
	}
	if c, ok := dataset.TruthCorrelation(d.Dir, sp.Graph, j.obj.Metric(), theta); ok {
		rr.TruthCorrelation = &c
		j.truth = fmt.Sprintf("%s (correlation of the edge weights with %s: %.3f)", out, dataset.TruthFile, c)
	}
	return nil
}

// report logs the end of the run and prints its summary on Stdout.
func (j *Job) report(res *learn.Result) {
	elapsed := j.clock.Elapsed()
	j.log.Info("done", "status", res.Status.String(), "iter", res.State.Iter, "evals", res.State.Evals, "f", res.F,
		"elapsed", elapsed.Round(time.Millisecond))
	fmt.Fprintf(j.Stdout, "gmlg learn: %s after %d iterations (%d evaluations, %.1fs): F = %.6g\n",
		res.Status, res.State.Iter, res.State.Evals, elapsed.Seconds(), res.F)
	var pics []string
	for _, name := range j.done {
		pics = append(pics, filepath.Join(j.Dir, name))
	}
	fmt.Fprintf(j.Stdout, "  metric:   %s\n  pictures: %s\n", filepath.Join(j.Dir, "metric.npy"), strings.Join(pics, ", "))
	if j.truth != "" {
		fmt.Fprintf(j.Stdout, "  truth:    %s\n", j.truth)
	}
}

// ExplainEval explains a failed evaluation in terms of the options.
func ExplainEval(err error) error {
	if errors.Is(err, ot.ErrNonFinite) {
		return fmt.Errorf("%w [options: --t, --sinkhorn-iters, --floor]", err)
	}
	return kernel.ExplainNotPosDef(err, "the metric", "--t, --steps")
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	if f, ok := w.(*os.File); ok {
		st, err := f.Stat()
		return err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return false
}

// ResumeJob returns the job that continues the run in dir and the
// checkpoint it continues from (nil for a run that stopped before its
// first: it starts again). The run's record is handed to edit, which may
// change and check what a resumed run may change (ResumeFlags); the data
// must be those the run started with. A finished run takes no step and
// writes its final outputs again, unless a larger budget lets it continue.
func ResumeJob(dir string, edit func(*Record) error) (*Job, *learn.Checkpoint, error) {
	var rec Record
	if err := ReadRecord(dir, &rec); err != nil {
		return nil, nil, err
	}
	if err := edit(&rec); err != nil {
		return nil, nil, err
	}
	ck, err := ReadCheckpointIfAny(filepath.Join(dir, CheckpointName))
	if err != nil {
		return nil, nil, err
	}
	recorded := rec.Data.Checksum
	j, err := NewJob(&rec, dir)
	if err != nil {
		return nil, nil, err
	}
	if rec.Data.Checksum != recorded {
		return nil, nil, fmt.Errorf("the data in %s changed since the run started (checksum %s, now %s)", rec.Data.Dir, recorded, rec.Data.Checksum)
	}
	if ck != nil {
		rec.Resumed++
	}
	return j, ck, nil
}
