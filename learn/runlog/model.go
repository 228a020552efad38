package runlog

import (
	"cmp"
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot"
)

// Model is the forward model and the objective of a run as its params.json
// records them, in words and numbers (learn.Config is the same typed): the
// heat kernel, the barycenter model (exact: L Sinkhorn iterations from
// scratch; fast: converged to Tol), the loss and the regularisers.
type Model struct {
	T              float64 `json:"t"`
	Steps          int     `json:"steps"`
	Scheme         string  `json:"scheme"`
	SinkhornIters  int     `json:"sinkhorn_iters"`
	Loss           string  `json:"loss"`
	Metric         string  `json:"metric"`
	LambdaC        float64 `json:"lambda_c"`
	LambdaS        float64 `json:"lambda_s"`
	Smooth         string  `json:"smooth"`
	RegularizeOnce bool    `json:"regularize_once"`
	SkipEndpoints  bool    `json:"skip_endpoints"`
	Backend        string  `json:"backend"`
	Ordering       string  `json:"ordering"`
	Threads        int     `json:"threads"`
	Mode           string  `json:"mode"`
	Tol            float64 `json:"tol"`
	Adjoint        string  `json:"adjoint,omitempty"`  // fast mode: gmres or fixed-point
	Anderson       int     `json:"anderson,omitempty"` // fast mode: Anderson depth of the Sinkhorn iterations (0 = off)
	// Store keeps every heat sub-step of an exact-mode evaluation for its
	// reverse pass (kernel.Store) instead of recomputing them: fewer
	// solves, more memory, the same result.
	Store bool `json:"store,omitempty"`
}

// DefaultModel returns the reference's model (docs/method.md, "Defaults
// and paper presets"), with fast mode's solvers GMRES and Anderson depth 5.
func DefaultModel() Model {
	return Model{
		T: 1e-2, Steps: 20, Scheme: "backward-euler", SinkhornIters: 50,
		Loss: "l2", Metric: "vertex", LambdaC: 0, LambdaS: 3, Smooth: "norm",
		Backend: "auto", Ordering: "default", Mode: "exact",
		Adjoint: "gmres", Anderson: 5,
	}
}

// CheckKernel validates the kernel's settings; errors name the options
// as the gmlg command spells them (--t, --steps, …).
func (m *Model) CheckKernel() error {
	switch {
	case !(m.T > 0) || math.IsInf(m.T, 0):
		return fmt.Errorf("--t must be a positive finite number, got %g", m.T)
	case m.Steps < 1:
		return fmt.Errorf("--steps must be at least 1, got %d", m.Steps)
	case m.SinkhornIters < 1:
		return fmt.Errorf("--sinkhorn-iters must be at least 1, got %d", m.SinkhornIters)
	}
	if _, err := kernel.ParseScheme(m.Scheme); err != nil {
		return fmt.Errorf("--scheme: %v", err)
	}
	if _, err := kernel.Backend(m.Backend); err != nil {
		return fmt.Errorf("--backend: %v", err)
	}
	if _, err := factor.ParseOrdering(m.Ordering); err != nil {
		return fmt.Errorf("--ordering: unknown ordering %q (want default, natural, amd or nd)", m.Ordering)
	}
	return nil
}

