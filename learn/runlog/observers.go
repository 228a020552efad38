package runlog

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/cputime"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/schollz/progressbar/v3"
)

// Observers is a learn.Observer that passes every report to each of its
// members in order. Iteration and Checkpoint call every member and return
// the first error.
type Observers []learn.Observer

// each calls f with every member and returns the first error.
func (os Observers) each(f func(learn.Observer) error) error {
	var first error
	for _, o := range os {
		if err := f(o); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (os Observers) LevelStart(level int, dims []int, obj *learn.Objective) {
	os.each(func(o learn.Observer) error { o.LevelStart(level, dims, obj); return nil })
}
func (os Observers) Iteration(p *learn.Progress) error {
	return os.each(func(o learn.Observer) error { return o.Iteration(p) })
}
func (os Observers) Trial(t learn.Trial) {
	os.each(func(o learn.Observer) error { o.Trial(t); return nil })
}
func (os Observers) Scored(s learn.PolishScore) {
	os.each(func(o learn.Observer) error { o.Scored(s); return nil })
}
func (os Observers) LevelDone(r learn.LevelReport) {
	os.each(func(o learn.Observer) error { o.LevelDone(r); return nil })
}
func (os Observers) Checkpoint(data []byte) error {
	return os.each(func(o learn.Observer) error { return o.Checkpoint(data) })
}

// CheckpointName is the name of the checkpoint file in a run's folder.
const CheckpointName = "checkpoint.gob"

// CheckpointFile returns the observer that writes each checkpoint of a run
// to the file path, atomically (a crash leaves the previous one whole).
func CheckpointFile(path string) learn.Observer { return checkpointFile{path: path} }

type checkpointFile struct {
	learn.NopObserver
	path string
}

func (c checkpointFile) Checkpoint(data []byte) error { return rundir.WriteFile(c.path, data, 0o644) }

// ErrNoCheckpoint is the error, wrapped, of ReadCheckpoint for a missing file.
var ErrNoCheckpoint = errors.New("no checkpoint")

// ReadCheckpoint reads, decodes and checks the checkpoint file path
// (DecodeCheckpointFile).
func ReadCheckpoint(path string) (*learn.Checkpoint, error) {
	data, err := rundir.ReadInput(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %s", ErrNoCheckpoint, path)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return DecodeCheckpointFile(path, data)
}

// ReadCheckpointIfAny is ReadCheckpoint with a missing file giving
// (nil, nil).
func ReadCheckpointIfAny(path string) (*learn.Checkpoint, error) {
	ck, err := ReadCheckpoint(path)
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, nil
	}
	return ck, err
}

// DecodeCheckpointFile decodes and checks data, the content of the
// checkpoint file path (learn.DecodeCheckpoint); errors name the file and
// say what is wrong with it.
func DecodeCheckpointFile(path string, data []byte) (*learn.Checkpoint, error) {
	ck, err := learn.DecodeCheckpoint(data)
	switch {
	case errors.Is(err, learn.ErrCheckpointFormat):
		return nil, fmt.Errorf("%s is not a checkpoint of this version of gmlg or is damaged; start the run again", path)
	case errors.Is(err, learn.ErrCheckpointChecksum):
		return nil, fmt.Errorf("%s was changed or damaged since gmlg wrote it (its SHA-256 does not match its content)", path)
	case err != nil:
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return ck, nil
}

// WarmUpShown reports whether the log and the terminal show a warm-up
// level's iteration iter: the first and every 25th.
func WarmUpShown(iter int) bool { return iter == 1 || iter%25 == 0 }

// Log is the observer that writes a run's structured log lines: one per
// accepted iteration of level Finest (the data's own grid model) and of
// the polish, and per WarmUpShown iteration of the warm-up levels, with
// the Sinkhorn and adjoint work in tolerance mode; one per warm-up level,
// per exact score, at the end of the polish, and when tolerance mode
// tightened its tolerance on level Finest.
type Log struct {
	learn.NopObserver
	Logger *slog.Logger
	Finest int

	obj *learn.Objective
}

// LevelStart keeps the level's objective for its work counters.
func (l *Log) LevelStart(_ int, _ []int, obj *learn.Objective) { l.obj = obj }

// Iteration logs an accepted iteration of level Finest or of the polish,
// and the WarmUpShown ones of the warm-up levels.
func (l *Log) Iteration(p *learn.Progress) error {
	msg := "iteration"
	switch {
	case p.Level < l.Finest && !WarmUpShown(p.Iter):
		return nil
	case p.Level < l.Finest:
		msg = "warm-up iteration"
	case p.Level > l.Finest:
		msg = "polish iteration"
	}
	attrs := []any{"iter", p.Iter, "f", p.F, "grad_norm", p.GradNorm, "grad_max", p.GradMax,
		"evals", p.Evals, "elapsed", p.Elapsed.Round(time.Millisecond)}
	if !l.obj.Exact() {
		st, tot := l.obj.Stats(), l.obj.Totals()
		attrs = append(attrs, "sinkhorn_iters", st.Iterations, "adjoint_iters", st.AdjointIterations,
			"sinkhorn_total", tot.Sinkhorn, "adjoint_total", tot.Adjoint)
	}
	if p.Level < l.Finest {
		attrs = append(attrs, "warm_level", p.Level)
	}
	l.Logger.Info(msg, attrs...)
	return nil
}

// Scored logs an exact score of a finest-level iterate.
func (l *Log) Scored(s learn.PolishScore) {
	l.Logger.Info("exact score", "iter", s.Iter, "f_exact", s.FExact, "best", s.Best)
}

// LevelDone logs the end of a warm-up level, or the tightenings of level
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
	l.Logger.Info("warm-up level", "grid", fmt.Sprint(r.Dims), "steps", r.Steps, "iter", r.Iter, "evals", r.Evals, "f", r.F,
		"status", r.Status.String(), "sinkhorn_total", r.Totals.Sinkhorn, "adjoint_total", r.Totals.Adjoint,
		"elapsed", r.Elapsed.Round(time.Millisecond))
}

// Bar is the observer that shows the iterations of level Level on a
// terminal as a progress bar with the objective, the gradient norm, the
// evaluations and the time left. A disabled Bar draws nothing, so that
// callers need not test for a terminal at every report.
type Bar struct {
	learn.NopObserver
	Level int

	mu    sync.Mutex
	w     io.Writer
	bar   *progressbar.ProgressBar
	start int
}

// NewBar returns a bar on w for iterations start+1 … maxIter of level,
// drawn only when enabled.
func NewBar(w io.Writer, enabled bool, level, start, maxIter int) *Bar {
	b := &Bar{Level: level, w: w, start: start}
	if enabled {
		b.bar = progressbar.NewOptions(maxIter-start,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetWidth(24),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("it"),
			progressbar.OptionShowIts(),
			progressbar.OptionThrottle(0),
			progressbar.OptionSetDescription(fmt.Sprintf("iter %d", start)),
			progressbar.OptionSetRenderBlankState(true),
		)
	}
	return b
}

// Iteration shows an accepted iteration of the bar's level.
func (b *Bar) Iteration(p *learn.Progress) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil || p.Level != b.Level {
		return nil
	}
	b.bar.Describe(fmt.Sprintf("iter %d  F %.6g  ‖g‖ %.3g  evals %d", p.Iter, p.F, p.GradNorm, p.Evals))
	_ = b.bar.Set(p.Iter - b.start) // a bar that cannot draw must not stop the run
	return nil
}

// Note prints a message on its own line, below the bar.
func (b *Bar) Note(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		fmt.Fprintln(b.w)
	}
	fmt.Fprintln(b.w, msg)
}

