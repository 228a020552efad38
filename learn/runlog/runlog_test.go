package runlog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
)

// recorder is an observer that records the order of its reports and can
// fail its iterations and checkpoints.
type recorder struct {
	name  string
	fail  error
	calls *[]string
}

func (r recorder) LevelStart(level int, _ []int, _ *learn.Objective) {
	*r.calls = append(*r.calls, r.name+".start")
}
func (r recorder) Iteration(*learn.Progress) error {
	*r.calls = append(*r.calls, r.name+".iter")
	return r.fail
}
func (r recorder) Trial(learn.Trial)        { *r.calls = append(*r.calls, r.name+".trial") }
func (r recorder) Scored(learn.PolishScore) { *r.calls = append(*r.calls, r.name+".scored") }
func (r recorder) LevelDone(learn.LevelReport) {
	*r.calls = append(*r.calls, r.name+".done")
}
func (r recorder) Checkpoint([]byte) error {
	*r.calls = append(*r.calls, r.name+".ckpt")
	return r.fail
}

// TestObserversFanOut checks that Observers passes every report to each
// member in order, calls every member even after an error and returns the
// first error.
func TestObserversFanOut(t *testing.T) {
	t.Parallel()
	var calls []string
	e1, e2 := errors.New("first"), errors.New("second")
	obs := Observers{recorder{"a", nil, &calls}, recorder{"b", e1, &calls}, recorder{"c", e2, &calls}}
	obs.LevelStart(0, nil, nil)
	if err := obs.Iteration(&learn.Progress{}); err != e1 {
		t.Errorf("Iteration returned %v, want the first error %v", err, e1)
	}
	obs.Trial(learn.Trial{})
	obs.Scored(learn.PolishScore{})
	obs.LevelDone(learn.LevelReport{})
	if err := obs.Checkpoint(nil); err != e1 {
		t.Errorf("Checkpoint returned %v, want %v", err, e1)
	}
	var want []string
	for _, r := range []string{"start", "iter", "trial", "scored", "done", "ckpt"} {
		for _, n := range []string{"a", "b", "c"} {
			want = append(want, n+"."+r)
		}
	}
	if strings.Join(calls, " ") != strings.Join(want, " ") {
		t.Errorf("calls %v, want %v", calls, want)
	}
}

// TestTableAppends checks that a table written in two runs holds its
// header once and every row, in order.
func TestTableAppends(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.tsv")
	for run := range 2 {
		tab, err := OpenTable(path, "a\tb")
		if err != nil {
			t.Fatal(err)
		}
		tab.Row("%d\t%.17g", run, 0.1)
		if err := tab.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var nilTable *Table
	nilTable.Row("ignored")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw), "a\tb\n0\t0.10000000000000001\n1\t0.10000000000000001\n"; got != want {
		t.Errorf("table = %q, want %q", got, want)
	}
}

// TestTrialAndScoreTables checks the rows of the trial and score tables:
// the level and its bins from LevelStart and every value at full precision.
func TestTrialAndScoreTables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trials, err := NewTrialTable(filepath.Join(dir, "ls.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	trials.LevelStart(1, []int{6, 6, 6}, nil)
	trials.Trial(learn.Trial{Iter: 3, Index: 1, Steepest: true, Step: 0.5, F0: 2, Slope: -1, F: 1.5, Deriv: -0.25})
	trials.Close()
	scores, err := NewScoreTable(filepath.Join(dir, "exact.tsv"), NewClock())
	if err != nil {
		t.Fatal(err)
	}
	scores.Scored(learn.PolishScore{Iter: 4, FFast: 1.25, FExact: 1.5})
	scores.Close()
	for _, tc := range []struct{ file, header, row string }{
		{"ls.tsv", TrialHeader, "1\t6\t3\t1\ttrue\t0.5\t2\t-1\t1.5\t-0.25"},
		{"exact.tsv", ScoreHeader, "4\t"},
	} {
		raw, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 2 || lines[0] != tc.header || !strings.HasPrefix(lines[1], tc.row) {
			t.Errorf("%s = %q, want the header and a row starting %q", tc.file, lines, tc.row)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "exact.tsv"))
	if !strings.HasSuffix(strings.TrimSpace(string(raw)), "\t1.25\t1.5") {
		t.Errorf("exact.tsv row %q does not end with f_fast and f_exact", raw)
	}
}

// TestReadCheckpoint checks the checkpoint file's round trip through
// CheckpointFile and ReadCheckpoint, and the errors of a missing, a
// damaged and a foreign file.
func TestReadCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint.gob")
	if ck, err := ReadCheckpointIfAny(path); ck != nil || err != nil {
		t.Errorf("missing file: ReadCheckpointIfAny = %v, %v, want nil, nil", ck, err)
	}
	if _, err := ReadCheckpoint(path); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("missing file: %v, want ErrNoCheckpoint", err)
	}
	st := &learn.State{Iter: 2, Evals: 3, X: []float64{0, 0.5}, G: []float64{1, -1}, F: 1.5, Losses: []float64{2, 1.5}}
	data, err := learn.EncodeCheckpoint(&learn.Checkpoint{Level: 0, State: st})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckpointFile(path).Checkpoint(data); err != nil {
		t.Fatal(err)
	}
	ck, err := ReadCheckpoint(path)
	if err != nil || ck.State.Iter != 2 || ck.State.F != 1.5 || ck.Level != 0 {
		t.Fatalf("round trip: %+v, %v", ck, err)
	}
	damaged := append([]byte(nil), data...)
	damaged[len(damaged)-1] ^= 1
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"damaged", damaged, "changed or damaged"},
		{"foreign", []byte("not a checkpoint"), "not a checkpoint of this version"},
	} {
		if _, err := DecodeCheckpointFile(tc.name, tc.data); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: %v, want an error naming the file and saying %q", tc.name, err, tc.want)
		}
	}
}

