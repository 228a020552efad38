package runlog

import (
	"cmp"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot"
)

// ColourRun is the record of a colour-metric run (gmlg colorlearn) as its
// params.json holds it: the images, the n³ colour cube, the heat kernel,
// the barycenter model (exact: L Sinkhorn iterations from scratch; fast:
// converged to Tol on coarse levels first) and the optimiser's budget.
// Reading it back gives the model the run's metric was learned with, for
// resuming the run and for interpolating with its metric.
type ColourRun struct {
	Command       string   `json:"command"`
	Version       string   `json:"version"`
	Input         string   `json:"input"`
	Pattern       string   `json:"pattern"`
	Files         []string `json:"files"`
	DataSHA256    string   `json:"data_sha256"`
	Bins          int      `json:"n"`
	N             int      `json:"N"`
	Dim           int      `json:"dim"`
	Alpha         float64  `json:"alpha"`
	DropSaturated bool     `json:"drop_saturated"`
	THeat         float64  `json:"t_heat"`
	KHeat         int      `json:"k_heat"`
	L             int      `json:"L"`
	Loss          string   `json:"loss"`
	LambdaC       float64  `json:"lambda_c"`
	LambdaS       float64  `json:"lambda_s"`
	MaxIter       int      `json:"max_iter"`
	SaveEvery     int      `json:"save_every"`
	Backend       string   `json:"backend"`
	// Threads is the threads the run's evaluations ran on (GOMAXPROCS);
	// the results do not depend on it with CHOLMOD, and with the pure-Go
	// backend only at rounding level.
	Threads int `json:"threads,omitempty"`
	// Mode is "exact" (the reference; empty in the oldest records) or
	// "fast"; Tol, Coarse, CoarseIters, Adjoint, Anderson, Polish and
	// PolishEvery are fast mode's settings. Adjoint and Anderson choose
	// solvers, not the model: a run may resume with others (params.json
	// then records the new ones).
	Mode        string  `json:"mode,omitempty"`
	Tol         float64 `json:"tol,omitempty"`
	Coarse      int     `json:"coarse_levels,omitempty"`
	CoarseIters int     `json:"coarse_iters,omitempty"`
	Adjoint     string  `json:"adjoint,omitempty"`
	Anderson    int     `json:"anderson,omitempty"`
	// Polish is the number of exact-objective iterations that end a fast
	// run (learn.Polish), PolishEvery the spacing of the exact scores of
	// the finest level's iterates that choose their start; both 0 without
	// a polish.
	Polish      int `json:"polish,omitempty"`
	PolishEvery int `json:"polish_every,omitempty"`
}

// ReadColourRun reads the record of a colour run from path (a params.json),
// checking its checksum and that gmlg colorlearn wrote it.
func ReadColourRun(path string) (*ColourRun, error) {
	c := new(ColourRun)
	if err := rundir.ReadChecked(path, c); err != nil {
		return nil, err
	}
	if c.Command != "colorlearn" {
		return nil, fmt.Errorf("%s was not written by gmlg colorlearn (command %q)", path, c.Command)
	}
	return c, nil
}

// RunMode is the run's mode: Mode, or "exact" when the record has none.
func (c *ColourRun) RunMode() string { return cmp.Or(c.Mode, "exact") }

// Fast reports whether the run learns in fast mode.
func (c *ColourRun) Fast() bool { return c.Mode == "fast" }

// Describe records the run's data: the images of col read from the
// folder dir (absolute when it can be made so, so that a resumed run finds
// them from any folder), their checksum and the colour cube's size, with
// the name of the factorisation backend and gmlg's version.
func (c *ColourRun) Describe(dir string, col *dataset.Colour, backend string) error {
	sum, _, err := rundir.Checksum(col.Files)
	if err != nil {
		return err
	}
	c.Files = make([]string, len(col.Files))
	for i, f := range col.Files {
		c.Files[i] = filepath.Base(f)
	}
	c.Input = dir
	if abs, err := filepath.Abs(dir); err == nil {
		c.Input = abs
	}
	c.Command, c.Version, c.DataSHA256 = "colorlearn", rundir.Version(), sum
	c.N, c.Dim, c.Alpha, c.Backend = col.Space.Graph.N(), 3, kernel.GridAlpha(c.Bins), backend
	c.Threads = runtime.GOMAXPROCS(0)
	return nil
}

