package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// Polish configures Run's optional last stage: L-BFGS on the exact
// objective (Objective: L Sinkhorn iterations from b = 1, unrolled
// gradient — the reference's, which exact mode minimises), started from
// the finest fast level.
//
// Why: fast mode minimises the objective of converged barycenters. The two
// objectives agree (to 0.1% on seldovia2 at 16³) while the metric is smooth
// enough for L iterations from scratch to converge; as the fast level
// sharpens the metric they part, and the exact objective of the fast
// iterates, after falling with the fast one, rises steeply (371.6 at fine
// iteration 150, 473 at 160, 595 at 200). A user who wants the reference's
// objective gets it by stopping the fast level where its iterates score best
// on the exact objective and finishing there in exact mode: the costly exact
// evaluations are spent only where the cheap ones no longer point the right
// way.
type Polish struct {
	// Iters is the number of L-BFGS iterations on the exact objective;
	// 0 disables the stage (the default).
	Iters int
	// Every is the spacing, in finest-level iterations, of the exact
	// objective's scores of the fast iterates (an evaluation without
	// gradient, about a third of one with it). The fast level stops at the
	// first score above the best one so far, or at its own end (whose
	// iterate is then scored too), and the polish starts from the best
	// scored iterate. Every score reaches Observer.Scored. 0 means
	// DefaultPolishEvery.
	Every int
}

// DefaultPolishEvery is Polish.Every's default: on seldovia2 at 16³ the
// exact objective of the fast iterates turns from its minimum to a steep
// rise within 10 fine iterations (371.6 at 150, 473 at 160), and a score
// costs about a third of an exact evaluation with gradient.
const DefaultPolishEvery = 10

// PolishScore is one exact-objective score of a finest-level fast iterate.
type PolishScore struct {
	Iter   int     // finest-level iteration
	FFast  float64 // the fast objective there
	FExact float64 // the exact objective there
	// Best is the lowest FExact so far, this one included.
	Best float64
	// State is the fast level's state at this iterate when it is the best
	// so far (a copy the callee may keep; Run's checkpoints hold it as
	// Checkpoint.PolishBest), nil otherwise.
	State *State
}

// errExactRose stops the finest fast level for the polish.
var errExactRose = errors.New("the exact objective of the fast iterates rose")

// polisher carries the exact objective and the best scored fast iterate
// through Run's finest level.
type polisher struct {
	set   Polish
	obs   Observer
	g     *kernel.Graph
	seqs  []Sequence
	cfg   *Config
	obj   *Objective
	best  *State // the fast level's state at the best-scoring iterate
	bestF float64
	from  int // best's iteration
	last  int // iteration of the last score
}

func newPolisher(p Polish, g *kernel.Graph, seqs []Sequence, cfg *Config, obs Observer) *polisher {
	if p.Every == 0 {
		p.Every = DefaultPolishEvery
	}
	return &polisher{set: p, obs: obs, g: g, seqs: seqs, cfg: cfg, bestF: math.Inf(1), last: -1}
}

// ExactScore returns the objective of the metric e^x on g for seqs under
// cfg in exact mode (the polish's model, exactModel), without its
// gradient: the figure of a tolerance-mode run's metric to compare with an
// exact-mode run's. The exact objective's memory is held only during the
// call.
func ExactScore(g *kernel.Graph, seqs []Sequence, cfg *Config, x []float64) (float64, error) {
	exact := exactModel(*cfg)
	obj, err := NewObjective(g, seqs, &exact)
	if err != nil {
		return 0, fmt.Errorf("learn: exact score: %w", err)
	}
	defer obj.Close()
	f, err := obj.Eval(nil, x)
	if err != nil {
		return 0, fmt.Errorf("learn: exact score: %w", err)
	}
	return f, nil
}

// exactModel is the polish's model: cfg in exact mode, with
// L = cfg.Sinkhorn.Iterations Sinkhorn iterations (the tolerance-mode
// settings of cfg.Sinkhorn, its solvers and bounds, do not apply).
func exactModel(cfg Config) Config {
	cfg.Sinkhorn = ot.Settings{Iterations: cfg.Sinkhorn.Iterations, IterateEndpoints: cfg.Sinkhorn.IterateEndpoints}
	return cfg
}

