package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/bench"
	"github.com/gmlg/gmlg/cmd/gmlg/internal/runinfo"
	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot"
)

// colorIterationsFile is fast mode's per-iteration record (tab-separated,
// one line per accepted iteration of every level, appended).
const colorIterationsFile = "iterations.tsv"

// colorExactFile records the exact-mode objective at the finest-level
// iterates that -polish scores.
const colorExactFile = "exact.tsv"

// colorLinesearchFile logs every line-search evaluation of fast mode (see
// learn.Trial), to see where evaluations beyond one per iteration went.
const colorLinesearchFile = "linesearch.tsv"

// colorResultFile is the summary a finished fast-mode run writes.
const colorResultFile = "result.json"

// colorFastCheckpoint is colorlearn's checkpoint: the coarse-to-fine level
// of a fast-mode run (−1 in exact mode) and the optimiser's state on it.
type colorFastCheckpoint struct {
	Level int
	State *learn.State
	// PolishBest and PolishBestF: with -polish, on the finest level, the
	// best exact-scored iterate so far and its score (see
	// learn.CoarseToFineCheckpoint).
	PolishBest  *learn.State
	PolishBestF float64
}

// colorFastResult is result.json of a fast-mode run.
type colorFastResult struct {
	Mode   string              `json:"mode"`
	Status string              `json:"status"`
	Levels []colorLevelSummary `json:"levels"`
	// FFast is the fast objective at the final metric (with -polish: at
	// the finest fast level's last iterate; 0 when a resumed polish ran
	// alone); FExact the exact (reference, L iterations) objective at the
	// final metric, the number to compare with an exact-mode run.
	FFast  float64 `json:"f_fast"`
	FExact float64 `json:"f_exact"`
	// PolishFrom is the finest-level iteration the polish (-polish) started
	// from, 0 without one (or when it was resumed).
	PolishFrom int `json:"polish_from,omitempty"`
	// Seconds is the wall time of this invocation (a resumed run's
	// earlier part not included), -polish's scores included, and
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
	Tightened    int     `json:"tightened"` // tolerance ÷10 after a failed line search (learn.MinimizeFast)
	Seconds      float64 `json:"seconds"`
	// Exact marks the polish, whose f_fast is the exact objective.
	Exact bool `json:"exact,omitempty"`
}

