package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// colorRecorder is the learn.Observer that writes a colorlearn run's log
// lines and, on the finest level, its progress files (loss and metric.npy,
// every iteration) and snapshots (every --save-every iterations and at the
// first). Exact mode has one level; fast mode has levels fast levels, and
// the polish reports as level = levels.
type colorRecorder struct {
	learn.NopObserver
	*colorRun
	levels int
	clock  *runlog.Clock

	cur       *learn.Objective // the current fast level's objective
	curBins   int              // its bins per channel
	theta     []float64        // metric.npy's buffer on the current level
	polishObj *learn.Objective // the polish's objective, once started

	last     time.Time // exact mode: the time of the last iteration
	lastIter int       // and its number
}

// LevelStart keeps the level's objective for the log and the snapshots.
func (rec *colorRecorder) LevelStart(level int, dims []int, obj *learn.Objective) {
	if rec.fast() && level == rec.levels {
		rec.polishObj = obj
		return
	}
	rec.cur, rec.curBins = obj, dims[0]
	rec.theta = make([]float64, obj.Dim())
}

// Scored logs an exact score of a finest-level iterate (--polish).
func (rec *colorRecorder) Scored(sc learn.PolishScore) {
	fmt.Fprintf(rec.logw, "  exact-mode F at iteration %d: %.10g (best %.10g)\n", sc.Iter, sc.FExact, sc.Best)
}

// LevelDone logs the end of a fast level or of the polish.
func (rec *colorRecorder) LevelDone(r learn.LevelReport) {
	switch {
	case !rec.fast():
	case r.Exact:
		fmt.Fprintf(rec.logw, "polish done: %s after %d iterations from fine iteration %d, %d evaluations, exact-mode F = %.8g, %s\n",
			r.Status, r.Iter, r.From, r.Evals, r.F, r.Elapsed.Round(time.Second))
	default:
		fmt.Fprintf(rec.logw, "level %d (%d³) done: %s after %d iterations, %d evaluations, F_fast = %.8g, Sinkhorn %d + adjoint %d iterations, tolerance tightened %d times, %s\n",
			r.Level, r.Dims[0], r.Status, r.Iter, r.Evals, r.F, r.Totals.Sinkhorn, r.Totals.Adjoint, r.Tightened, r.Elapsed.Round(time.Second))
	}
}

// Iteration records an accepted iteration: its log line and, on the
// finest level, the progress files and the snapshots.
func (rec *colorRecorder) Iteration(p *learn.Progress) error {
	o := rec.o
	switch {
	case !rec.fast():
		now := time.Now()
		per := now.Sub(rec.last) / time.Duration(max(1, p.Iter-rec.lastIter))
		rec.last, rec.lastIter = now, p.Iter
		fmt.Fprintf(rec.logw, "iter %4d/%d  F = %.10g  |g| = %.4g  evals %d  %.1fs/it  elapsed %s\n",
			p.Iter, o.MaxIter, p.F, p.GradNorm, p.Evals, per.Seconds(), p.Elapsed.Round(time.Second))
	case p.Level == rec.levels:
		return rec.polishIteration(p)
	default:
		st := rec.cur.Stats()
		fmt.Fprintf(rec.logw, "level %d (%d³) iter %4d  F_fast = %.10g  |g| = %.4g  evals %d  sinkhorn %d  adjoint %d  elapsed %s\n",
			p.Level, rec.curBins, p.Iter, p.F, p.GradNorm, p.Evals, st.Iterations, st.AdjointIterations, rec.clock.Elapsed().Round(time.Second))
		if p.Level != rec.levels-1 {
			return nil
		}
	}
	if err := colorSaveProgress(o.out, p.State.Losses, p.X, rec.theta); err != nil {
		return err
	}
	if p.Iter == 1 || p.Iter%o.SaveEvery == 0 || (!rec.fast() && p.Iter == o.MaxIter) {
		return colorSnapshot(o.out, fmt.Sprintf("%04d", p.Iter), p.X, o.Bins, rec.col.Hists, rec.cur.Reconstructions()[0])
	}
	return nil
}