// TestLevelSummaries checks the levels of result.json: every level's
// counts, and polish_from from the polish.
func TestLevelSummaries(t *testing.T) {
	t.Parallel()
	sums, from := levelSummaries([]learn.LevelReport{
		{Level: 0, Dims: []int{3, 3, 3}, Iter: 2, F: 5, Totals: learn.Totals{Sinkhorn: 40}, Elapsed: 2 * time.Second},
		{Level: 1, Dims: []int{6, 6, 6}, Iter: 4, F: 3},
		{Level: 2, Dims: []int{6, 6, 6}, Iter: 3, F: 2.5, Exact: true, From: 4},
	})
	if from != 4 || len(sums) != 3 || sums[0].Dims[0] != 3 || sums[0].Sinkhorn != 40 || sums[0].Seconds != 2 || sums[1].F != 3 || !sums[2].Exact {
		t.Errorf("levels %+v, polish from %d", sums, from)
	}
}

// TestSaveLossAndExp checks loss.npy and loss.png, and that Exp and LogOf
// are inverse.
func TestSaveLossAndExp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := SaveLoss(dir, nil, "nothing"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "loss.npy")); !os.IsNotExist(err) {
		t.Errorf("no losses wrote loss.npy (%v)", err)
	}
	if err := SaveLoss(dir, []float64{3, 2, 1}, "F"); err != nil {
		t.Fatal(err)
	}
	a, err := dataset.ReadNpyFile(filepath.Join(dir, "loss.npy"))
	if err != nil || len(a.Data) != 3 || a.Data[2] != 1 {
		t.Errorf("loss.npy = %v, %v", a, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "loss.png")); err != nil {
		t.Error(err)
	}
}

// TestMetricTitle checks the titles of the metric pictures: a snapshot's
// with F where the losses know it, and the final metric's.
func TestMetricTitle(t *testing.T) {
	t.Parallel()
	losses := []float64{3, 2, 1.5}
	for _, c := range []struct {
		base   string
		losses []float64
		want   string
	}{
		{"metric-0002.npy", losses, "metric at iteration 2 (F = 2)"},
		{"metric-0009.npy", losses, "metric at iteration 9"},
		{"metric.npy", losses, "learned metric (iteration 3, F = 1.5)"},
		{"metric.npy", nil, "learned metric"},
	} {
		if got := MetricTitle(c.base, c.losses); got != c.want {
			t.Errorf("MetricTitle(%q) = %q, want %q", c.base, got, c.want)
		}
	}
}

// TestReadMetric reads a metric from a .npy file and from a checkpoint:
// both give the same θ, and a checkpoint of another size (a coarse level's)
// or with an overflowing point is refused, naming the file.
func TestReadMetric(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g, err := kernel.Cube(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	sp := dataset.Space{Graph: g}
	x := []float64{0, 0.5, -1, 2, 0.25, -0.75, 1, 0, -2, 0.5, 1.5, -0.5, 0, 0, 1, -1, 0.125, 3}
	theta := learn.Exp(nil, x)
	npyPath := filepath.Join(dir, "metric.npy")
	if err := sp.WriteMetric(npyPath, learn.VertexMetric, theta); err != nil {
		t.Fatal(err)
	}
	writeCk := func(name string, x []float64) string {
		data, err := learn.EncodeCheckpoint(&learn.Checkpoint{State: &learn.State{Iter: 1, Evals: 1, X: x, G: make([]float64, len(x)), F: 1, Losses: []float64{1}}})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := CheckpointFile(path).Checkpoint(data); err != nil {
			t.Fatal(err)
		}
		return path
	}
	huge := append([]float64(nil), x...)
	huge[4] = 1000 // e^1000 overflows to +Inf
	for _, tc := range []struct {
		name, path, want string
	}{
		{"npy", npyPath, ""},
		{"checkpoint", writeCk("ok.gob", x), ""},
		{"coarse checkpoint", writeCk("coarse.gob", x[:8]), "8 values, want 18"}, // 2 axes × 3² vertices
		{"overflow", writeCk("huge.gob", huge), "value 4 is +Inf"},
		{"missing checkpoint", filepath.Join(dir, "none.gob"), "no checkpoint"},
	} {
		got, err := ReadMetric(tc.path, sp, learn.VertexMetric)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("%s: %v, want an error naming %s and saying %q", tc.name, err, tc.path, tc.want)
			}
			continue
		}
		if err != nil || !slices.Equal(got, theta) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, theta)
		}
	}
}

// TestBLASAdvice checks that a run notes OpenBLAS's old kernels only
// where its backend factorises on OpenBLAS and there is something to
// suggest.
func TestBLASAdvice(t *testing.T) {
	generic := kernel.BLASInfo{Core: "Prescott", Suggest: "Haswell"}
	onBLAS := kernel.OnBLAS("cholmod") // cgo builds
	for _, tc := range []struct {
		backend string
		b       kernel.BLASInfo
		warn    bool
	}{
		{"cholmod", generic, onBLAS},
		{"auto", generic, onBLAS},
		{"go", generic, onBLAS},
		{"go-purego", generic, false},
		{"dense", generic, false},
		{"cholmod", kernel.BLASInfo{Core: "Haswell"}, false},
		{"nosuch", generic, false},
	} {
		a := blasAdvice(tc.backend, tc.b)
		if (a != "") != tc.warn || tc.warn && !strings.Contains(a, "OPENBLAS_CORETYPE=Haswell") {
			t.Errorf("blasAdvice(%q, %+v) = %q, want a note: %v", tc.backend, tc.b, a, tc.warn)
		}
	}
}