// CheckFast clears fast mode's settings in exact mode; in fast mode it
// checks them (the options spelt with two dashes in errors) and fills in
// the default polish spacing.
func (c *ColourRun) CheckFast() error {
	if !c.Fast() {
		c.Tol, c.Coarse, c.CoarseIters, c.Adjoint, c.Anderson, c.Polish, c.PolishEvery = 0, 0, 0, "", 0, 0, 0
		return nil
	}
	if err := CheckFastSolvers("--", c.Adjoint, c.Anderson); err != nil {
		return err
	}
	if c.Polish > 0 && c.PolishEvery == 0 {
		c.PolishEvery = learn.DefaultPolishEvery
	}
	for k, m := 0, c.Bins; k < c.Coarse; k++ {
		if m = learn.CoarseSide(m); m < 2 {
			return fmt.Errorf("--coarse %d: halving n = %d that often leaves fewer than 2 bins", c.Coarse, c.Bins)
		}
	}
	return nil
}

// SameModel reports whether o records the same images and the same model
// as c: everything that changes a run's result (the solvers and the
// iteration budget may differ).
func (c *ColourRun) SameModel(o *ColourRun) bool {
	return c.DataSHA256 == o.DataSHA256 && c.Bins == o.Bins && c.THeat == o.THeat && c.KHeat == o.KHeat &&
		c.L == o.L && c.Loss == o.Loss && c.LambdaC == o.LambdaC && c.LambdaS == o.LambdaS &&
		c.DropSaturated == o.DropSaturated && c.RunMode() == o.RunMode() &&
		c.Tol == o.Tol && c.Coarse == o.Coarse && c.CoarseIters == o.CoarseIters &&
		c.Polish == o.Polish && c.PolishEvery == o.PolishEvery
}

// Config returns the exact objective of the run (the model of exact mode,
// and of fast mode's polish and final score) on the kernel heat, whose
// time and steps it sets to the run's.
func (c *ColourRun) Config(heat kernel.HeatOptions) (*learn.Config, error) {
	loss, err := ot.ParseLoss(c.Loss)
	if err != nil {
		return nil, fmt.Errorf("loss: %w", err)
	}
	heat.T, heat.Steps = c.THeat, c.KHeat
	return &learn.Config{Heat: heat, Sinkhorn: ot.Settings{Iterations: c.L}, Loss: loss, LambdaC: c.LambdaC, LambdaS: c.LambdaS}, nil
}

// Objective returns the objective the run minimises: Config, or in fast
// mode the same in tolerance mode with the run's solvers.
func (c *ColourRun) Objective(heat kernel.HeatOptions) (*learn.Config, error) {
	cfg, err := c.Config(heat)
	if err != nil || !c.Fast() {
		return cfg, err
	}
	cfg.Sinkhorn = ot.Settings{Iterations: c.L, Tol: cmp.Or(c.Tol, learn.DefaultTol),
		Gradient: AdjointGradient(c.Adjoint), Anderson: c.Anderson}
	return cfg, nil
}

// ReadMetric reads the run's [3,n³] metric from path: a .npy file, or the
// current point of a checkpoint (ReadMetric).
func (c *ColourRun) ReadMetric(path string) ([]float64, error) {
	n := c.Bins
	return ReadMetric(path, []int{3, n * n * n}, fmt.Sprintf("[3,%d] for n = %d", n*n*n, n))
}

// ColourOverride changes the model of an interpolation with a run's
// metric; every zero value keeps the run's. Iterations alone (without
// Mode) asks for exact mode with that many iterations.
type ColourOverride struct {
	T          float64 // heat time
	Steps      int     // heat steps
	Iterations int     // Sinkhorn iterations L
	Mode       string  // "exact" or "fast"
	Tol        float64 // fast mode's tolerance
}

// ColourModel is the model under which a run's metric interpolates: the
// heat kernel's time and steps, L, and the barycenter model (Fast,
// converged to Tol with Anderson depth Anderson, else L iterations from
// scratch).
type ColourModel struct {
	T          float64
	Steps      int
	Iterations int
	Fast       bool
	Tol        float64
	Anderson   int
	// Overridden reports that the barycenter model (Fast, Tol or
	// Iterations) is not the run's own.
	Overridden bool
}

// Interpolation returns the model of an interpolation with the run's
// metric: the one the metric was learned with, changed by o.
func (c *ColourRun) Interpolation(o ColourOverride) ColourModel {
	m := ColourModel{T: cmp.Or(o.T, c.THeat), Steps: cmp.Or(o.Steps, c.KHeat), Iterations: cmp.Or(o.Iterations, c.L),
		Fast: c.Fast(), Tol: c.Tol, Anderson: c.Anderson}
	switch {
	case o.Mode != "":
		m.Fast, m.Overridden = o.Mode == "fast", true
	case o.Iterations > 0:
		m.Fast, m.Overridden = false, true
	}
	if o.Tol > 0 {
		m.Tol, m.Overridden = o.Tol, true
	}
	return m
}

// Line is the model line (ModelLine) of m, for a run whose record is
// the file path.
func (m ColourModel) Line(path string) string {
	from := "from " + path
	if m.Overridden {
		from = "flags"
	}
	return ModelLine(m.Fast, m.Tol, m.Iterations, from)
}
