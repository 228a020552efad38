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

// Level is one stage of a coarse-to-fine schedule.
type Level struct {
	// Coarsen is the number of halvings of the finest grid: 0 is the
	// finest grid itself, k the grid of side CoarseSide applied k times.
	Coarsen int
	// MaxIter bounds the accepted L-BFGS iterations on this level (0
	// means the Settings' MaxIter).
	MaxIter int
}

// DefaultSchedule is the schedule used when CoarseToFineSettings.Schedule is
// nil: 10 iterations on the grid halved once, then the finest grid with the
// Settings' MaxIter. Measured on the 2-D toy of TestCoarseToFineToy (17²
// from 9²), 10 coarse iterations then 30 fine ones reach, in exact mode, an
// objective 0.6% above exact mode's after 40 iterations, and 10 + 40 one
// 4.4% below it; but 20 or 40 coarse iterations made the fine start worse
// (25% and 12% above after 30 and 40 fine iterations): the restricted data
// are not the coarse model's barycenters, and fitting them closely learns
// coarse-grid artefacts. Keep the coarse stages short.
var DefaultSchedule = []Level{{Coarsen: 1, MaxIter: 10}, {Coarsen: 0}}

// CoarseToFineSettings configures CoarseToFine. Zero fields mean defaults.
type CoarseToFineSettings struct {
	// Schedule lists the levels, coarsest first, Coarsen strictly
	// decreasing and the last one 0. nil means DefaultSchedule.
	Schedule []Level
	// Fast configures the Sinkhorn barycenters of every level (tolerance
	// mode; a zero Tol means DefaultTol). The levels take LooseTol,
	// Uncorrected and Tighten from the model Config.
	Fast ot.Settings
	// Minimize is the optimiser's settings, shared by every level (MaxIter
	// is overridden by the level's when that is non-zero; the Callback
	// sees each level's own iteration numbers).
	Minimize Settings
	// LevelStart, if set, is called when a level's objective is built,
	// before its first evaluation; obj stays open until the level ends
	// (use it, e.g., for its Reconstructions in the Callback).
	LevelStart func(level int, dims []int, obj *Objective)
	// LevelDone, if set, is called after each level with its report.
	LevelDone func(LevelReport)
	// Polish, when Polish.Iters > 0, ends the run with L-BFGS on the exact
	// objective (see Polish). Its iterations reach the Callback as level
	// len(Schedule), and its report is the last of Levels.
	Polish Polish
	// Resume, if set, continues an interrupted run: the levels before
	// Resume.Level are skipped and that level continues from
	// Resume.State (a Progress.State of it; Level len(Schedule) is the
	// polish, whose state is the exact objective's). A resumed finest
	// level keeps the checkpoint's PolishBest. The warm start of the
	// Sinkhorn scalings is not part of the state, so a resumed level
	// starts its first evaluation cold and the run is not bitwise that of
	// an uninterrupted one.
	Resume *CoarseToFineCheckpoint
}

// CoarseToFineCheckpoint is where a coarse-to-fine run can continue from;
// a Checkpoint holds one to save it in a file.
type CoarseToFineCheckpoint struct {
	Level int    // index in the schedule
	State *State // the optimiser's state on that level
	// PolishBest and PolishBestF are, for a run with a polish interrupted
	// on its finest level, the best-scored iterate so far
	// (PolishScore.State) and its exact objective: the resumed level keeps
	// them as its best score, so that the polish still starts there (nil:
	// the resumed level scores afresh).
	PolishBest  *State
	PolishBestF float64
}

// LevelReport describes one finished level of CoarseToFine.
type LevelReport struct {
	Level   int   // index in the schedule
	Dims    []int // grid extents
	Iter    int   // accepted iterations
	Evals   int   // objective evaluations
	F       float64
	Status  Status
	Totals  Totals // Sinkhorn and adjoint iterations
	Elapsed time.Duration
	// Tightened counts the tolerance tightenings after failed line
	// searches (MinimizeFast).
	Tightened int
	// Exact marks the polish stage (F is the exact objective; Totals is
	// zero), and From is the finest-level iteration it started from (0
	// when it was resumed).
	Exact bool
	From  int
}

