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

// Polish configures Run's optional last stage: L-BFGS on the exact-mode
// objective (the reference's), started from the finest fast level.
//
// Why: the two objectives agree (to 0.1% on seldovia2 at 16³) while the
// metric is smooth enough for L iterations from scratch to converge; as
// the fast level sharpens the metric, the exact objective of its iterates
// rises steeply (371.6 at fine iteration 150, 473 at 160, 595 at 200).
// Finishing in exact mode where they score best spends the costly exact
// evaluations only where the cheap ones no longer point the right way.
type Polish struct {
	// Iters is the number of L-BFGS iterations on the exact objective;
	// 0 disables the stage.
	Iters int
	// Every spaces the exact scores of the fast iterates, in finest-level
	// iterations (0: DefaultPolishEvery). The fast level stops at the
	// first score above the best so far, or at its end (scored too), and
	// the polish starts from the best scored iterate.
	Every int
}

// DefaultPolishEvery is Polish.Every's default: on seldovia2 at 16³ the
// exact objective of the fast iterates turns to a steep rise within 10
// fine iterations, and a score (no gradient) costs about a third of an
// exact evaluation with gradient.
const DefaultPolishEvery = 10

// PolishScore is one exact-objective score of a finest-level fast iterate.
type PolishScore struct {
	Iter   int     // finest-level iteration
	FFast  float64 // the fast objective there
	FExact float64 // the exact objective there
	// Best is the lowest FExact so far, this one included.
	Best float64
	// State is a copy of the fast level's state at this iterate when it
	// is the best so far (Checkpoint.PolishBest), nil otherwise.
	State *State
}

// errExactRose stops the finest fast level for the polish.
var errExactRose = errors.New("the exact objective of the fast iterates rose")

// polisher carries the exact objective and the best scored fast iterate.
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

// ExactScore returns the exact-mode objective (exactModel) of the metric
// e^x on g for seqs under cfg: a tolerance-mode run's figure to compare
// with an exact-mode run's.
func ExactScore(g *kernel.Graph, seqs []Sequence, cfg *Config, x []float64) (f float64, err error) {
	exact := exactModel(*cfg)
	obj, err := NewObjective(g, seqs, &exact)
	if err == nil {
		defer obj.Close()
		f, err = obj.Eval(nil, x)
	}
	if err != nil {
		return 0, fmt.Errorf("learn: exact score: %w", err)
	}
	return f, nil
}

// exactModel is the polish's model: cfg in exact mode, with L =
// cfg.Sinkhorn.Iterations (the tolerance-mode settings do not apply).
func exactModel(cfg Config) Config {
	cfg.Sinkhorn = ot.Settings{Iterations: cfg.Sinkhorn.Iterations, IterateEndpoints: cfg.Sinkhorn.IterateEndpoints}
	return cfg
}

// objective builds the exact objective on first use (its Sinkhorn tape,
// 2·L·N·C floats, need not sit beside the coarse levels' memory).
func (pl *polisher) objective() (*Objective, error) {
	if pl.obj == nil {
		var err error
		if pl.obj, err = NewObjective(pl.g, pl.seqs, pl.cfg); err != nil {
			return nil, fmt.Errorf("learn: polish: %w", err)
		}
	}
	return pl.obj, nil
}

func (pl *polisher) close() {
	if pl.obj != nil {
		pl.obj.Close()
	}
}

// score evaluates the exact objective at the fast iterate p, keeps p's
// state when it is the best so far, and returns errExactRose otherwise.
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
		pl.bestF, pl.best, pl.from = fe, p.State.Clone(), p.Iter
		sc.State = p.State.Clone()
	}
	sc.Best = pl.bestF
	pl.obs.Scored(sc)
	if rose {
		return errExactRose
	}
	return nil
}

// start returns the polish's start: the best scored iterate with the exact
// value and gradient and the counters reset, keeping the fast level's
// correction pairs (on seldovia2 at 16³ they cut the iterations to a given
// exact objective by a quarter).
func (pl *polisher) start() (*State, error) {
	obj, err := pl.objective()
	if err != nil {
		return nil, err
	}
	if pl.best == nil {
		return nil, fmt.Errorf("learn: polish: the exact objective (L = %d Sinkhorn iterations) is not finite at any scored iterate; raise the heat time t or L", obj.cfg.Sinkhorn.Iterations)
	}
	st := pl.best.Clone()
	st.Iter, st.Evals, st.Losses = 0, 1, nil
	if st.F, err = obj.Eval(st.G, st.X); err != nil {
		return nil, fmt.Errorf("learn: polish: exact objective and gradient at its start: %w", err)
	}
	return st, nil
}

// run scores the finest level's final iterate fine if needed, then
// minimises the exact objective from the best scored iterate (or from
// resume, when non-nil) with ms, as level level.
func (pl *polisher) run(ctx context.Context, fine *Result, ms *Settings, level int, resume *State) (*Result, LevelReport, error) {
	t0 := time.Now()
	st, from := resume, 0
	if st == nil {
		if fine.State.Iter != pl.last {
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
	rep := LevelReport{Level: level, Dims: pl.g.Dims(), Steps: obj.Heat().Options().Steps, Iter: res.State.Iter, Evals: res.State.Evals, F: res.F,
		Status: res.Status, Elapsed: time.Since(t0), Exact: true, From: from}
	if err != nil {
		err = fmt.Errorf("learn: polish: %w", err)
	}
	return res, rep, err
}
