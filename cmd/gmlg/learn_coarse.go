package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
)

// coarseStart is learn --coarse K: it restricts every frame to the grid
// halved once, learns coarse to fine there (levels K−1 … 0 of that grid,
// i.e. K … 1 of the data's, CoarseIters iterations each, in fast mode with
// the run's model and optimiser settings), and returns the log of that
// metric prolonged to the data's grid, the starting point of the run. Each
// level is logged, and also passed to note as one line (for the terminal
// when a progress bar hides the log).
func (r *learnRun) coarseStart(ctx context.Context, note func(string)) ([]float64, error) {
	o := &r.p.Optimizer
	dims := r.ds.Graph.Dims()
	half, err := learn.HalveGrid(dims)
	if err != nil {
		return nil, usagef("--coarse %d: the %v grid is too small to halve", o.Coarse, dims)
	}
	g1, err := kernel.Grid(half...)
	if err != nil {
		return nil, err
	}
	seqs, err := learn.RestrictSequences(r.ds.seqs, dims, half)
	if err != nil {
		return nil, err
	}
	sched := make([]learn.Level, o.Coarse)
	for i := range sched {
		sched[i] = learn.Level{Coarsen: o.Coarse - 1 - i, MaxIter: o.CoarseIters}
	}
	r.log.Info("coarse start", "levels", o.Coarse, "iters_per_level", o.CoarseIters)
	note(fmt.Sprintf("learning the starting metric on %d coarser grid(s), %d iterations each…", o.Coarse, o.CoarseIters))
	res, err := learn.CoarseToFine(ctx, g1, seqs, r.p.Model.config(), &learn.CoarseToFineSettings{
		Schedule: sched,
		Fast:     r.p.Model.fastSinkhorn(),
		Minimize: learn.Settings{
			History: o.History, MaxLinesearch: o.MaxLinesearch, FTol: orDisabled(o.FTol), GTol: orDisabled(o.GTol),
		},
		LevelDone: func(rep learn.LevelReport) {
			r.log.Info("coarse level", "grid", fmt.Sprint(rep.Dims), "iter", rep.Iter, "evals", rep.Evals, "f", rep.F,
				"status", rep.Status.String(), "sinkhorn_total", rep.Totals.Sinkhorn, "adjoint_total", rep.Totals.Adjoint,
				"elapsed", rep.Elapsed.Round(time.Millisecond))
			note(fmt.Sprintf("coarse level %v: %d iterations, F = %.6g (%s)", rep.Dims, rep.Iter, rep.F, rep.Elapsed.Round(time.Millisecond)))
		},
	})
	if err != nil {
		return nil, fmt.Errorf("coarse levels: %w", err)
	}
	theta := make([]float64, len(res.X))
	for i, v := range res.X {
		theta[i] = math.Exp(v)
	}
	return logOf(learn.ProlongVertexMetric(theta, half, dims)), nil
}
