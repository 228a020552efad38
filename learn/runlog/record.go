package runlog

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot/color"
)

// ParamsName is the record file of a run folder.
const ParamsName = "params.json"

// Record is a learning run as its params.json holds it: everything the run
// depends on, so that it can be resumed, redrawn, and its metric used
// under its own model. Read back, it is the same value (enums are text).
type Record struct {
	Command   string     `json:"command"`
	Version   string     `json:"version"`
	Data      Data       `json:"data"`
	Model     Model      `json:"model"`
	Optimizer Optimizer  `json:"optimizer"`
	Kernel    KernelInfo `json:"kernel"`
	Resumed   int        `json:"resumed"`
}

// ReadRecord reads the params.json of the learning run in dir into r,
// whose values stay where the file has no member, checking its checksum
// and that gmlg learn wrote it.
func ReadRecord(dir string, r *Record) error {
	path := filepath.Join(dir, ParamsName)
	if err := rundir.ReadChecked(path, r); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s is not a run folder: %w", dir, err)
		}
		return err
	}
	if r.Command != "learn" {
		return fmt.Errorf("%s was not written by gmlg learn", path)
	}
	return nil
}

// The kinds of data a run learns from (Data.Kind).
const (
	// Frames are histograms on a grid or a graph: .npy arrays or grey
	// images (dataset.LoadSpace).
	Frames = "frames"
	// Colour are images read as RGB histograms on the colour cube of
	// Bins³ bins (dataset.ReadColour).
	Colour = "colour"
)

// MinColourImages is the fewest images a colour run learns from: the two
// poles and one to fit.
const MinColourImages = 3

// Data describes a run's input: the folder, how it was read, the checksums
// of its files and the grid or graph its histograms live on.
type Data struct {
	Kind    string  `json:"kind"` // Frames or Colour
	Dir     string  `json:"dir"`
	Pattern string  `json:"pattern"`
	Floor   float64 `json:"floor"`
	// Bins and DropSaturated are how colour images become histograms
	// (color.HistOptions); 0 and false for frames.
	Bins          int              `json:"bins,omitempty"`
	DropSaturated bool             `json:"drop_saturated,omitempty"`
	Checksum      string           `json:"checksum"`
	Files         []rundir.FileSum `json:"files"`
	Dim           int              `json:"dim"` // grid dimension; 0 for a graph folder
	Side          int              `json:"n"`   // grid side; 0 for a graph folder
	Vertices      int              `json:"N"`
	Edges         int              `json:"edges,omitempty"` // edges of a graph folder (edges.npy)
	Sequences     []int            `json:"frames_per_sequence"`
	// Gaps lists the frame numbers missing inside each sequence
	// ("sequence 00: frames 03, 04 missing"); see dataset.Set.Gaps.
	Gaps []string `json:"gaps,omitempty"`
}

// Source is a run's data once read: the histograms, grouped by sequence
// (the first and last of each are its poles), and the space they live on.
type Source struct {
	Space dataset.Space
	Seqs  []learn.Sequence
	// Set is the frames read from a folder of frames (nil for colour
	// images), for the warnings about colour images and gaps.
	Set *dataset.Set
}

// Observed returns the histograms of every sequence.
func (s *Source) Observed() [][][]float64 {
	obs := make([][][]float64, len(s.Seqs))
	for q, seq := range s.Seqs {
		obs[q] = seq.Frames
	}
	return obs
}

// Check readies the model m for the objective on s: on a graph it sets
// m.Metric to edge (dataset.Space.MetricKind), and it checks that the
// heat time suits the grid or graph (an OptionError).
func (s *Source) Check(m *Model) error {
	m.Metric = s.Space.MetricKind(m.MetricKind()).String()
	if err := s.Space.Bound().CheckTime("--t", m.T, m.Steps); err != nil {
		return &OptionError{err}
	}
	return nil
}