// Finish ends the bar's line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		b.bar.Exit()
		fmt.Fprintln(b.w)
	}
}

// Table is a tab-separated file opened for appending: a resumed run
// continues it, and its header line is written only into a new file.
type Table struct {
	f *os.File
}

// OpenTable opens the table at path, writing header when the file is new.
func OpenTable(path, header string) (*Table, error) {
	f, err := rundir.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		fmt.Fprintln(f, header)
	}
	return &Table{f: f}, nil
}

// Row appends one line formatted as fmt.Fprintf does; a nil table writes
// nothing.
func (t *Table) Row(format string, args ...any) {
	if t != nil {
		fmt.Fprintf(t.f, format+"\n", args...)
	}
}

// Close closes the file; a nil table is a no-op.
func (t *Table) Close() error {
	if t == nil {
		return nil
	}
	return t.f.Close()
}

// IterationTable is the observer that writes one row per accepted
// iteration of every level into a Table: the level, its bins per side
// (its grid's first extent), the iteration, F, the evaluations, the
// Sinkhorn and adjoint iterations of the point and the level's totals, and
// the clock's wall and CPU seconds. On an exact level (the polish) the
// Sinkhorn columns count Iterations per evaluation and there is no adjoint.
type IterationTable struct {
	learn.NopObserver
	*Table
	Clock *Clock

	obj  *learn.Objective
	bins int
}

// IterationHeader is the header line of an IterationTable.
const IterationHeader = "level\tn\titer\tf_fast\tevals\tsinkhorn_iters\tadjoint_iters\tsinkhorn_total\tadjoint_total\tseconds\tcpu_seconds"

