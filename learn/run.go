package learn

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gmlg/gmlg/kernel"
)

// Observer receives the reports of Run (and Minimize's iterations and
// trials), on the goroutine that called Run, in this order per level:
// LevelStart, then per accepted iteration Scored (when due), Iteration and
// Checkpoint (when due), with Trial for every line-search evaluation in
// between, and LevelDone. Embed NopObserver to implement only some.
type Observer interface {
	// LevelStart is called when a level's objective is built, before its
	// first evaluation; obj stays open until the level ends. dims are the
	// level's grid extents (nil on a non-grid graph).
	LevelStart(level int, dims []int, obj *Objective)
	// Iteration is called after every accepted iteration; an error stops
	// the run (status Cancelled) after a last checkpoint.
	Iteration(p *Progress) error
	// Trial is called after every line-search evaluation that returned a value.
	Trial(t Trial)
	// Scored is called with every exact score of a finest-level iterate.
	Scored(s PolishScore)
	// LevelDone is called after each level and the polish with its report.
	LevelDone(r LevelReport)
	// Checkpoint is called with an encoded Checkpoint every
	// RunSettings.CheckpointEvery iterations, when the run stops early with
	// a state to continue from, and at its end (Done). The caller writes
	// the bytes atomically; an error stops the run.
	Checkpoint(data []byte) error
}

// NopObserver ignores every report.
type NopObserver struct{}

func (NopObserver) LevelStart(int, []int, *Objective) {}
func (NopObserver) Iteration(*Progress) error         { return nil }
func (NopObserver) Trial(Trial)                       {}
func (NopObserver) Scored(PolishScore)                {}
func (NopObserver) LevelDone(LevelReport)             {}
func (NopObserver) Checkpoint([]byte) error           { return nil }

// IterationFunc is an Observer of the accepted iterations alone.
type IterationFunc func(*Progress) error

func (f IterationFunc) Iteration(p *Progress) error     { return f(p) }
func (IterationFunc) LevelStart(int, []int, *Objective) {}
func (IterationFunc) Trial(Trial)                       {}
func (IterationFunc) Scored(PolishScore)                {}
func (IterationFunc) LevelDone(LevelReport)             {}
func (IterationFunc) Checkpoint([]byte) error           { return nil }

// Level is one warm-up stage of a run: a coarser grid, or the finest
// grid with a cheaper heat kernel.
type Level struct {
	// Coarsen is the number of halvings (HalveGrid) of the finest grid; 0
	// is the finest grid itself, which needs Steps.
	Coarsen int
	// Steps, when positive, is the number of heat sub-steps on the level
	// in place of Config.Heat.Steps: fewer make each iteration cheaper.
	Steps int
	// MaxIter bounds the level's accepted iterations (0: Settings.MaxIter).
	MaxIter int
}

// DefaultCoarseIters is the command line's iterations per coarse level.
// On the 2-D toy of TestCoarseToFineToy (17² from 9²), 10 coarse then 30
// fine iterations end 0.6% above 40 fine ones, 10 + 40 end 4.4% below;
// 20 or 40 coarse iterations ended 25% and 12% above: the restricted data
// are not the coarse model's barycenters, and fitting them closely learns
// coarse-grid artefacts.
const DefaultCoarseIters = 10

// CoarseSchedule returns RunSettings.Coarse for a run that starts levels
// halvings below its grid: halvings levels, …, 1, iters iterations each.
func CoarseSchedule(levels, iters int) []Level {
	sched := make([]Level, levels)
	for i := range sched {
		sched[i] = Level{Coarsen: levels - i, MaxIter: iters}
	}
	return sched
}