// checkSize checks that the objective of m (nil: none) on the grid or
// graph of size with sequences of counts frames fits limits.Memory.
func checkSize(size limits.Objective, counts []int, m *Model, hint string) error {
	if m == nil {
		return nil
	}
	size.Iterations, size.Steps, size.Fast, size.Anderson, size.Store = m.SinkhornIters, m.Steps, m.Mode == "fast", m.Anderson, m.Store
	size.Interior, size.Endpoints = limits.Frames(counts...)
	return size.Check("the objective", hint)
}

// Objective returns the objective of s under m (which Check readied).
func (s *Source) Objective(m *Model) (*learn.Objective, error) {
	obj, err := learn.NewObjective(s.Space.Graph, s.Seqs, m.Config())
	if err != nil {
		return nil, fmt.Errorf("building the objective: %w", kernel.ExplainNotPosDef(err, "the uniform metric", "--t, --steps"))
	}
	return obj, nil
}

// Read reads the data d describes, vetting every size (and the objective
// of m, when not nil) against limits.Memory before it is allocated, and
// records in d what the data are: their files' checksums, the grid or
// graph, the vertices and the frames per sequence.
func (d *Data) Read(m *Model) (*Source, error) {
	var src Source
	var files []string
	switch d.Kind {
	case Frames:
		sp, set, err := dataset.LoadSpace(d.Dir, &dataset.Options{Memory: limits.Memory, Pattern: d.Pattern, Floor: d.Floor})
		if err != nil {
			return nil, err
		}
		src = Source{Space: sp, Seqs: set.LearnSequences(), Set: set}
		files, d.Gaps = set.Files(), set.Gaps
		if sp.IsGraph() {
			files = append(files, filepath.Join(d.Dir, dataset.EdgesFile))
		}
		if err := checkSize(limits.SpaceOf(sp), src.counts(), m, "use fewer or smaller frames, a smaller --sinkhorn-iters, or --mode fast"); err != nil {
			return nil, err
		}
	case Colour:
		var err error
		if files, err = dataset.ListImages(d.Dir, d.Pattern); err != nil {
			return nil, err
		}
		if len(files) < MinColourImages {
			return nil, fmt.Errorf("%s: need at least %d images (first, last and one to fit), found %d", d.Dir, MinColourImages, len(files))
		}
		hint := "pass a smaller --bins or --sinkhorn-iters, use fewer images, or --mode fast"
		if err := checkSize(limits.Objective{Dim: 3, Side: d.Bins}, []int{len(files)}, m, hint); err != nil {
			return nil, err
		}
		col, err := dataset.ReadColour(files, &color.HistOptions{Bins: d.Bins, DropSaturated: d.DropSaturated},
			&dataset.ImageOptions{Memory: limits.Memory})
		if err != nil {
			return nil, err
		}
		src = Source{Space: col.Space, Seqs: col.Sequences()}
	default:
		return nil, fmt.Errorf("unknown kind of data %q (want %s or %s)", d.Kind, Frames, Colour)
	}
	sum, fs, err := rundir.Checksum(files)
	if err != nil {
		return nil, err
	}
	d.Checksum, d.Files, d.Vertices = sum, fs, src.Space.Graph.N()
	d.Dim, d.Side, d.Edges = 0, 0, 0
	if src.Space.IsGraph() {
		d.Edges = src.Space.Graph.NumEdges()
	} else {
		d.Dim, d.Side = src.Space.GridSize()
	}
	d.Sequences = src.counts()
	return &src, nil
}

// counts are the frames of every sequence.
func (s *Source) counts() []int {
	var n []int
	for _, q := range s.Seqs {
		n = append(n, len(q.Frames))
	}
	return n
}

