package runlog

import (
	"fmt"
	"os"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/cputime"
	"github.com/gmlg/gmlg/learn/rundir"
)

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
	t, err := OpenTable(path, IterationHeader)
	if err != nil {
		return nil, err
	}
	return &IterationTable{Table: t, Clock: clock}, nil
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
	bins int
}

// TrialHeader is the header line of a TrialTable.
const TrialHeader = "n\titer\ttrial\tsteepest\tstep\tf0\tslope\tf\tderiv"

// NewTrialTable opens the trial table at path.
func NewTrialTable(path string) (*TrialTable, error) {
	t, err := OpenTable(path, TrialHeader)
	if err != nil {
		return nil, err
	}
	return &TrialTable{Table: t}, nil
}

// LevelStart keeps the level's bins per side.
func (t *TrialTable) LevelStart(_ int, dims []int, _ *learn.Objective) { t.bins = firstDim(dims) }

// Trial appends the trial's row.
func (t *TrialTable) Trial(tr learn.Trial) {
	t.Row("%d\t%d\t%d\t%v\t%.6g\t%.17g\t%.6g\t%.17g\t%.6g", t.bins, tr.Iter, tr.Index, tr.Steepest, tr.Step, tr.F0, tr.Slope, tr.F, tr.Deriv)
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
	t, err := OpenTable(path, ScoreHeader)
	if err != nil {
		return nil, err
	}
	return &ScoreTable{Table: t, Clock: clock}, nil
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