// RunSettings configures Run. The zero value learns on the given graph
// alone, from θ = 1, with Minimize's default settings.
type RunSettings struct {
	// Settings are the optimiser's on every level (MaxIter the finest
	// level's); its Observer receives every report of the run.
	Settings
	// Coarse lists the warm-up levels learnt before the finest one,
	// coarsest first, Coarsen strictly decreasing; only the last may have
	// Coarsen 0, with Steps set. Coarser grids need a grid of equal
	// extents, the vertex metric and Heat.Alpha = 0 (each level's
	// Laplacian scale is its grid's default).
	Coarse []Level
	// Polish, when Polish.Iters > 0, ends a tolerance-mode run (see Polish).
	Polish Polish
	// Start is the first level's log metric; nil means x = 0. Each later
	// level starts from the previous level's metric, prolonged.
	Start []float64
	// CheckpointEvery K checkpoints each level after its iterations 1, K,
	// 2K, …; 0 means every iteration.
	CheckpointEvery int
	// Run identifies the run (e.g. its settings and data checksums): every
	// checkpoint carries it, and Resume must carry the same
	// (ErrCheckpointRun), so that no other run resumes a checkpoint.
	Run []byte
	// Resume, if set, continues an interrupted run at its checkpoint's
	// Level and State. Tolerance mode's warm start is not part
	// of the state, so only exact mode resumes bitwise.
	Resume *Checkpoint
}

// LevelReport describes one finished level of Run.
type LevelReport struct {
	Level     int   // index in the run: warm-up levels, the finest, the polish
	Dims      []int // grid extents (nil on a non-grid graph)
	Steps     int   // heat sub-steps of the level's kernel
	Iter      int   // accepted iterations
	Evals     int   // objective evaluations
	F         float64
	Status    Status
	Totals    Totals // evaluations, Sinkhorn and adjoint iterations
	Elapsed   time.Duration
	Tightened int // tolerance tightenings (Tightener)
	// Exact marks the polish (F is the exact objective; Totals is zero);
	// From is the finest-level iteration it started from (0 if resumed).
	Exact bool
	From  int
}

// RunResult is the outcome of Run.
type RunResult struct {
	*Result               // the last stage's (X: the final log metric on g)
	Levels  []LevelReport // every level that ran, coarsest first
	// Objective is the last stage's objective, left open after a run
	// without error (nil otherwise) for its reconstructions; the caller
	// closes it.
	Objective *Objective
}

// Run learns the metric of g from seqs with the model cfg and the settings
// s (nil: the zero RunSettings): the warm-up levels of s.Coarse, each on
// a coarser grid with its frames restricted (RestrictSequences) or on g
// with its own heat steps, then g, then the optional
// polish, each minimised with Minimize from the previous stage's metric.
// Cancelling ctx stops the current stage; Run then reports a last
// checkpoint and returns what it reached with the error.
func Run(ctx context.Context, g *kernel.Graph, seqs []Sequence, cfg *Config, s *RunSettings) (*RunResult, error) {
	r, err := newRunner(g, seqs, cfg, s)
	if err != nil {
		return nil, err
	}
	defer r.close()
	return r.run(ctx)
}

// runner is one call of Run.
type runner struct {
	set   RunSettings
	obs   Observer
	cfg   Config
	g     *kernel.Graph
	sched []Level // the warm-up levels and the finest (Coarsen 0, the model's steps)
	dims  [][]int // grid extents by halving (nil on a non-grid graph)
	seqs  [][]Sequence
	pl    *polisher // nil without a polish
	first int       // the level to start at (Resume)
	final *Objective
}

func newRunner(g *kernel.Graph, seqs []Sequence, cfg *Config, s *RunSettings) (*runner, error) {
	r := &runner{g: g}
	if s != nil {
		r.set = *s
	}
	if cfg != nil {
		r.cfg = *cfg
	}
	r.obs = cmp.Or[Observer](r.set.Observer, NopObserver{})
	r.sched = append(append([]Level(nil), r.set.Coarse...), Level{Coarsen: 0, MaxIter: r.set.MaxIter})
	if err := r.plan(seqs); err != nil {
		return nil, err
	}
	if err := r.planPolish(); err != nil {
		return nil, err
	}
	if err := r.planResume(); err != nil {
		return nil, err
	}
	return r, nil
}