// Space returns the grid that d describes, or the graph of its folder
// (checked against the recorded number of edges), reading no more than
// memory allows; a colour run's is its colour cube.
func (d *Data) Space(memory dataset.MemoryCheck) (dataset.Space, error) {
	if d.Edges > 0 {
		sp, err := dataset.ReadGraphFolder(d.Dir, memory)
		if err == nil && sp.Graph.NumEdges() != d.Edges {
			err = fmt.Errorf("%s has %d edges, the run learned on %d", filepath.Join(d.Dir, dataset.EdgesFile), sp.Graph.NumEdges(), d.Edges)
		}
		if err != nil {
			return dataset.Space{}, fmt.Errorf("the run's graph: %w", err)
		}
		return sp, nil
	}
	g, err := kernel.Cube(d.Dim, d.Side)
	if err != nil {
		return dataset.Space{}, fmt.Errorf("the run's grid (%d-D, side %d): %w", d.Dim, d.Side, err)
	}
	return dataset.Space{Graph: g, Colour: d.Kind == Colour}, nil
}

// Optimizer is a run's L-BFGS settings, its starting point and its levels,
// and how often it saves; FTol and GTol 0 disable their test.
type Optimizer struct {
	MaxIter       int     `json:"max_iter"`
	History       int     `json:"history"`
	MaxLinesearch int     `json:"max_linesearch"`
	FTol          float64 `json:"ftol"`
	GTol          float64 `json:"gtol"`
	SaveEvery     int     `json:"save_every"`
	Init          string  `json:"init"`
	// Coarse > 0 (fast mode) starts the run from a metric learned coarse
	// to fine on the grid halved Coarse times, CoarseIters iterations per
	// coarse level (learn.RunSettings.Coarse), prolonged to the data's grid.
	Coarse      int `json:"coarse"`
	CoarseIters int `json:"coarse_iters"`
	// WarmSteps > 0 (fast mode) learns the coarse levels, and then
	// WarmIters iterations on the data's grid, with a heat kernel of
	// WarmSteps sub-steps in place of the model's Steps (Levels).
	WarmSteps int `json:"warm_steps"`
	WarmIters int `json:"warm_iters"`
	// Polish > 0 (fast mode) ends the run with Polish L-BFGS iterations on
	// the exact objective, from the finest-level iterate that scores best
	// on it, scored every PolishEvery iterations (learn.Polish).
	Polish      int `json:"polish"`
	PolishEvery int `json:"polish_every"`
}

// DefaultOptimizer returns scipy's L-BFGS-B defaults as the reference uses
// them (500 iterations, 20 pairs, 20 evaluations per line search, factr
// 1e7 and pgtol 1e-5), saving at every iteration from the uniform metric,
// with learn.DefaultCoarseIters per coarse level when there are some.
func DefaultOptimizer() Optimizer {
	return Optimizer{MaxIter: 500, History: 20, MaxLinesearch: 20, FTol: 1e7 * 2.220446049250313e-16, GTol: 1e-5,
		SaveEvery: 1, Init: "ones", CoarseIters: learn.DefaultCoarseIters}
}