// polishIteration records an iteration of fast mode's exact polish
// (--polish): the log line, loss.npy and metric.npy (the polish's own
// losses), and the snapshots, tagged polish-XXXX.
func (rec *colorRecorder) polishIteration(p *learn.Progress) error {
	o := rec.o
	fmt.Fprintf(rec.logw, "polish (exact, %d³) iter %4d  F = %.10g  |g| = %.4g  evals %d  elapsed %s\n",
		o.Bins, p.Iter, p.F, p.GradNorm, p.Evals, rec.clock.Elapsed().Round(time.Second))
	if err := colorSaveProgress(o.out, p.State.Losses, p.X, make([]float64, len(p.X))); err != nil {
		return err
	}
	if p.Iter == 1 || p.Iter%o.SaveEvery == 0 {
		// The last evaluation was the accepted point's: its reconstructions.
		return colorSnapshot(o.out, fmt.Sprintf("polish-%04d", p.Iter), p.X, o.Bins, rec.col.Hists, rec.polishObj.Reconstructions()[0])
	}
	return nil
}

// finishExact makes sure that the final point of an exact-mode run has its
// snapshot even when the optimiser stopped early (convergence) or a
// resumed run had nothing left to do, and logs the end.
func (rec *colorRecorder) finishExact(res *learn.RunResult) error {
	o := rec.o
	if res.State.Iter == 0 {
		// f_s = ‖Lap θ‖ is not differentiable at the constant start, and a
		// large λ_s can stall the first line search (docs/method.md,
		// "Regularisers").
		fmt.Fprintf(rec.logw, "warning: %s before the first iteration; the metric stays constant (try a smaller --lambda-s)\n", res.Status)
	}
	tag := fmt.Sprintf("%04d", res.State.Iter)
	if _, err := os.Stat(filepath.Join(o.out, "metric-"+tag+".npy")); err != nil {
		if _, err := res.Objective.Eval(nil, res.X); err != nil {
			return err
		}
		if err := colorSnapshot(o.out, tag, res.X, o.Bins, rec.col.Hists, res.Objective.Reconstructions()[0]); err != nil {
			return err
		}
		// rec.theta holds the metric of the last iteration of this
		// invocation, if any: write the final point's.
		learn.Exp(rec.theta, res.X)
		if err := dataset.WriteNpyFile(filepath.Join(o.out, "metric.npy"), &dataset.Array{Shape: []int{3, len(rec.theta) / 3}, Data: rec.theta}); err != nil {
			return err
		}
	}
	fmt.Fprintf(rec.logw, "done: %s after %d iterations, F = %.10g; metric in %s\n",
		res.Status, res.State.Iter, res.F, filepath.Join(o.out, "metric.npy"))
	return nil
}

// finishFast scores the final metric of a fast-mode run with the exact
// objective (the figure to compare with an exact-mode run), writes its
// snapshot with the exact reconstructions, the progress files and
// result.json, and logs the end. It closes the run's objective.
func (rec *colorRecorder) finishFast(res *learn.RunResult) error {
	o := rec.o
	seconds, cpuSeconds := rec.clock.Elapsed(), rec.clock.CPU()
	polished := len(res.Levels) > 0 && res.Levels[len(res.Levels)-1].Exact
	exact := res.Objective // the polish's is the exact objective
	if !polished {
		// Free the fast level's kernel before building the exact
		// objective's Sinkhorn tape (2·L·N·C floats, 420 MB at 32³).
		res.Objective.Close()
		var err error
		cfg := rec.exact
		if exact, err = learn.NewObjective(rec.col.Space.Graph, rec.col.Sequences(), &cfg); err != nil {
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
	if err := colorSnapshot(o.out, tag, res.X, o.Bins, rec.col.Hists, exact.Reconstructions()[0]); err != nil {
		return err
	}
	if err := colorSaveProgress(o.out, res.State.Losses, res.X, make([]float64, len(res.X))); err != nil {
		return err
	}
	summary := runlog.Summarize(res, fExact, seconds, cpuSeconds)
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