// plan checks the schedule and computes the coarser grids and their frames.
func (r *runner) plan(seqs []Sequence) error {
	r.seqs = [][]Sequence{seqs}
	if r.set.CheckpointEvery < 0 {
		return fmt.Errorf("learn: CheckpointEvery %d must not be negative", r.set.CheckpointEvery)
	}
	if g := r.g; g.IsGrid() {
		r.dims = [][]int{g.Dims()}
	}
	coarse := r.set.Coarse
	if len(coarse) == 0 {
		return nil
	}
	for i, l := range coarse {
		if l.Coarsen < 0 || l.MaxIter < 0 || l.Steps < 0 || i > 0 && l.Coarsen >= coarse[i-1].Coarsen {
			return fmt.Errorf("learn: coarse levels %v: Coarsen must decrease strictly to 0, MaxIter and Steps be ≥ 0", coarse)
		}
		if l.Coarsen == 0 && l.Steps == 0 {
			return fmt.Errorf("learn: coarse levels %v: a level on the finest grid needs Steps", coarse)
		}
	}
	if coarse[0].Coarsen == 0 {
		return nil
	}
	if !r.g.IsGrid() || r.cfg.Metric != VertexMetric {
		return errors.New("learn: coarse levels need a grid and the vertex metric")
	}
	if r.cfg.Heat.Alpha != 0 {
		return errors.New("learn: coarse levels set the Laplacian scale per level: leave Heat.Alpha at 0")
	}
	dims := r.dims[0]
	for _, m := range dims {
		if m != dims[0] {
			return fmt.Errorf("learn: coarse levels need equal grid extents, got %v", dims)
		}
	}
	for k := 1; k <= coarse[0].Coarsen; k++ {
		next, err := HalveGrid(r.dims[k-1])
		if err != nil {
			return fmt.Errorf("learn: %d halvings of %v leave fewer than 2 nodes per axis", coarse[0].Coarsen, dims)
		}
		cur, err := RestrictSequences(r.seqs[k-1], r.dims[k-1], next)
		if err != nil {
			return err
		}
		r.dims, r.seqs = append(r.dims, next), append(r.seqs, cur)
	}
	return nil
}

func (r *runner) planPolish() error {
	p := r.set.Polish
	if p.Iters < 0 || p.Every < 0 {
		return fmt.Errorf("learn: polish settings %+v must not be negative", p)
	}
	if p.Iters == 0 {
		return nil
	}
	if !(r.cfg.Sinkhorn.Tol > 0) {
		return errors.New("learn: the polish needs tolerance mode (exact mode minimises the exact objective throughout)")
	}
	exact := exactModel(r.cfg)
	p.Every = cmp.Or(p.Every, DefaultPolishEvery)
	r.pl = &polisher{set: p, obs: r.obs, g: r.g, seqs: r.seqs[0], cfg: &exact, bestF: math.Inf(1), last: -1}
	return nil
}

// polishLevel and finest are the level indices of the polish and of the
// finest level; lastLevel is the polish's if any, else the finest's.
func (r *runner) polishLevel() int { return len(r.sched) }
func (r *runner) finest() int      { return len(r.sched) - 1 }

func (r *runner) lastLevel() int {
	if r.pl != nil {
		return r.polishLevel()
	}
	return r.finest()
}

// planResume checks the checkpoint to resume from.
func (r *runner) planResume() error {
	ck := r.set.Resume
	if ck == nil {
		return nil
	}
	if err := ck.Validate(); err != nil {
		return fmt.Errorf("learn: resume: %w", err)
	}
	if !bytes.Equal(ck.Run, r.set.Run) {
		return fmt.Errorf("learn: resume: %w", ErrCheckpointRun)
	}
	if last := r.lastLevel(); ck.Level > last {
		return fmt.Errorf("learn: cannot resume at level %d of a run of %d levels", ck.Level, last+1)
	}
	r.first = ck.Level
	// A resumed finest level keeps the interrupted one's best scored iterate.
	if best := ck.PolishBest; r.pl != nil && ck.Level == r.finest() && best != nil {
		r.pl.best, r.pl.bestF, r.pl.from = best.Clone(), ck.PolishBestF, best.Iter
	}
	return nil
}