// colorLearnFast is colorlearn -mode fast: learn.CoarseToFine over o.coarse
// halvings of the n³ grid (and with -polish its exact-objective polish),
// checkpointing every iteration, then the exact objective of the final
// metric.
func colorLearnFast(ctx context.Context, o *colorLearnOptions, g *kernel.Graph, hists [][]float64, params *colorLearnParams, heat kernel.HeatOptions, ckptPath string, logw io.Writer) error {
	n := params.Bins
	var resume *learn.CoarseToFineCheckpoint
	if o.resume != "" {
		if err := colorCheckResume(filepath.Join(o.out, colorParamsFile), params, logw); err != nil {
			return err
		}
		ck, err := colorLoadAnyCheckpoint(ckptPath)
		if err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		if ck == nil {
			return fmt.Errorf("--resume: no checkpoint %s", ckptPath)
		}
		if ck.Level < 0 {
			return fmt.Errorf("--resume: %s is not a fast-mode checkpoint", ckptPath)
		}
		resume = &learn.CoarseToFineCheckpoint{Level: ck.Level, State: ck.State, PolishBest: ck.PolishBest, PolishBestF: ck.PolishBestF}
		fmt.Fprintf(logw, "resuming %s on level %d at iteration %d (F = %.6g); the Sinkhorn warm start restarts cold\n", o.out, ck.Level, ck.State.Iter, ck.State.F)
	}
	if err := runinfo.WriteChecked(filepath.Join(o.out, colorParamsFile), params); err != nil {
		return err
	}
	sched := make([]learn.Level, 0, o.coarse+1)
	for k := o.coarse; k >= 1; k-- {
		sched = append(sched, learn.Level{Coarsen: k, MaxIter: o.coarseIters})
	}
	sched = append(sched, learn.Level{Coarsen: 0, MaxIter: o.iters})
	cfg := learn.Config{
		Heat:       heat,
		Iterations: o.L, Loss: o.loss, LambdaC: o.lambdaC, LambdaS: o.lambdaS,
	}
	fmt.Fprintf(logw, "colorlearn (fast mode): %d images of %s at %d³ bins, t = %g, %d steps, tol %g, %s adjoint, Anderson depth %d, λ_s = %g; levels",
		len(hists), params.Input, n, o.t, o.steps, params.Tol, params.Adjoint, params.Anderson, o.lambdaS)
	for _, l := range sched {
		m := n
		for k := 0; k < l.Coarsen; k++ {
			m = learn.CoarseSide(m)
		}
		fmt.Fprintf(logw, " %d³×%d", m, l.MaxIter)
	}
	if params.Polish > 0 {
		fmt.Fprintf(logw, ", then %d exact-objective iterations from the best %d³ iterate (scored every %d)", params.Polish, n, params.PolishEvery)
	}
	fmt.Fprintln(logw)

	tsv, err := colorAppendTSV(filepath.Join(o.out, colorIterationsFile),
		"level\tn\titer\tf_fast\tevals\tsinkhorn_iters\tadjoint_iters\tsinkhorn_total\tadjoint_total\tseconds\tcpu_seconds")
	if err != nil {
		return err
	}
	defer tsv.Close()
	lsTSV, err := colorAppendTSV(filepath.Join(o.out, colorLinesearchFile), "n\titer\ttrial\tsteepest\tstep\tf0\tslope\tf\tderiv")
	if err != nil {
		return err
	}
	defer lsTSV.Close()
	// The exact-mode objective of the final metric. It is built when first
	// needed: its Sinkhorn tape (2·L·N·C floats, 420 MB at 32³) need not
	// sit beside the fast levels' memory otherwise.
	var exact *learn.Objective
	defer func() {
		if exact != nil {
			exact.Close()
		}
	}()
	exactF := func(x []float64) (float64, error) {
		if exact == nil {
			var err error
			if exact, err = learn.NewObjective(g, []learn.Sequence{{Frames: hists}}, &cfg); err != nil {
				return 0, err
			}
		}
		return exact.Eval(nil, x)
	}
	var exactTSV *os.File
	if params.Polish > 0 {
		if exactTSV, err = colorAppendTSV(filepath.Join(o.out, colorExactFile), "iter\tseconds\tcpu_seconds\tf_fast\tf_exact"); err != nil {
			return err
		}
		defer exactTSV.Close()
	}
	var (
		cur       *learn.FastObjective
		polishObj *learn.Objective
		best      *learn.State // with -polish: the best exact-scored finest-level iterate
		bestF     float64
		curBins   int
		theta     []float64
		start     = time.Now()
		cpu0      = bench.CPUTime()
		fine      = len(sched) - 1
	)
	if resume != nil { // an interrupted finest level's best score carries over
		best, bestF = resume.PolishBest, resume.PolishBestF
	}
	elapsed := func() time.Duration { return time.Since(start) }
	cpu := func() time.Duration { return bench.CPUTime() - cpu0 }
	set := &learn.CoarseToFineSettings{
		Schedule: sched,
		Fast:     learn.FastOptions{Sinkhorn: ot.FastSettings{Tol: params.Tol, AdjointGMRES: params.Adjoint == "gmres", Anderson: params.Anderson}},
		Resume:   resume,
		Polish: learn.Polish{Iters: params.Polish, Every: params.PolishEvery,
			Start: func(obj *learn.Objective) { polishObj = obj },
			Scored: func(sc learn.PolishScore) {
				if sc.State != nil {
					best, bestF = sc.State, sc.FExact
				}
				fmt.Fprintf(exactTSV, "%d\t%.3f\t%.3f\t%.17g\t%.17g\n", sc.Iter, elapsed().Seconds(), cpu().Seconds(), sc.FFast, sc.FExact)
				fmt.Fprintf(logw, "  exact-mode F at iteration %d: %.10g (best %.10g)\n", sc.Iter, sc.FExact, sc.Best)
			}},
		LevelStart: func(level int, dims []int, obj *learn.FastObjective) {
			cur, curBins = obj, dims[0]
			theta = make([]float64, obj.Dim())
		},
		LevelDone: func(r learn.LevelReport) {
			if r.Exact {
				fmt.Fprintf(logw, "polish done: %s after %d iterations from fine iteration %d, %d evaluations, exact-mode F = %.8g, %s\n",
					r.Status, r.Iter, r.From, r.Evals, r.F, r.Elapsed.Round(time.Second))
				return
			}
			fmt.Fprintf(logw, "level %d (%d³) done: %s after %d iterations, %d evaluations, F_fast = %.8g, Sinkhorn %d + adjoint %d iterations, tolerance tightened %d times, %s\n",
				r.Level, r.Dims[0], r.Status, r.Iter, r.Evals, r.F, r.Totals.Sinkhorn, r.Totals.Adjoint, r.Tightened, r.Elapsed.Round(time.Second))
		},
		Minimize: learn.Settings{Trial: func(t learn.Trial) {
			fmt.Fprintf(lsTSV, "%d\t%d\t%d\t%v\t%.6g\t%.17g\t%.6g\t%.17g\t%.6g\n", curBins, t.Iter, t.Index, t.Steepest, t.Step, t.F0, t.Slope, t.F, t.Deriv)
		}, Callback: func(p *learn.Progress) error {
			el := elapsed()
			if p.Level == len(sched) {
				return colorPolishIteration(o, p, n, hists, polishObj, tsv, logw, el, cpu(), ckptPath)
			}
			st, tot := cur.Stats(), cur.Totals()
			fmt.Fprintf(logw, "level %d (%d³) iter %4d  F_fast = %.10g  |g| = %.4g  evals %d  sinkhorn %d  adjoint %d  elapsed %s\n",
				p.Level, curBins, p.Iter, p.F, p.GradNorm, p.Evals, st.Iterations, st.AdjointIterations, el.Round(time.Second))
			fmt.Fprintf(tsv, "%d\t%d\t%d\t%.17g\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.3f\n", p.Level, curBins, p.Iter, p.F, p.Evals,
				st.Iterations, st.AdjointIterations, tot.Sinkhorn, tot.Adjoint, el.Seconds(), cpu().Seconds())
			ck := &colorFastCheckpoint{Level: p.Level, State: p.State}
			if p.Level == fine {
				ck.PolishBest, ck.PolishBestF = best, bestF
			}
			if err := colorSaveFastCheckpoint(ckptPath, ck); err != nil {
				return err
			}
			if p.Level != fine {
				return nil
			}
			if err := colorSaveProgress(o.out, p.State.Losses, p.X, theta); err != nil {
				return err
			}
			if p.Iter == 1 || p.Iter%o.saveEvery == 0 {
				return colorSnapshot(o.out, p.Iter, p.X, n, hists, cur.Reconstructions()[0])
			}
			return nil
		}},
	}
	res, err := learn.CoarseToFine(ctx, g, []learn.Sequence{{Frames: hists}}, &cfg, set)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return colorInterrupted(o.out, ckptPath)
		}
		return err
	}
	// The final metric in exact mode: the figure to compare with an
	// exact-mode run, and the reconstructions of the final snapshot.
	seconds, cpuSeconds := elapsed(), cpu()
	fExact, err := exactF(res.X)
	if err != nil {
		return fmt.Errorf("exact objective of the final metric: %w", err)
	}
	iter := res.State.Iter
	tag := fmt.Sprintf("%04d", iter)
	polished := len(res.Levels) > 0 && res.Levels[len(res.Levels)-1].Exact
	if polished {
		tag = "polish-" + tag
	}
	if err := colorSnapshotTag(o.out, tag, res.X, n, hists, exact.Reconstructions()[0]); err != nil {
		return err
	}
	if theta == nil { // a resumed polish starts no fast level
		theta = make([]float64, len(res.X))
	}
	if err := colorSaveProgress(o.out, res.State.Losses, res.X, theta); err != nil {
		return err
	}
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
	if err := runinfo.WriteJSON(filepath.Join(o.out, colorResultFile), summary); err != nil {
		return err
	}
	if polished {
		fmt.Fprintf(logw, "done: %s after %d polish iterations (from fine iteration %d) in %s; exact-mode F = %.10g; metric in %s\n",
			res.Status, iter, summary.PolishFrom, seconds.Round(time.Second), fExact, filepath.Join(o.out, "metric.npy"))
		return nil
	}
	fmt.Fprintf(logw, "done: %s after %d fine iterations in %s; F_fast = %.10g, exact-mode F at this metric = %.10g; metric in %s\n",
		res.Status, iter, seconds.Round(time.Second), res.F, fExact, filepath.Join(o.out, "metric.npy"))
	return nil
}

