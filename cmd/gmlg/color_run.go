package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/draw"
)

// The record files of a fast-mode colorlearn run: iterations.tsv
// (runlog.IterationTable), linesearch.tsv (runlog.TrialTable), exact.tsv
// (runlog.ScoreTable, with --polish) and result.json (runlog.Summary).
const (
	colorIterationsFile = "iterations.tsv"
	colorLinesearchFile = "linesearch.tsv"
	colorExactFile      = "exact.tsv"
	colorResultFile     = "result.json"
)

// colorRun is a colorlearn run once its inputs are read: the histograms
// of its images on the n³ colour cube, its flags and recorded settings,
// its objectives and where its checkpoint goes.
type colorRun struct {
	o   *colorLearnFlags
	dir string // the image folder, as given
	col *dataset.Colour
	// exact is the run's exact objective (runlog.ColourRun.Config), the
	// model of exact mode and of fast mode's polish and final score;
	// model is the one it minimises (runlog.ColourRun.Objective).
	exact, model learn.Config
	ckpt         string
	logw         io.Writer
}

// fast reports whether the run is in fast mode.
func (r *colorRun) fast() bool { return r.o.Mode == "fast" }

// run is learn.Run over the run's levels (fast mode: o.Coarse halvings of
// the cube, and with --polish its exact-objective polish), checkpointing
// every iteration, then the final point's snapshot (fast mode: with its
// exact objective and result.json).
func (r *colorRun) run(ctx context.Context) error {
	id, err := r.o.ColourRun.Identity()
	if err != nil {
		return err
	}
	resume, err := r.resumeCheckpoint(id)
	if err != nil {
		return err
	}
	if err := rundir.WriteChecked(filepath.Join(r.o.out, colorParamsFile), &r.o.ColourRun); err != nil {
		return err
	}
	var coarse []learn.Level
	if r.fast() {
		coarse = learn.CoarseSchedule(r.o.Coarse, r.o.CoarseIters)
	}
	r.logPlan(coarse)
	rec := &colorRecorder{colorRun: r, levels: len(coarse) + 1, clock: runlog.NewClock(), last: time.Now()}
	if resume != nil {
		rec.lastIter = resume.State.Iter
	}
	model := r.model
	obs, closeAll, err := r.observers(rec)
	if err != nil {
		return err
	}
	defer closeAll()
	res, err := learn.Run(ctx, r.col.Space.Graph, r.col.Sequences(), &model, &learn.RunSettings{
		Settings: learn.Settings{MaxIter: r.o.MaxIter, Observer: obs},
		Coarse:   coarse,
		Polish:   learn.Polish{Iters: r.o.Polish, Every: r.o.PolishEvery},
		Run:      id,
		Resume:   resume,
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return colorInterrupted(r.o.out, r.ckpt)
		}
		return err
	}
	if err := firstStepFailed(res, r.o.LambdaS); err != nil {
		res.Objective.Close()
		return err
	}
	if r.fast() {
		return rec.finishFast(res)
	}
	defer res.Objective.Close()
	return rec.finishExact(res)
}

// observers composes the run's learn.Observer: the checkpoint file, rec
// and, in fast mode, the tables; closeAll closes the tables.
func (r *colorRun) observers(rec *colorRecorder) (obs runlog.Observers, closeAll func(), err error) {
	obs = runlog.Observers{runlog.CheckpointFile(r.ckpt), rec}
	var tables []*runlog.Table
	closeAll = func() {
		for _, t := range tables {
			t.Close()
		}
	}
	if !r.fast() {
		return obs, closeAll, nil
	}
	path := func(name string) string { return filepath.Join(r.o.out, name) }
	iters, err := runlog.NewIterationTable(path(colorIterationsFile), rec.clock)
	if err != nil {
		return nil, closeAll, err
	}
	tables = append(tables, iters.Table)
	trials, err := runlog.NewTrialTable(path(colorLinesearchFile))
	if err != nil {
		closeAll()
		return nil, closeAll, err
	}
	tables, obs = append(tables, trials.Table), append(obs, iters, trials)
	if r.o.Polish > 0 {
		scores, err := runlog.NewScoreTable(path(colorExactFile), rec.clock)
		if err != nil {
			closeAll()
			return nil, closeAll, err
		}
		tables, obs = append(tables, scores.Table), append(obs, scores)
	}
	return obs, closeAll, nil
}