// objective builds the exact objective on first use (its Sinkhorn tape,
// 2·L·N·C floats, need not sit beside the coarse levels' memory).
func (pl *polisher) objective() (*Objective, error) {
	if pl.obj != nil {
		return pl.obj, nil
	}
	obj, err := NewObjective(pl.g, pl.seqs, pl.cfg)
	if err != nil {
		return nil, fmt.Errorf("learn: polish: %w", err)
	}
	pl.obj = obj
	return obj, nil
}

func (pl *polisher) close() {
	if pl.obj != nil {
		pl.obj.Close()
	}
}

// score evaluates the exact objective at the fast iterate p and keeps p's
// state when it is the best so far; it returns errExactRose when the score
// is above the best.
func (pl *polisher) score(p *Progress) error {
	obj, err := pl.objective()
	if err != nil {
		return err
	}
	fe, err := obj.Eval(nil, p.X)
	if err != nil {
		if !numericalTrouble(err) {
			return fmt.Errorf("learn: polish: exact objective at fine iteration %d: %w", p.Iter, err)
		}
		// L iterations from b = 1 under- or overflow at this metric: the
		// exact objective is worse here than anywhere it is finite.
		fe = math.Inf(1)
	}
	pl.last = p.Iter
	rose := fe > pl.bestF || math.IsInf(fe, 1)
	sc := PolishScore{Iter: p.Iter, FFast: p.F, FExact: fe}
	if !rose {
		pl.bestF, pl.best, pl.from = fe, cloneState(p.State), p.Iter
		sc.State = cloneState(p.State)
	}
	sc.Best = pl.bestF
	pl.obs.Scored(sc)
	if rose {
		return errExactRose
	}
	return nil
}

// start returns the state the polish starts from: the best scored iterate
// with the exact objective's value and gradient, the fast level's L-BFGS
// correction pairs (the objectives agree closely there: on seldovia2 at 16³
// the pairs cut the iterations to a given exact objective by a quarter),
// and the iteration counters reset.
func (pl *polisher) start() (*State, error) {
	obj, err := pl.objective()
	if err != nil {
		return nil, err
	}
	if pl.best == nil {
		return nil, fmt.Errorf("learn: polish: the exact objective (L = %d Sinkhorn iterations) is not finite at any scored iterate; raise the heat time t or L", obj.cfg.Sinkhorn.Iterations)
	}
	st := cloneState(pl.best)
	st.Iter, st.Evals, st.Losses = 0, 1, nil
	if st.F, err = obj.Eval(st.G, st.X); err != nil {
		return nil, fmt.Errorf("learn: polish: exact objective and gradient at its start: %w", err)
	}
	return st, nil
}

// restore makes a resumed finest level keep the best scored iterate of the
// interrupted one.
func (pl *polisher) restore(best *State, f float64) {
	if best != nil {
		pl.best, pl.bestF, pl.from = cloneState(best), f, best.Iter
	}
}

// run scores the finest level's final iterate fine when it was not
// scored, then minimises the exact objective from the best scored iterate
// (or from resume, a polish state, when non-nil) with the settings ms,
// reporting the objective's start to ms.Observer as level.
func (pl *polisher) run(ctx context.Context, fine *Result, ms *Settings, level int, resume *State) (*Result, LevelReport, error) {
	t0 := time.Now()
	st, from := resume, 0
	if st == nil {
		if fine.State.Iter != pl.last {
			// The level's end (converged, or its iteration limit): score it
			// too; the polish starts from the best of all scores.
			if err := pl.score(&Progress{Iter: fine.State.Iter, F: fine.F, X: fine.State.X, State: fine.State}); err != nil && !errors.Is(err, errExactRose) {
				return nil, LevelReport{}, err
			}
		}
		var err error
		if st, err = pl.start(); err != nil {
			return nil, LevelReport{}, err
		}
		from = pl.from
	}
	obj, err := pl.objective()
	if err != nil {
		return nil, LevelReport{}, err
	}
	ms.Observer.LevelStart(level, pl.g.Dims(), obj)
	res, err := Minimize(ctx, obj, nil, ms, st)
	if res == nil {
		return nil, LevelReport{}, fmt.Errorf("learn: polish: %w", err)
	}
	rep := LevelReport{Level: level, Dims: pl.g.Dims(), Iter: res.State.Iter, Evals: res.State.Evals, F: res.F,
		Status: res.Status, Elapsed: time.Since(t0), Exact: true, From: from}
	if err != nil {
		err = fmt.Errorf("learn: polish: %w", err)
	}
	return res, rep, err
}