// Check validates every setting (CheckKernel, then the objective's).
func (m *Model) Check() error {
	if err := m.CheckKernel(); err != nil {
		return err
	}
	names := []string{"--lambda-c", "--lambda-s"}
	for i, v := range []float64{m.LambdaC, m.LambdaS} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s must be a finite number ≥ 0, got %g", names[i], v)
		}
	}
	if _, err := ot.ParseLoss(m.Loss); err != nil {
		return fmt.Errorf("--loss: unknown loss %q (want l2, l1 or kl)", m.Loss)
	}
	if _, err := learn.ParseMetricKind(m.Metric); err != nil {
		return fmt.Errorf("--metric: unknown parameterisation %q (want vertex or edge)", m.Metric)
	}
	if _, err := learn.ParseSmoothness(m.Smooth); err != nil {
		return fmt.Errorf("--smooth: unknown form %q (want norm or squared)", m.Smooth)
	}
	if m.Mode != "" && m.Mode != "exact" && m.Mode != "fast" {
		return fmt.Errorf("--mode: unknown mode %q (want exact or fast)", m.Mode)
	}
	if !(m.Tol >= 0) || math.IsInf(m.Tol, 0) {
		return fmt.Errorf("--tol must be a finite number ≥ 0, got %g", m.Tol)
	}
	if m.Mode == "fast" && m.Store {
		return fmt.Errorf("--store applies to exact mode only (fast mode's kernel applications are not differentiated one by one)")
	}
	if m.Adjoint != "fixed-point" && m.Adjoint != "gmres" {
		return fmt.Errorf("--adjoint: unknown solver %q (want fixed-point or gmres)", m.Adjoint)
	}
	if m.Anderson < 0 {
		return fmt.Errorf("--anderson %d: want a depth ≥ 0", m.Anderson)
	}
	return nil
}

// HeatOptions returns the kernel's options (Check must have succeeded).
func (m *Model) HeatOptions() kernel.HeatOptions {
	scheme, _ := kernel.ParseScheme(m.Scheme)
	backend, _ := kernel.Backend(m.Backend)
	ord, _ := factor.ParseOrdering(m.Ordering)
	memory := kernel.Recompute
	if m.Store {
		memory = kernel.Store
	}
	return kernel.HeatOptions{T: m.T, Steps: m.Steps, Scheme: scheme, Backend: backend, Ordering: ord, Memory: memory,
		Threads: m.Threads, Serial: m.Threads == 1}
}

// FastSinkhorn is fast mode's Sinkhorn settings: converged to Tol (0:
// learn.DefaultTol) and warm-started, SinkhornIters (at least 1000)
// bounding one solve, with the implicit gradient of the Adjoint solver.
func (m *Model) FastSinkhorn() ot.Settings {
	grad := ot.ImplicitFixedPoint
	if m.Adjoint == "gmres" {
		grad = ot.ImplicitGMRES
	}
	return ot.Settings{Tol: cmp.Or(m.Tol, learn.DefaultTol), MaxIterations: max(m.SinkhornIters, 1000),
		Gradient: grad, Anderson: m.Anderson}
}

// Config returns the objective's configuration (Check must have
// succeeded): exact mode with L = SinkhornIters, or tolerance mode
// (FastSinkhorn) in fast mode.
func (m *Model) Config() *learn.Config {
	loss, _ := ot.ParseLoss(m.Loss)
	smooth, _ := learn.ParseSmoothness(m.Smooth)
	sinkhorn := ot.Settings{Iterations: m.SinkhornIters}
	if m.Mode == "fast" {
		sinkhorn = m.FastSinkhorn()
	}
	return &learn.Config{
		Heat: m.HeatOptions(), Sinkhorn: sinkhorn, Loss: loss, Metric: m.MetricKind(),
		LambdaC: m.LambdaC, LambdaS: m.LambdaS, Smooth: smooth, RegularizeOnce: m.RegularizeOnce,
		SkipEndpoints: m.SkipEndpoints,
	}
}

// MetricKind returns the parsed parameterisation (Check must have
// succeeded).
func (m *Model) MetricKind() learn.MetricKind {
	k, _ := learn.ParseMetricKind(m.Metric)
	return k
}

// Line is the one line that names the barycenter model of an
// interpolation or an evaluation, fast (with its tolerance) or exact (with
// L), and where it came from, source: a metric is never silently used
// under another model than the one it was learned with.
func (m *Model) Line(source string) string {
	if m.Mode == "fast" {
		return fmt.Sprintf("model: fast, tol %g (%s)", cmp.Or(m.Tol, learn.DefaultTol), source)
	}
	return fmt.Sprintf("model: exact, L=%d (%s)", m.SinkhornIters, source)
}