// Check validates the settings for a run of the model m (errors name the
// options as gmlg learn spells them), clears CoarseIters without Coarse
// and fills in the default PolishEvery with Polish.
func (o *Optimizer) Check(m *Model) error {
	mode := m.Mode
	switch {
	case o.MaxIter < 1:
		return fmt.Errorf("--max-iter must be at least 1, got %d", o.MaxIter)
	case o.SaveEvery < 1:
		return fmt.Errorf("--save-every must be at least 1, got %d", o.SaveEvery)
	case o.History < 1:
		return fmt.Errorf("--history must be at least 1, got %d", o.History)
	case o.MaxLinesearch < 1:
		return fmt.Errorf("--max-linesearch must be at least 1, got %d", o.MaxLinesearch)
	case !(o.FTol >= 0) || math.IsInf(o.FTol, 0):
		return fmt.Errorf("--ftol must be a finite number ≥ 0, got %g", o.FTol)
	case !(o.GTol >= 0) || math.IsInf(o.GTol, 0):
		return fmt.Errorf("--gtol must be a finite number ≥ 0, got %g", o.GTol)
	case o.Init == "":
		return fmt.Errorf("--init must be ones or a .npy file")
	case o.Coarse < 0:
		return fmt.Errorf("--coarse must be ≥ 0, got %d", o.Coarse)
	case o.Coarse > 0 && o.CoarseIters < 1:
		return fmt.Errorf("--coarse-iters must be at least 1, got %d", o.CoarseIters)
	case o.Coarse > 0 && o.Init != "ones":
		return fmt.Errorf("--coarse and --init both set the starting metric; give one of them")
	case o.Coarse > 0 && mode != "fast":
		return fmt.Errorf("--coarse needs --mode fast (exact mode is the reference's model on the data's grid alone)")
	case o.WarmSteps < 0 || o.WarmIters < 0:
		return fmt.Errorf("--warm-steps and --warm-iters must be ≥ 0, got %d and %d", o.WarmSteps, o.WarmIters)
	case o.WarmSteps > 0 && mode != "fast":
		return fmt.Errorf("--warm-steps needs --mode fast (exact mode is the reference's model throughout)")
	case o.WarmSteps > 0 && o.WarmSteps >= m.Steps:
		return fmt.Errorf("--warm-steps %d must be below --steps %d (a cheaper heat kernel)", o.WarmSteps, m.Steps)
	case o.WarmSteps == 0 && o.WarmIters > 0:
		return fmt.Errorf("--warm-iters applies with --warm-steps only (the heat sub-steps of those iterations)")
	case o.WarmSteps > 0 && o.Coarse == 0 && o.WarmIters == 0:
		return fmt.Errorf("--warm-steps needs --coarse or --warm-iters (the levels it applies to)")
	case o.Polish < 0 || o.PolishEvery < 0:
		return fmt.Errorf("--polish and --polish-every must be ≥ 0, got %d and %d", o.Polish, o.PolishEvery)
	case o.Polish > 0 && mode != "fast":
		return fmt.Errorf("--polish applies to fast mode only (exact mode minimises the exact objective throughout)")
	case o.Polish == 0 && o.PolishEvery != 0:
		return fmt.Errorf("--polish-every applies with --polish only (it spaces the scores that choose the polish's start)")
	}
	if o.Coarse == 0 {
		o.CoarseIters = 0
	}
	if o.Polish > 0 && o.PolishEvery == 0 {
		o.PolishEvery = learn.DefaultPolishEvery
	}
	return nil
}

// Levels returns the warm-up levels of the run (learn.RunSettings.Coarse):
// the coarse levels, then WarmIters iterations on the data's grid, all
// with WarmSteps heat sub-steps (0: the model's).
func (o *Optimizer) Levels() []learn.Level {
	levels := learn.CoarseSchedule(o.Coarse, o.CoarseIters)
	for i := range levels {
		levels[i].Steps = o.WarmSteps
	}
	if o.WarmIters > 0 {
		levels = append(levels, learn.Level{Steps: o.WarmSteps, MaxIter: o.WarmIters})
	}
	return levels
}

// Settings returns learn's optimiser settings for o, reporting to obs
// (a disabled tolerance, 0 here, is negative there).
func (o *Optimizer) Settings(obs learn.Observer) learn.Settings {
	return learn.Settings{MaxIter: o.MaxIter, History: o.History, MaxLinesearch: o.MaxLinesearch,
		FTol: cmp.Or(o.FTol, -1), GTol: cmp.Or(o.GTol, -1), Observer: obs}
}

