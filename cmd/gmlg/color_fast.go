package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/bench/cputime"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot"
)

// colorIterationsFile is fast mode's per-iteration record (tab-separated,
// one line per accepted iteration of every level, appended).
const colorIterationsFile = "iterations.tsv"

// colorExactFile records the exact-mode objective at the finest-level
// iterates that --polish scores.
const colorExactFile = "exact.tsv"

// colorLinesearchFile logs every line-search evaluation of fast mode (see
// learn.Trial), to see where evaluations beyond one per iteration went.
const colorLinesearchFile = "linesearch.tsv"

// colorResultFile is the summary a finished fast-mode run writes.
const colorResultFile = "result.json"

// colorFastResult is result.json of a fast-mode run.
type colorFastResult struct {
	Mode   string              `json:"mode"`
	Status string              `json:"status"`
	Levels []colorLevelSummary `json:"levels"`
	// FFast is the fast objective at the final metric (with --polish: at
	// the finest fast level's last iterate; 0 when a resumed polish ran
	// alone); FExact the exact (reference, L iterations) objective at the
	// final metric, the number to compare with an exact-mode run.
	FFast  float64 `json:"f_fast"`
	FExact float64 `json:"f_exact"`
	// PolishFrom is the finest-level iteration the polish (--polish) started
	// from, 0 without one (or when it was resumed).
	PolishFrom int `json:"polish_from,omitempty"`
	// Seconds is the wall time of this invocation (a resumed run's
	// earlier part not included), --polish's scores included, and
	// CPUSeconds the CPU time (all threads) of the same; neither counts
	// the exact objective of the final metric.
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// colorLevelSummary reports one coarse-to-fine level.
type colorLevelSummary struct {
	Bins         int     `json:"n"`
	Iter         int     `json:"iterations"`
	Evals        int     `json:"evals"`
	F            float64 `json:"f_fast"`
	Status       string  `json:"status"`
	Sinkhorn     int     `json:"sinkhorn_iters"`
	Adjoint      int     `json:"adjoint_iters"`
	NotConverged int     `json:"not_converged"`
	Tightened    int     `json:"tightened"` // tolerance ÷10 after a failed line search (learn.Tightener)
	Seconds      float64 `json:"seconds"`
	// Exact marks the polish, whose f_fast is the exact objective.
	Exact bool `json:"exact,omitempty"`
}

// fast is colorlearn --mode fast: learn.Run over o.coarse halvings of the
// n³ grid (and with --polish its exact-objective polish), checkpointing
// every iteration, then the exact objective of the final metric.
func (r *colorRun) fast(ctx context.Context) error {
	resume, err := r.fastResume()
	if err != nil {
		return err
	}
	if err := rundir.WriteChecked(filepath.Join(r.o.out, colorParamsFile), r.params); err != nil {
		return err
	}
	coarse := learn.CoarseSchedule(r.o.coarse, r.o.coarseIters)
	r.logFastPlan(coarse)
	rec, err := r.newFastRecorder(len(coarse) + 1)
	if err != nil {
		return err
	}
	defer rec.close()
	p := r.params
	res, err := learn.Run(ctx, r.g, []learn.Sequence{{Frames: r.hists}}, r.fastConfig(), &learn.RunSettings{
		Settings: learn.Settings{MaxIter: r.o.iters, Observer: rec},
		Coarse:   coarse,
		Polish:   learn.Polish{Iters: p.Polish, Every: p.PolishEvery},
		Resume:   resume,
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return colorInterrupted(r.o.out, r.ckpt)
		}
		return err
	}
	return rec.finish(res)
}

// fastConfig is the model of a fast-mode run: config in tolerance mode
// with the run's solver settings (config itself is its polish's model).
func (r *colorRun) fastConfig() *learn.Config {
	cfg, p := r.config(), r.params
	cfg.Sinkhorn = ot.Settings{Iterations: r.o.L, Tol: cmp.Or(p.Tol, learn.DefaultTol),
		Gradient: adjointGradient(p.Adjoint), Anderson: p.Anderson}
	return cfg
}

// fastResume returns the checkpoint that --resume continues a fast-mode
// run from (nil without --resume), after checking that the run's images
// and settings are those of its params.json.
func (r *colorRun) fastResume() (*learn.Checkpoint, error) {
	if r.o.resume == "" {
		return nil, nil
	}
	if err := colorCheckResume(filepath.Join(r.o.out, colorParamsFile), r.params, r.logw); err != nil {
		return nil, err
	}
	ck, err := colorLoadAnyCheckpoint(r.ckpt)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if ck == nil {
		return nil, fmt.Errorf("--resume: no checkpoint %s", r.ckpt)
	}
	if ck.Level < 0 {
		return nil, fmt.Errorf("--resume: %s is not a fast-mode checkpoint", r.ckpt)
	}
	fmt.Fprintf(r.logw, "resuming %s on level %d at iteration %d (F = %.6g); the Sinkhorn warm start restarts cold\n", r.o.out, ck.Level, ck.State.Iter, ck.State.F)
	return ck, nil
}

// logFastPlan writes the line that announces a fast-mode run: its data,
// solver settings, levels and polish.
func (r *colorRun) logFastPlan(sched []learn.Level) {
	p, o := r.params, r.o
	fmt.Fprintf(r.logw, "colorlearn (fast mode): %d images of %s at %d³ bins, t = %g, %d steps, tol %g, %s adjoint, Anderson depth %d, λ_s = %g; levels",
		len(r.hists), p.Input, p.Bins, o.t, o.steps, p.Tol, p.Adjoint, p.Anderson, o.lambdaS)
	for _, l := range sched {
		m := p.Bins
		for k := 0; k < l.Coarsen; k++ {
			m = learn.CoarseSide(m)
		}
		fmt.Fprintf(r.logw, " %d³×%d", m, l.MaxIter)
	}
	if p.Polish > 0 {
		fmt.Fprintf(r.logw, ", then %d exact-objective iterations from the best %d³ iterate (scored every %d)", p.Polish, p.Bins, p.PolishEvery)
	}
	fmt.Fprintln(r.logw)
}

// colorFastRecorder writes a fast-mode run's folder as learn.Run reports
// its progress (a learn.Observer): the log, iterations.tsv,
// linesearch.tsv and (with --polish) exact.tsv, the checkpoints, progress
// files and snapshots.
type colorFastRecorder struct {
	*colorRun
	tsv, lsTSV *os.File
	exactTSV   *os.File // nil without --polish

	levels    int              // the fast levels; the polish reports level = levels
	cur       *learn.Objective // the current fast level's objective
	curBins   int              // its bins per channel
	theta     []float64        // metric.npy's buffer on the current level
	polishObj *learn.Objective // the polish's objective, once started

	start time.Time
	cpu0  time.Duration
}

// newFastRecorder opens the run's record files for a run of levels fast
// levels.
func (r *colorRun) newFastRecorder(levels int) (*colorFastRecorder, error) {
	rec := &colorFastRecorder{colorRun: r, levels: levels, start: time.Now(), cpu0: cputime.Used()}
	var err error
	rec.tsv, err = colorAppendTSV(filepath.Join(r.o.out, colorIterationsFile),
		"level\tn\titer\tf_fast\tevals\tsinkhorn_iters\tadjoint_iters\tsinkhorn_total\tadjoint_total\tseconds\tcpu_seconds")
	if err == nil {
		rec.lsTSV, err = colorAppendTSV(filepath.Join(r.o.out, colorLinesearchFile), "n\titer\ttrial\tsteepest\tstep\tf0\tslope\tf\tderiv")
	}
	if err == nil && r.params.Polish > 0 {
		rec.exactTSV, err = colorAppendTSV(filepath.Join(r.o.out, colorExactFile), "iter\tseconds\tcpu_seconds\tf_fast\tf_exact")
	}
	if err != nil {
		rec.close()
		return nil, err
	}
	return rec, nil
}

// close closes the record files.
func (rec *colorFastRecorder) close() {
	for _, f := range []*os.File{rec.tsv, rec.lsTSV, rec.exactTSV} {
		if f != nil {
			f.Close()
		}
	}
}

// elapsed is the wall time since the recorder started.
func (rec *colorFastRecorder) elapsed() time.Duration { return time.Since(rec.start) }

// cpu is the process's CPU time since the recorder started.
func (rec *colorFastRecorder) cpu() time.Duration { return cputime.Used() - rec.cpu0 }

// finestLevel reports whether level is the finest fast level.
func (rec *colorFastRecorder) finestLevel(level int) bool { return level == rec.levels-1 }

// LevelStart keeps the level's objective for the log and the snapshots.
func (rec *colorFastRecorder) LevelStart(level int, dims []int, obj *learn.Objective) {
	if level == rec.levels {
		rec.polishObj = obj
		return
	}
	rec.cur, rec.curBins = obj, dims[0]
	rec.theta = make([]float64, obj.Dim())
}

// Checkpoint writes the run's checkpoint atomically.
func (rec *colorFastRecorder) Checkpoint(data []byte) error {
	return colorCheckpointer{rec.ckpt}.Checkpoint(data)
}

// Scored records an exact score of a finest-level iterate (--polish) in
// exact.tsv and the log.
func (rec *colorFastRecorder) Scored(sc learn.PolishScore) {
	fmt.Fprintf(rec.exactTSV, "%d\t%.3f\t%.3f\t%.17g\t%.17g\n", sc.Iter, rec.elapsed().Seconds(), rec.cpu().Seconds(), sc.FFast, sc.FExact)
	fmt.Fprintf(rec.logw, "  exact-mode F at iteration %d: %.10g (best %.10g)\n", sc.Iter, sc.FExact, sc.Best)
}

// LevelDone logs the end of a level or of the polish.
func (rec *colorFastRecorder) LevelDone(r learn.LevelReport) {
	if r.Exact {
		fmt.Fprintf(rec.logw, "polish done: %s after %d iterations from fine iteration %d, %d evaluations, exact-mode F = %.8g, %s\n",
			r.Status, r.Iter, r.From, r.Evals, r.F, r.Elapsed.Round(time.Second))
		return
	}
	fmt.Fprintf(rec.logw, "level %d (%d³) done: %s after %d iterations, %d evaluations, F_fast = %.8g, Sinkhorn %d + adjoint %d iterations, tolerance tightened %d times, %s\n",
		r.Level, r.Dims[0], r.Status, r.Iter, r.Evals, r.F, r.Totals.Sinkhorn, r.Totals.Adjoint, r.Tightened, r.Elapsed.Round(time.Second))
}

// Trial records a line-search evaluation in linesearch.tsv.
func (rec *colorFastRecorder) Trial(t learn.Trial) {
	fmt.Fprintf(rec.lsTSV, "%d\t%d\t%d\t%v\t%.6g\t%.17g\t%.6g\t%.17g\t%.6g\n", rec.curBins, t.Iter, t.Index, t.Steepest, t.Step, t.F0, t.Slope, t.F, t.Deriv)
}

// Iteration records an accepted iteration of a fast level: the log line
// and a row of iterations.tsv, and on the finest level the progress files
// and, every --save-every iterations and at the first, a snapshot. The
// polish's iterations go to polishIteration.
func (rec *colorFastRecorder) Iteration(p *learn.Progress) error {
	el := rec.elapsed()
	if p.Level == rec.levels {
		return rec.polishIteration(p, el)
	}
	st, tot := rec.cur.Stats(), rec.cur.Totals()
	fmt.Fprintf(rec.logw, "level %d (%d³) iter %4d  F_fast = %.10g  |g| = %.4g  evals %d  sinkhorn %d  adjoint %d  elapsed %s\n",
		p.Level, rec.curBins, p.Iter, p.F, p.GradNorm, p.Evals, st.Iterations, st.AdjointIterations, el.Round(time.Second))
	fmt.Fprintf(rec.tsv, "%d\t%d\t%d\t%.17g\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.3f\n", p.Level, rec.curBins, p.Iter, p.F, p.Evals,
		st.Iterations, st.AdjointIterations, tot.Sinkhorn, tot.Adjoint, el.Seconds(), rec.cpu().Seconds())
	if !rec.finestLevel(p.Level) {
		return nil
	}
	if err := colorSaveProgress(rec.o.out, p.State.Losses, p.X, rec.theta); err != nil {
		return err
	}
	if p.Iter == 1 || p.Iter%rec.o.saveEvery == 0 {
		return colorSnapshot(rec.o.out, p.Iter, p.X, rec.o.bins, rec.hists, rec.cur.Reconstructions()[0])
	}
	return nil
}

// polishIteration records an iteration of fast mode's exact polish
// (--polish), el into the run: the log line, a row of iterations.tsv
// (level = the number of fast levels, Sinkhorn iterations = L per
// evaluation, no adjoint iterations), loss.npy and metric.npy (the
// polish's own losses), and the snapshots, tagged polish-XXXX.
func (rec *colorFastRecorder) polishIteration(p *learn.Progress, el time.Duration) error {
	o, n := rec.o, rec.o.bins
	fmt.Fprintf(rec.logw, "polish (exact, %d³) iter %4d  F = %.10g  |g| = %.4g  evals %d  elapsed %s\n",
		n, p.Iter, p.F, p.GradNorm, p.Evals, el.Round(time.Second))
	fmt.Fprintf(rec.tsv, "%d\t%d\t%d\t%.17g\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.3f\n", p.Level, n, p.Iter, p.F, p.Evals,
		o.L, 0, o.L*p.Evals, 0, el.Seconds(), rec.cpu().Seconds())
	theta := make([]float64, len(p.X))
	if err := colorSaveProgress(o.out, p.State.Losses, p.X, theta); err != nil {
		return err
	}
	if p.Iter == 1 || p.Iter%o.saveEvery == 0 {
		// The last evaluation was the accepted point's: its reconstructions.
		return colorSnapshotTag(o.out, fmt.Sprintf("polish-%04d", p.Iter), p.X, n, rec.hists, rec.polishObj.Reconstructions()[0])
	}
	return nil
}

// finish scores the final metric with the exact-mode objective (the figure
// to compare with an exact-mode run), writes its snapshot with the exact
// reconstructions, the progress files and result.json, and logs the end.
// It closes the run's objective.
func (rec *colorFastRecorder) finish(res *learn.RunResult) error {
	o := rec.o
	seconds, cpuSeconds := rec.elapsed(), rec.cpu()
	polished := len(res.Levels) > 0 && res.Levels[len(res.Levels)-1].Exact
	exact := res.Objective // the polish's is the exact objective
	if !polished {
		// Free the fast level's kernel before building the exact
		// objective's Sinkhorn tape (2·L·N·C floats, 420 MB at 32³).
		res.Objective.Close()
		var err error
		if exact, err = learn.NewObjective(rec.g, []learn.Sequence{{Frames: rec.hists}}, rec.config()); err != nil {
			return fmt.Errorf("exact objective of the final metric: %w", err)
		}
	}
	defer exact.Close()
	fExact, err := exact.Eval(nil, res.X)
	if err != nil {
		return fmt.Errorf("exact objective of the final metric: %w", err)
	}
	iter := res.State.Iter
	tag := fmt.Sprintf("%04d", iter)
	if polished {
		tag = "polish-" + tag
	}
	if err := colorSnapshotTag(o.out, tag, res.X, o.bins, rec.hists, exact.Reconstructions()[0]); err != nil {
		return err
	}
	theta := rec.theta
	if theta == nil { // a resumed polish starts no fast level
		theta = make([]float64, len(res.X))
	}
	if err := colorSaveProgress(o.out, res.State.Losses, res.X, theta); err != nil {
		return err
	}
	summary := colorFastSummary(res, fExact, seconds, cpuSeconds)
	if err := rundir.WriteJSON(filepath.Join(o.out, colorResultFile), summary); err != nil {
		return err
	}
	metric := filepath.Join(o.out, "metric.npy")
	if polished {
		fmt.Fprintf(rec.logw, "done: %s after %d polish iterations (from fine iteration %d) in %s; exact-mode F = %.10g; metric in %s\n",
			res.Status, iter, summary.PolishFrom, seconds.Round(time.Second), fExact, metric)
		return nil
	}
	fmt.Fprintf(rec.logw, "done: %s after %d fine iterations in %s; F_fast = %.10g, exact-mode F at this metric = %.10g; metric in %s\n",
		res.Status, iter, seconds.Round(time.Second), res.F, fExact, metric)
	return nil
}

// colorFastSummary is result.json of a finished fast-mode run whose final
// metric scores fExact, in seconds of wall and cpuSeconds of CPU time.
func colorFastSummary(res *learn.RunResult, fExact float64, seconds, cpuSeconds time.Duration) colorFastResult {
	summary := colorFastResult{Mode: "fast", Status: res.Status.String(), FExact: fExact,
		Seconds: seconds.Seconds(), CPUSeconds: cpuSeconds.Seconds()}
	for _, l := range res.Levels {
		if l.Exact {
			summary.PolishFrom = l.From
		} else {
			summary.FFast = l.F // the finest fast level's is the last
		}
		summary.Levels = append(summary.Levels, colorLevelSummary{Bins: l.Dims[0], Iter: l.Iter, Evals: l.Evals, F: l.F,
			Status: l.Status.String(), Sinkhorn: l.Totals.Sinkhorn, Adjoint: l.Totals.Adjoint,
			NotConverged: l.Totals.NotConverged, Tightened: l.Tightened, Seconds: l.Elapsed.Seconds(), Exact: l.Exact})
	}
	return summary
}

// colorAppendTSV opens path for appending (a resumed run continues the
// file) and writes the header line when the file is new.
func colorAppendTSV(path, header string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		fmt.Fprintln(f, header)
	}
	return f, nil
}