func (r *runner) close() {
	if r.pl != nil {
		r.pl.close()
	}
}

// run runs the levels from r.first, then the polish.
func (r *runner) run(ctx context.Context) (*RunResult, error) {
	out := &RunResult{}
	x0 := r.set.Start
	for li := r.first; li < len(r.sched); li++ {
		res, rep, obj, err := r.level(ctx, li, x0)
		if res == nil {
			return nil, err
		}
		out.Levels = append(out.Levels, rep)
		out.Result = res
		if err != nil {
			obj.Close()
			return out, r.stopped(li, res.State, err)
		}
		if li == r.finest() && r.pl == nil {
			r.final = obj
			break
		}
		obj.Close()
		if li < r.finest() {
			x0 = res.X
			if k, next := r.sched[li].Coarsen, r.sched[li+1].Coarsen; k != next {
				x0 = LogOf(kernel.ProlongVertexMetric(Exp(nil, res.X), r.dims[k], r.dims[next]))
			}
		}
	}
	if r.pl != nil {
		res, rep, err := r.polish(ctx, out.Result)
		if res == nil {
			return out, err
		}
		out.Levels = append(out.Levels, rep)
		out.Result = res
		if err != nil {
			return out, r.stopped(r.polishLevel(), res.State, err)
		}
	}
	last := r.lastLevel()
	if err := r.checkpoint(&Checkpoint{Level: last, State: out.State, Done: true, Status: out.Status.String()}); err != nil {
		r.final.Close()
		return out, err
	}
	out.Objective, r.final = r.final, nil
	return out, nil
}

// stopped reports the checkpoint of level li's state st and returns err.
func (r *runner) stopped(li int, st *State, err error) error {
	if r.final != nil {
		r.final.Close()
		r.final = nil
	}
	if cerr := r.checkpoint(r.levelCheckpoint(li, st)); cerr != nil {
		return fmt.Errorf("%w; saving the checkpoint also failed: %v", err, cerr)
	}
	return err
}

// newObjective builds the objective of level li.
func (r *runner) newObjective(li int) (*Objective, []int, error) {
	k := r.sched[li].Coarsen
	g := r.g
	var dims []int
	if r.dims != nil {
		dims = r.dims[k]
	}
	if k > 0 {
		var err error
		if g, err = kernel.Grid(dims...); err != nil {
			return nil, nil, fmt.Errorf("learn: level %d: %w", li, err)
		}
	}
	cfg := r.cfg
	if s := r.sched[li].Steps; s > 0 {
		cfg.Heat.Steps = s
	}
	obj, err := NewObjective(g, r.seqs[k], &cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("learn: level %d (grid %v): %w", li, dims, err)
	}
	return obj, dims, nil
}