// CoarseToFineResult is the outcome of CoarseToFine.
type CoarseToFineResult struct {
	// Result is the finest level's, or the polish's when there is one
	// (its X is the log of the final vertex metric on g).
	*Result
	// Levels reports every level, coarsest first.
	Levels []LevelReport
}

// CoarseToFine learns a vertex metric on the grid g in fast mode, coarse
// grids first. Every frame is restricted to each level's grid
// with RestrictHistogram (halving the side each time: n → ⌈n/2⌉); the
// first level starts from θ = 1 (x = 0), and each later level starts from
// the previous level's metric prolonged with ProlongVertexMetric. Each
// level minimises a tolerance-mode Objective with the model cfg (the same t, steps,
// loss and λ on every level; the Laplacian scale α is the grid's default
// (n−1)², so cfg.Heat.Alpha must be 0) for at most its schedule's MaxIter
// iterations.
//
// g must be a grid with equal extents (a cube: 2-D images, colour cubes),
// cfg.Metric the VertexMetric. Cancelling ctx stops the current level and
// returns its result with the error.
func CoarseToFine(ctx context.Context, g *kernel.Graph, seqs []Sequence, cfg *Config, s *CoarseToFineSettings) (*CoarseToFineResult, error) {
	var set CoarseToFineSettings
	if s != nil {
		set = *s
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if !g.IsGrid() || c.Metric != VertexMetric {
		return nil, errors.New("learn: coarse to fine needs a grid and the vertex metric")
	}
	if c.Heat.Alpha != 0 {
		return nil, errors.New("learn: coarse to fine sets the Laplacian scale per level: leave Heat.Alpha at 0")
	}
	fc := c // the levels' model: tolerance mode
	fc.Sinkhorn = set.Fast
	if fc.Sinkhorn.Tol == 0 {
		fc.Sinkhorn.Tol = DefaultTol
	}
	dims := g.Dims()
	for _, m := range dims {
		if m != dims[0] {
			return nil, fmt.Errorf("learn: coarse to fine needs equal grid extents, got %v", dims)
		}
	}
	sched := set.Schedule
	if sched == nil {
		sched = DefaultSchedule
	}
	if len(sched) == 0 || sched[len(sched)-1].Coarsen != 0 {
		return nil, errors.New("learn: coarse-to-fine schedule must end with the finest level (Coarsen 0)")
	}
	for i, l := range sched {
		if l.Coarsen < 0 || l.MaxIter < 0 || i > 0 && l.Coarsen >= sched[i-1].Coarsen {
			return nil, fmt.Errorf("learn: coarse-to-fine schedule %v: Coarsen must decrease strictly to 0 and MaxIter be ≥ 0", sched)
		}
	}
	// Grids of every halving, finest first.
	levelDims := [][]int{dims}
	for k := 1; k <= sched[0].Coarsen; k++ {
		next, err := HalveGrid(levelDims[k-1])
		if err != nil {
			return nil, fmt.Errorf("learn: coarse to fine: %d halvings of %v leave fewer than 2 nodes per axis", sched[0].Coarsen, dims)
		}
		levelDims = append(levelDims, next)
	}
	// Frames restricted level by level.
	levelSeqs := [][]Sequence{seqs}
	for k := 1; k < len(levelDims); k++ {
		cur, err := RestrictSequences(levelSeqs[k-1], levelDims[k-1], levelDims[k])
		if err != nil {
			return nil, err
		}
		levelSeqs = append(levelSeqs, cur)
	}
	if set.Polish.Iters < 0 || set.Polish.Every < 0 {
		return nil, fmt.Errorf("learn: polish settings %+v must not be negative", set.Polish)
	}
	var pl *polisher
	if set.Polish.Iters > 0 {
		pl = newPolisher(set.Polish, g, seqs, &c)
		defer pl.close()
		if r := set.Resume; r != nil && r.Level == len(sched)-1 {
			pl.restore(r.PolishBest, r.PolishBestF)
		}
	}
	polishLevel := len(sched)
	first := 0
	if r := set.Resume; r != nil {
		last := len(sched)
		if pl != nil {
			last++
		}
		if r.Level < 0 || r.Level >= last || r.State == nil {
			return nil, fmt.Errorf("learn: coarse to fine: cannot resume at level %d of a %d-level schedule", r.Level, last)
		}
		coarsen := 0
		if r.Level < len(sched) {
			coarsen = sched[r.Level].Coarsen
		}
		if want := len(dims) * gridSize(levelDims[coarsen]); len(r.State.X) != want {
			return nil, fmt.Errorf("learn: coarse to fine: resume state of length %d for level %d, want %d", len(r.State.X), r.Level, want)
		}
		if r.PolishBest != nil && len(r.PolishBest.X) != len(dims)*gridSize(dims) {
			return nil, fmt.Errorf("learn: coarse to fine: resume's polish state of length %d, want %d", len(r.PolishBest.X), len(dims)*gridSize(dims))
		}
		first = r.Level
	}
	out := &CoarseToFineResult{}
	var theta []float64 // metric of the previous level
	var prevDims []int
	for li, l := range sched {
		if li < first {
			continue
		}
		d := levelDims[l.Coarsen]
		gl, err := kernel.Grid(d...)
		if err != nil {
			return nil, fmt.Errorf("learn: coarse to fine: %w", err)
		}
		obj, err := NewObjective(gl, levelSeqs[l.Coarsen], &fc)
		if err != nil {
			return nil, fmt.Errorf("learn: coarse to fine, level %d (grid %v): %w", li, d, err)
		}
		x0 := make([]float64, obj.Dim())
		if theta != nil {
			th := ProlongVertexMetric(theta, prevDims, d)
			for i, v := range th {
				x0[i] = math.Log(v)
			}
		}
		ms := set.Minimize
		if l.MaxIter != 0 {
			ms.MaxIter = l.MaxIter
		}
		if cb := set.Minimize.Callback; cb != nil {
			ms.Callback = func(p *Progress) error {
				p.Level = li
				return cb(p)
			}
		}
		if pl != nil && li == len(sched)-1 {
			ms.Callback = pl.wrap(ms.Callback)
		}
		var resume *State
		if li == first && set.Resume != nil {
			resume = set.Resume.State
		}
		if set.LevelStart != nil {
			set.LevelStart(li, d, obj)
		}
		start := time.Now()
		res, err := MinimizeFast(ctx, obj, x0, &ms, resume)
		obj.Close()
		if res != nil && errors.Is(err, errExactRose) {
			res.Status, err = ExactRose, nil
		}
		if res == nil {
			return nil, fmt.Errorf("learn: coarse to fine, level %d (grid %v): %w", li, d, err)
		}
		rep := LevelReport{Level: li, Dims: d, Iter: res.State.Iter, Evals: res.State.Evals, F: res.F,
			Status: res.Status, Totals: obj.Totals(), Elapsed: time.Since(start), Tightened: res.Tightened}
		out.Levels = append(out.Levels, rep)
		out.Result = res
		if set.LevelDone != nil {
			set.LevelDone(rep)
		}
		if err != nil {
			return out, fmt.Errorf("learn: coarse to fine, level %d (grid %v): %w", li, d, err)
		}
		theta = make([]float64, len(res.X))
		for i, v := range res.X {
			theta[i] = math.Exp(v)
		}
		prevDims = d
	}
	if pl == nil {
		return out, nil
	}
	var resume *State
	if r := set.Resume; r != nil && r.Level == polishLevel {
		resume = r.State
	}
	res, rep, err := pl.run(ctx, out.Result, set.Minimize, polishLevel, resume)
	if res == nil {
		return out, err
	}
	out.Levels = append(out.Levels, rep)
	out.Result = res
	if set.LevelDone != nil {
		set.LevelDone(rep)
	}
	return out, err
}
