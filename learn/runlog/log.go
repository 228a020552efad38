package runlog

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/gmlg/gmlg/learn"
)

// Log is the observer that writes a run's structured log lines
// (log/slog): one per accepted iteration of level Finest and of the
// polish after it, with the Sinkhorn and adjoint work of its point when
// the objective is in tolerance mode; one per finished coarser level and
// per exact score of the polish; one at the end of the polish; and one
// when tolerance mode tightened its tolerance on level Finest.
type Log struct {
	learn.NopObserver
	Logger *slog.Logger
	// Finest is the level whose iterations are logged: the data's own
	// grid (0 for a run without coarse levels).
	Finest int

	obj *learn.Objective
}

// LevelStart keeps the level's objective for its work counters.
func (l *Log) LevelStart(_ int, _ []int, obj *learn.Objective) { l.obj = obj }

// Iteration logs an accepted iteration of level Finest or of the polish.
func (l *Log) Iteration(p *learn.Progress) error {
	if p.Level < l.Finest {
		return nil
	}
	msg := "iteration"
	if p.Level > l.Finest {
		msg = "polish iteration"
	}
	attrs := []any{"iter", p.Iter, "f", p.F, "grad_norm", p.GradNorm, "grad_max", p.GradMax,
		"evals", p.Evals, "elapsed", p.Elapsed.Round(time.Millisecond)}
	if !l.obj.Exact() {
		st, tot := l.obj.Stats(), l.obj.Totals()
		attrs = append(attrs, "sinkhorn_iters", st.Iterations, "adjoint_iters", st.AdjointIterations,
			"sinkhorn_total", tot.Sinkhorn, "adjoint_total", tot.Adjoint)
	}
	l.Logger.Info(msg, attrs...)
	return nil
}

// Scored logs an exact score of a finest-level iterate.
func (l *Log) Scored(s learn.PolishScore) {
	l.Logger.Info("exact score", "iter", s.Iter, "f_exact", s.FExact, "best", s.Best)
}

// LevelDone logs the end of a coarser level, or the tightenings of level
// Finest's tolerance.
func (l *Log) LevelDone(r learn.LevelReport) {
	if r.Exact {
		l.Logger.Info("polish", "from", r.From, "iter", r.Iter, "evals", r.Evals, "f_exact", r.F, "status", r.Status.String(),
			"elapsed", r.Elapsed.Round(time.Millisecond))
		return
	}
	if r.Level == l.Finest {
		if r.Tightened > 0 {
			l.Logger.Info("tolerance tightened", "times", r.Tightened, "reason", "line search failed")
		}
		return
	}
	l.Logger.Info("coarse level", "grid", fmt.Sprint(r.Dims), "iter", r.Iter, "evals", r.Evals, "f", r.F,
		"status", r.Status.String(), "sinkhorn_total", r.Totals.Sinkhorn, "adjoint_total", r.Totals.Adjoint,
		"elapsed", r.Elapsed.Round(time.Millisecond))
}