// KernelInfo records the factorisation an objective used, the Laplacian's
// scale, the number of metric parameters and the threads (GOMAXPROCS) the
// evaluations ran on, on which the results do not depend with CHOLMOD,
// and with the pure-Go backend only at rounding level.
type KernelInfo struct {
	Backend  string  `json:"backend"`
	Ordering string  `json:"ordering"`
	NNZL     int     `json:"nnz_l"`
	Alpha    float64 `json:"alpha"`
	Params   int     `json:"metric_params"`
	Threads  int     `json:"threads"`
	// Kernels names the backend's solve kernels where its results depend
	// on them (factor.Info.Kernels: the engine's "avx512-fma", "avx2-fma"
	// or "scalar"); omitted otherwise.
	Kernels string `json:"solve_kernels,omitempty"`
	// BLAS names OpenBLAS's kernels (kernel.BLAS) where the backend
	// factorises on them, whose choice moves the factor's last bits;
	// omitted otherwise.
	BLAS string `json:"blas,omitempty"`
}

// NewKernelInfo returns the record of obj's kernel, with the Laplacian's
// scale alpha, as it runs now.
func NewKernelInfo(obj *learn.Objective, alpha float64) KernelInfo {
	info := obj.Heat().Info()
	k := KernelInfo{Backend: info.Backend, Ordering: info.Ordering, NNZL: info.NNZL, Alpha: alpha, Params: obj.Dim(),
		Threads: runtime.GOMAXPROCS(0), Kernels: info.Kernels}
	if kernel.OnBLAS(info.Backend) {
		k.BLAS = kernel.BLAS().Core
	}
	return k
}

// Identity is the identity of the learning run r records
// (learn.RunSettings.Run): the canonical encoding of every setting that
// makes its result and of its data's checksums, without what a resumed run
// may change (ResumeFlags) or the run adds as it goes (version, kernel,
// resume count).
func (r Record) Identity() ([]byte, error) {
	r.Version, r.Resumed, r.Kernel = "", 0, KernelInfo{}
	r.Optimizer.MaxIter = 0
	r.Model.Threads, r.Model.Adjoint, r.Model.Anderson, r.Model.Store = 0, "", 0, false
	return rundir.MarshalSorted(r)
}

// ResumeFlags are the options that a resumed run may be given: they change
// how the run works or how long, not the model it learns (Identity leaves
// them out).
var ResumeFlags = []string{"max-iter", "threads", "progress", "store", "adjoint", "anderson"}

// CheckRun returns nil when the checkpoint's identity got (learn.Checkpoint's
// Run) is want, the identity of the run in dir; else an error naming the
// checkpoint file and the settings that differ.
func CheckRun(path string, got, want []byte) error {
	if string(got) == string(want) {
		return nil
	}
	var a, b map[string]any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil {
		return fmt.Errorf("%s belongs to another run (it records no settings gmlg can read); start the run again with --force", path)
	}
	vals := map[string][2]string{}
	flatten(vals, 0, "", a)
	flatten(vals, 1, "", b)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		if v := vals[k]; v[0] != v[1] {
			diffs = append(diffs, fmt.Sprintf("%s is %s there and %s in params.json", k, cmp.Or(v[0], "absent"), cmp.Or(v[1], "absent")))
		}
	}
	if len(diffs) > 6 {
		diffs = append(diffs[:6], fmt.Sprintf("and %d more", len(diffs)-6))
	}
	return fmt.Errorf("%s belongs to another run: %s; it cannot continue this one", path, strings.Join(diffs, "; "))
}

// flatten sets out[path][side] to the JSON text of every scalar of v, its
// path the object keys and array indices that lead to it, joined by dots.
func flatten(out map[string][2]string, side int, path string, v any) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			flatten(out, side, join(k), e)
		}
	case []any:
		for i, e := range v {
			flatten(out, side, join(fmt.Sprint(i)), e)
		}
	default:
		raw, _ := json.Marshal(v)
		e := out[path]
		e[side] = string(raw)
		out[path] = e
	}
}

// ResultName is the file of a finished run's Result.
const ResultName = "result.json"