// level runs level li from x0 (nil: x = 0) or from the checkpoint, and
// returns its objective open when it ran; res is nil when it could not
// start.
func (r *runner) level(ctx context.Context, li int, x0 []float64) (*Result, LevelReport, *Objective, error) {
	obj, dims, err := r.newObjective(li)
	if err != nil {
		return nil, LevelReport{}, nil, err
	}
	var resume *State
	if li == r.first && r.set.Resume != nil {
		resume = r.set.Resume.State
		if len(resume.X) != obj.Dim() {
			obj.Close()
			return nil, LevelReport{}, nil, fmt.Errorf("learn: resume state of %d parameters for level %d, which has %d", len(resume.X), li, obj.Dim())
		}
		if pb := r.set.Resume.PolishBest; pb != nil && len(pb.X) != obj.Dim() {
			obj.Close()
			return nil, LevelReport{}, nil, fmt.Errorf("learn: resume's polish start has %d parameters, level %d %d", len(pb.X), li, obj.Dim())
		}
	}
	if x0 == nil {
		x0 = make([]float64, obj.Dim())
	} else if resume == nil && len(x0) != obj.Dim() {
		obj.Close()
		return nil, LevelReport{}, nil, fmt.Errorf("learn: starting point of %d parameters for level %d, which has %d", len(x0), li, obj.Dim())
	}
	ms := r.set.Settings
	ms.MaxIter = cmp.Or(r.sched[li].MaxIter, ms.MaxIter)
	ms.Observer = &levelObserver{Observer: r.obs, r: r, level: li}
	r.obs.LevelStart(li, dims, obj)
	start := time.Now()
	res, err := Minimize(ctx, obj, x0, &ms, resume)
	if res != nil && errors.Is(err, errExactRose) {
		res.Status, err = ExactRose, nil
	}
	if res == nil {
		obj.Close()
		return nil, LevelReport{}, nil, fmt.Errorf("learn: level %d (grid %v): %w", li, dims, err)
	}
	rep := LevelReport{Level: li, Dims: dims, Steps: obj.Heat().Options().Steps, Iter: res.State.Iter, Evals: res.State.Evals, F: res.F,
		Status: res.Status, Totals: obj.Totals(), Elapsed: time.Since(start), Tightened: res.Tightened}
	r.obs.LevelDone(rep)
	if err != nil {
		err = fmt.Errorf("learn: level %d (grid %v): %w", li, dims, err)
	}
	return res, rep, obj, err
}

// polish runs the polish after the finest level's result fine.
func (r *runner) polish(ctx context.Context, fine *Result) (*Result, LevelReport, error) {
	level := r.polishLevel()
	var resume *State
	if r.first == level {
		resume, fine = r.set.Resume.State, nil
	}
	ms := r.set.Settings
	ms.MaxIter = r.set.Polish.Iters
	ms.Observer = &levelObserver{Observer: r.obs, r: r, level: level}
	res, rep, err := r.pl.run(ctx, fine, &ms, level, resume)
	if res == nil {
		return nil, rep, err
	}
	r.final, r.pl.obj = r.pl.obj, nil
	r.obs.LevelDone(rep)
	return res, rep, err
}

// levelCheckpoint is the checkpoint of state st on level li.
func (r *runner) levelCheckpoint(li int, st *State) *Checkpoint {
	ck := &Checkpoint{Level: li, State: st}
	if r.pl != nil && li == r.finest() && r.pl.best != nil {
		ck.PolishBest, ck.PolishBestF = r.pl.best, r.pl.bestF
	}
	return ck
}

// checkpoint encodes ck with the run's identity for the observer.
func (r *runner) checkpoint(ck *Checkpoint) error {
	ck.Run = r.set.Run
	data, err := EncodeCheckpoint(ck)
	if err != nil {
		return err
	}
	return r.obs.Checkpoint(data)
}

// levelObserver passes Minimize's reports of one level to the run's
// observer, adding the polish's scores and the checkpoints.
type levelObserver struct {
	Observer
	r     *runner
	level int
}

// Iteration scores the finest level's iterate when due (first, so that the
// checkpoint holds the score), reports the iteration and its checkpoint,
// and stops the finest level for the polish when the score rose.
func (o *levelObserver) Iteration(p *Progress) error {
	p.Level = o.level
	r := o.r
	var rose error // errExactRose, returned after the reports
	if r.pl != nil && o.level == r.finest() && p.Iter%r.pl.set.Every == 0 {
		rose = r.pl.score(p)
		if rose != nil && !errors.Is(rose, errExactRose) {
			return rose
		}
	}
	if err := o.Observer.Iteration(p); err != nil {
		return err
	}
	if every := max(r.set.CheckpointEvery, 1); p.Iter == 1 || p.Iter%every == 0 {
		if err := r.checkpoint(r.levelCheckpoint(o.level, p.State)); err != nil {
			return err
		}
	}
	return rose
}