// colorPolishIteration records an iteration of fast mode's exact polish
// (-polish): the log line, a row of iterations.tsv (level = the schedule's
// length, Sinkhorn iterations = L per evaluation, no adjoint iterations),
// the checkpoint, loss.npy and metric.npy (the polish's own losses), and
// the snapshots, tagged polish-XXXX.
func colorPolishIteration(o *colorLearnOptions, p *learn.Progress, n int, hists [][]float64, obj *learn.Objective,
	tsv io.Writer, logw io.Writer, el, cpu time.Duration, ckptPath string) error {
	fmt.Fprintf(logw, "polish (exact, %d³) iter %4d  F = %.10g  |g| = %.4g  evals %d  elapsed %s\n",
		n, p.Iter, p.F, p.GradNorm, p.Evals, el.Round(time.Second))
	fmt.Fprintf(tsv, "%d\t%d\t%d\t%.17g\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.3f\n", p.Level, n, p.Iter, p.F, p.Evals,
		o.L, 0, o.L*p.Evals, 0, el.Seconds(), cpu.Seconds())
	if err := colorSaveFastCheckpoint(ckptPath, &colorFastCheckpoint{Level: p.Level, State: p.State}); err != nil {
		return err
	}
	theta := make([]float64, len(p.X))
	if err := colorSaveProgress(o.out, p.State.Losses, p.X, theta); err != nil {
		return err
	}
	if p.Iter == 1 || p.Iter%o.saveEvery == 0 {
		// The last evaluation was the accepted point's: its reconstructions.
		return colorSnapshotTag(o.out, fmt.Sprintf("polish-%04d", p.Iter), p.X, n, hists, obj.Reconstructions()[0])
	}
	return nil
}

// colorSaveFastCheckpoint writes a fast-mode checkpoint atomically.
func colorSaveFastCheckpoint(path string, ck *colorFastCheckpoint) error {
	return writeSealed(path, colorCheckpointMagic, ck)
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