// NewIterationTable opens the iteration table at path.
func NewIterationTable(path string, clock *Clock) (*IterationTable, error) {
	return openTable(path, IterationHeader, func(t *Table) *IterationTable { return &IterationTable{Table: t, Clock: clock} })
}

// openTable opens the table at path with header and wraps it in its
// observer.
func openTable[T any](path, header string, wrap func(*Table) *T) (*T, error) {
	t, err := OpenTable(path, header)
	if err != nil {
		return nil, err
	}
	return wrap(t), nil
}

// LevelStart keeps the level's objective for its work counters.
func (t *IterationTable) LevelStart(_ int, dims []int, obj *learn.Objective) {
	t.obj, t.bins = obj, firstDim(dims)
}

// Iteration appends the iteration's row; an exact level reports its L
// Sinkhorn iterations per evaluation.
func (t *IterationTable) Iteration(p *learn.Progress) error {
	el, cpu := t.Clock.Elapsed().Seconds(), t.Clock.CPU().Seconds()
	const format = "%d\t%d\t%d\t%.17g\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.3f"
	if t.obj.Exact() {
		l := t.obj.Config().Sinkhorn.Iterations
		t.Row(format, p.Level, t.bins, p.Iter, p.F, p.Evals, l, 0, l*p.Evals, 0, el, cpu)
		return nil
	}
	st, tot := t.obj.Stats(), t.obj.Totals()
	t.Row(format, p.Level, t.bins, p.Iter, p.F, p.Evals, st.Iterations, st.AdjointIterations, tot.Sinkhorn, tot.Adjoint, el, cpu)
	return nil
}

// TrialTable is the observer that writes every line-search evaluation
// (learn.Trial) into a Table, with the bins per side of its level.
type TrialTable struct {
	learn.NopObserver
	*Table
	level, bins int
}

// TrialHeader is the header line of a TrialTable.
const TrialHeader = "level\tn\titer\ttrial\tsteepest\tstep\tf0\tslope\tf\tderiv"

// NewTrialTable opens the trial table at path.
func NewTrialTable(path string) (*TrialTable, error) {
	return openTable(path, TrialHeader, func(t *Table) *TrialTable { return &TrialTable{Table: t} })
}

// LevelStart keeps the level and its bins per side.
func (t *TrialTable) LevelStart(level int, dims []int, _ *learn.Objective) {
	t.level, t.bins = level, firstDim(dims)
}

// Trial appends the trial's row.
func (t *TrialTable) Trial(tr learn.Trial) {
	t.Row("%d\t%d\t%d\t%d\t%v\t%.6g\t%.17g\t%.6g\t%.17g\t%.6g", t.level, t.bins, tr.Iter, tr.Index, tr.Steepest, tr.Step, tr.F0, tr.Slope, tr.F, tr.Deriv)
}

// ScoreTable is the observer that writes every exact score of a finest
// level's iterate (learn.PolishScore) into a Table, with the clock's wall
// and CPU seconds.
type ScoreTable struct {
	learn.NopObserver
	*Table
	Clock *Clock
}

// ScoreHeader is the header line of a ScoreTable.
const ScoreHeader = "iter\tseconds\tcpu_seconds\tf_fast\tf_exact"

// NewScoreTable opens the score table at path.
func NewScoreTable(path string, clock *Clock) (*ScoreTable, error) {
	return openTable(path, ScoreHeader, func(t *Table) *ScoreTable { return &ScoreTable{Table: t, Clock: clock} })
}

// Scored appends the score's row.
func (t *ScoreTable) Scored(sc learn.PolishScore) {
	t.Row("%d\t%.3f\t%.3f\t%.17g\t%.17g", sc.Iter, t.Clock.Elapsed().Seconds(), t.Clock.CPU().Seconds(), sc.FFast, sc.FExact)
}

// firstDim is dims[0], or 0 for a level without grid extents (a graph).
func firstDim(dims []int) int {
	if len(dims) == 0 {
		return 0
	}
	return dims[0]
}

// Clock measures the wall and the CPU time (all threads) of a run since it
// was made, for the tables' seconds and cpu_seconds columns.
type Clock struct {
	start time.Time
	cpu0  time.Duration
}

// NewClock returns a clock started now.
func NewClock() *Clock { return &Clock{start: time.Now(), cpu0: cputime.Used()} }

// Elapsed is the wall time since the clock started.
func (c *Clock) Elapsed() time.Duration { return time.Since(c.start) }

// CPU is the process's CPU time since the clock started.
func (c *Clock) CPU() time.Duration { return cputime.Used() - c.cpu0 }