// resumeCheckpoint returns the checkpoint that --resume continues the run
// from (nil without --resume), after checking that the run's images and
// settings are those of its params.json and that the checkpoint is of the
// run's mode and identity id; a run stopped before its first checkpoint
// starts again (nil). (A new run's folder holds no checkpoint: takeColorRunDir
// refuses one that holds a run.)
func (r *colorRun) resumeCheckpoint(id []byte) (*learn.Checkpoint, error) {
	if r.o.resume == "" {
		return nil, nil
	}
	if err := colorCheckResume(filepath.Join(r.o.out, colorParamsFile), &r.o.ColourRun, r.logw); err != nil {
		return nil, err
	}
	ck, err := runlog.ReadCheckpointIfAny(r.ckpt)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if ck == nil {
		fmt.Fprintf(r.logw, "resuming %s: no checkpoint yet (the run stopped before its first iteration); starting it again with its own settings\n", r.o.out)
		return nil, nil
	}
	if err := runlog.CheckRun(r.ckpt, ck.Run, id); err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if !r.fast() {
		if ck.Level != 0 {
			return nil, fmt.Errorf("--resume: %s is not an exact-mode checkpoint", r.ckpt)
		}
		fmt.Fprintf(r.logw, "resuming %s at iteration %d (F = %.6g)\n", r.o.out, ck.State.Iter, ck.State.F)
		return ck, nil
	}
	if ck.Level < 0 {
		return nil, fmt.Errorf("--resume: %s is not a fast-mode checkpoint", r.ckpt)
	}
	fmt.Fprintf(r.logw, "resuming %s on level %d at iteration %d (F = %.6g); the Sinkhorn warm start restarts cold\n", r.o.out, ck.Level, ck.State.Iter, ck.State.F)
	return ck, nil
}

// logPlan writes the line that announces the run: its data, model and, in
// fast mode, its solver settings, levels and polish.
func (r *colorRun) logPlan(sched []learn.Level) {
	o, n := r.o, r.col.Space.Graph.N()
	if !r.fast() {
		fmt.Fprintf(r.logw, "colorlearn: %d images of %s at %d³ bins (N = %d, %d metric parameters), t = %g, %d steps, L = %d, λ_s = %g, %d iterations\n",
			len(r.col.Hists), r.dir, o.Bins, n, 3*n, o.THeat, o.KHeat, o.L, o.LambdaS, o.MaxIter)
		return
	}
	fmt.Fprintf(r.logw, "colorlearn (fast mode): %d images of %s at %d³ bins, t = %g, %d steps, tol %g, %s adjoint, Anderson depth %d, λ_s = %g; levels",
		len(r.col.Hists), o.Input, o.Bins, o.THeat, o.KHeat, o.Tol, o.Adjoint, o.Anderson, o.LambdaS)
	for _, l := range sched {
		m := o.Bins
		for k := 0; k < l.Coarsen; k++ {
			m = learn.CoarseSide(m)
		}
		fmt.Fprintf(r.logw, " %d³×%d", m, l.MaxIter)
	}
	if o.Polish > 0 {
		fmt.Fprintf(r.logw, ", then %d exact-objective iterations from the best %d³ iterate (scored every %d)", o.Polish, o.Bins, o.PolishEvery)
	}
	fmt.Fprintln(r.logw)
}

// colorInterrupted is the error of a run stopped by Ctrl-C (exit status
// 130): it gives the command that continues the run when a checkpoint was
// saved.
func colorInterrupted(out, ckpt string) error {
	if _, err := os.Stat(ckpt); err != nil {
		return exitError{fmt.Errorf("interrupted before the first checkpoint; start the run again with:\n  %s", resumeCommand("colorlearn", out)), 130}
	}
	return exitError{fmt.Errorf("interrupted; checkpoint saved. Resume with:\n  %s", resumeCommand("colorlearn", out)), 130}
}

// colorSaveProgress rewrites dir's loss.npy, loss.png and metric.npy (exp x,
// through the buffer theta of len(x)).
func colorSaveProgress(dir string, losses, x, theta []float64) error {
	if err := runlog.SaveLoss(dir, losses, "colorlearn loss"); err != nil {
		return err
	}
	learn.Exp(theta, x)
	return dataset.WriteNpyFile(filepath.Join(dir, "metric.npy"), &dataset.Array{Shape: []int{3, len(x) / 3}, Data: theta})
}

// colorSnapshot writes metric-TAG.npy (exp x, [3,n³]), its heat maps
// metric-TAG.png and hists-TAG.png (the observed histograms above their
// reconstructions recs) into dir; the tag is the iteration's number
// (fast mode's polish: polish-XXXX).
func colorSnapshot(dir, tag string, x []float64, n int, hists, recs [][]float64) error {
	theta := learn.Exp(nil, x)
	a := &dataset.Array{Shape: []int{3, len(x) / 3}, Data: theta}
	if err := dataset.WriteNpyFile(filepath.Join(dir, "metric-"+tag+".npy"), a); err != nil {
		return err
	}
	pic, err := draw.MetricMaps(theta, 3, n, "metric, iteration "+tag, 240)
	if err != nil {
		return err
	}
	if err := runlog.SavePicture(filepath.Join(dir, "metric-"+tag+".png"), pic); err != nil {
		return err
	}
	pic2, err := draw.HistogramComparison(hists, recs, n, "iteration "+tag)
	if err != nil {
		return err
	}
	return runlog.SavePicture(filepath.Join(dir, "hists-"+tag+".png"), pic2)
}