// Result is the JSON record of a finished run: its status and counts, the
// objective's terms at the final point, the gradient norm, every level's
// report and the run's wall and CPU time.
type Result struct {
	Status      string      `json:"status"`
	Iterations  int         `json:"iterations"`
	Evaluations int         `json:"evaluations"`
	F           float64     `json:"F"`
	Data        float64     `json:"data_term"`
	Regularizer float64     `json:"regularizer"`
	PerFrame    [][]float64 `json:"loss_per_frame"`
	GradNorm    float64     `json:"grad_norm"`
	// FExact is, in fast mode, the exact objective at the final metric:
	// the number to compare with an exact-mode run (F is the fast one, or
	// the exact one after a polish).
	FExact *float64      `json:"f_exact,omitempty"`
	Fast   *learn.Totals `json:"fast,omitempty"` // tolerance mode's work
	// TruthCorrelation correlates the learned edge weights with the true
	// metric's, for data made by gmlg synth; TruthCorrelationMass, on a
	// graph, over the edges that carry mass in the frames (those the data
	// determine).
	TruthCorrelation     *float64 `json:"truth_correlation,omitempty"`
	TruthCorrelationMass *float64 `json:"truth_correlation_mass,omitempty"`
	// Levels reports every level of this invocation, coarsest first, the
	// polish last; PolishFrom is the finest-level iteration the polish
	// started from (0 without one, or when it was resumed).
	Levels     []LevelSummary `json:"levels"`
	PolishFrom int            `json:"polish_from,omitempty"`
	// Seconds and CPUSeconds are this invocation's wall and CPU time.
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// LevelSummary reports one level of a run (learn.LevelReport).
type LevelSummary struct {
	Dims         []int   `json:"grid,omitempty"`
	Steps        int     `json:"steps"` // heat sub-steps
	Iter         int     `json:"iterations"`
	Evals        int     `json:"evals"`
	F            float64 `json:"f"`
	Status       string  `json:"status"`
	Sinkhorn     int     `json:"sinkhorn_iters"`
	Adjoint      int     `json:"adjoint_iters"`
	NotConverged int     `json:"not_converged"`
	Tightened    int     `json:"tightened"` // tolerance ÷10 after a failed line search
	Seconds      float64 `json:"seconds"`
	// Exact marks the polish, whose F is the exact objective.
	Exact bool `json:"exact,omitempty"`
}

// NewResult returns the record of res, whose last objective obj was last
// evaluated at the final point, after the time clock measured.
func NewResult(res *learn.RunResult, obj *learn.Objective, clock *Clock) *Result {
	st, terms := res.State, obj.LastTerms()
	gn := 0.0
	for _, v := range st.G {
		gn += v * v
	}
	r := &Result{Status: res.Status.String(), Iterations: st.Iter, Evaluations: st.Evals, F: st.F,
		Data: terms.Data, Regularizer: terms.Regularizer, PerFrame: terms.PerFrame, GradNorm: math.Sqrt(gn),
		Seconds: clock.Elapsed().Seconds(), CPUSeconds: clock.CPU().Seconds()}
	if !obj.Exact() {
		tot := obj.Totals()
		r.Fast = &tot
	}
	r.Levels, r.PolishFrom = levelSummaries(res.Levels)
	return r
}

// levelSummaries returns the summaries of the levels' reports, and the
// iteration the polish started from (0 without one).
func levelSummaries(levels []learn.LevelReport) (sums []LevelSummary, polishFrom int) {
	for _, l := range levels {
		if l.Exact {
			polishFrom = l.From
		}
		sums = append(sums, LevelSummary{Dims: l.Dims, Steps: l.Steps, Iter: l.Iter, Evals: l.Evals, F: l.F,
			Status: l.Status.String(), Sinkhorn: l.Totals.Sinkhorn, Adjoint: l.Totals.Adjoint,
			NotConverged: l.Totals.NotConverged, Tightened: l.Tightened, Seconds: l.Elapsed.Seconds(), Exact: l.Exact})
	}
	return sums, polishFrom
}
