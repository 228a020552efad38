package learn

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// Accepter is implemented by a Function that wants to know the accepted
// iterates: Minimize calls Accept(x, f) after evaluating the starting point
// and after every accepted iteration, with the point and value that the
// function's LAST evaluation computed (the optimiser has just accepted it),
// before the Settings.Callback.
type Accepter interface {
	Accept(x []float64, f float64)
}

// FastOptions configures a FastObjective. The zero value means the
// defaults of ot.FastSettings, warm-starting every evaluation from the
// last accepted point.
type FastOptions struct {
	// Sinkhorn configures the converged, warm-started barycenters (marginal
	// tolerance, iteration bounds, adjoint tolerance; see ot.FastSettings).
	Sinkhorn ot.FastSettings
	// LooseTol, when positive, makes the tolerances adaptive: evaluations
	// start with marginal and adjoint tolerance LooseTol, and after each
	// accepted point both become LooseTol·‖g_k‖∞/‖g₀‖∞ (g₀ the gradient
	// at the starting point, g_k at the accepted one), clamped to
	// [Sinkhorn.Tol, LooseTol]. A line search sees one tolerance
	// throughout. 0 keeps Sinkhorn.Tol fixed.
	LooseTol float64
	// Uncorrected returns the objective at the last Sinkhorn iterate
	// instead of its corrected value. By default an evaluation with a
	// gradient adds zᵀ·(T̃(b) − b) (ot.FastStats.Correction: the adjoint
	// vector of the implicit gradient times the last iteration's
	// increment), the first-order term of the difference between the
	// converged objective and its value at the unconverged scalings, which
	// leaves an error of second order in the marginal violation. On the
	// package ot test cases (ot.TestFastCorrection) the error fell to
	// 0.004–0.14 of itself at tolerance 1e-3 and to 2e-4–0.009 at 1e-4;
	// the value then barely depends on the warm start's path, which is
	// what the line search needs. Evaluations without a gradient (no
	// adjoint vector) are never corrected. Set Uncorrected to get the
	// value at the scalings themselves, as an uncorrected Sinkhorn solver
	// reports it, or to go on where the correction is not finite (Eval's
	// error says so).
	Uncorrected bool
	// Tighten bounds how often Minimize divides the tolerances by 10
	// and continues when the line search fails (see Tightener) (on a plateau the
	// objective's tolerance-level noise can defeat it). 0 means
	// DefaultTighten; a negative value disables it.
	Tighten int
}

// DefaultTighten is FastOptions.Tighten's default: three tightenings take
// colorlearn's default tolerance 1e-4 to 1e-7; the runs measured needed one
// (seldovia2 16³) and two (TestMinimizeTighten's toy).
const DefaultTighten = 3

// FastTotals accumulates a FastObjective's work since it was built.
type FastTotals struct {
	// Evals counts evaluations, Gradients those with a gradient.
	Evals, Gradients int
	// Sinkhorn and Adjoint count Sinkhorn and adjoint iterations (each two
	// N×C kernel applications).
	Sinkhorn, Adjoint int
	// NotConverged counts forward or adjoint solves that stopped at their
	// iteration bound before reaching the tolerance.
	NotConverged int
}

// FastObjective is the objective F of Objective ("fast mode")
// with one difference: every reconstruction is the CONVERGED Sinkhorn
// barycenter (iterated to a marginal tolerance, ot.FastInterpolator)
// instead of the barycenter after a fixed number L of iterations, and its
// gradient is the implicit gradient of that fixed point. Evaluations are
// warm-started from the scalings (and adjoint vector) of the last accepted
// point, never from those of a rejected line-search trial: from the
// accepted point the objective's tolerance-level error varies smoothly
// along a line search, so a trial close to the point gives nearly its
// value, whereas from the previous trial it depends on the path the trials
// took. The optimiser tells it which points it accepted through Accepter.
//
// An evaluation with a gradient returns F corrected to first order for the
// unconverged scalings (FastOptions.Uncorrected): its error is then of
// second order in the marginal tolerance, so it hardly depends on where the
// warm start came from, and the line searches of Minimize see the
// function rather than that noise.
//
// F is therefore not the function of exact mode: the two agree as L → ∞.
// Evaluate a metric learnt in fast mode with an Objective to compare it
// with exact mode. A FastObjective implements Function (and Accepter) so
// that Minimize drives it unchanged; it owns a factorised heat kernel and
// must be closed; it is not safe for concurrent use.
type FastObjective struct {
	o         *Objective // model, data, regulariser, buffers (its own Interpolator is unused)
	cfg       Config
	opt       FastOptions
	fi        *ot.FastInterpolator
	accepted  ot.WarmStart
	hasAcc    bool
	totals    FastTotals
	gmax      float64 // ‖∇F‖∞ of the last evaluation with a gradient
	gmax0     float64 // that of the first accepted point (adaptive tolerance)
	tightened int     // tolerance tightenings so far (Tighten)
}

// NewFastObjective builds the fast-mode objective for sequences observed on
// graph g with the model cfg (cfg.Iterations is ignored) and the fast
// options opt (nil means defaults).
func NewFastObjective(g *kernel.Graph, seqs []Sequence, cfg *Config, opt *FastOptions) (*FastObjective, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c.Iterations = 1 // the embedded Objective's Interpolator is not used: keep it small
	o, err := NewObjective(g, seqs, &c)
	if err != nil {
		return nil, err
	}
	f := &FastObjective{o: o, cfg: o.cfg}
	if cfg != nil {
		f.cfg.Iterations = cfg.Iterations
	}
	if opt != nil {
		f.opt = *opt
	}
	osq := make([]ot.Sequence, len(o.obs))
	for s, frames := range o.obs {
		var times []float64
		if seqs[s].Times != nil {
			times = seqs[s].Times
		}
		osq[s] = ot.Sequence{Source: frames[0], Target: frames[len(frames)-1], Times: times, Frames: len(frames)}
	}
	if f.fi, err = ot.NewFastInterpolator(o.heat, osq, &f.opt.Sinkhorn); err != nil {
		o.Close()
		return nil, fmt.Errorf("learn: %w", err)
	}
	f.opt.Sinkhorn = f.fi.Settings()
	if f.opt.LooseTol < 0 || math.IsNaN(f.opt.LooseTol) {
		o.Close()
		return nil, fmt.Errorf("learn: LooseTol = %v, want ≥ 0", f.opt.LooseTol)
	}
	if f.opt.LooseTol > 0 {
		f.fi.SetTol(math.Max(f.opt.LooseTol, f.opt.Sinkhorn.Tol), math.Max(f.opt.LooseTol, f.opt.Sinkhorn.AdjointTol))
	}
	return f, nil
}

// Close releases the heat kernel's factorisation.
func (f *FastObjective) Close() error { return f.o.Close() }

// Dim returns the number of optimisation variables (metric parameters).
func (f *FastObjective) Dim() int { return f.o.Dim() }

// Config returns the model configuration, defaults filled in
// (Iterations as given: fast mode does not use it).
func (f *FastObjective) Config() Config { return f.cfg }

// Options returns the fast options in effect, defaults filled in.
func (f *FastObjective) Options() FastOptions { return f.opt }

// Graph returns the graph.
func (f *FastObjective) Graph() *kernel.Graph { return f.o.g }

// Metric returns the metric parameterisation.
func (f *FastObjective) Metric() kernel.Metric { return f.o.metric }

// Heat returns the objective's heat kernel.
func (f *FastObjective) Heat() *kernel.Heat { return f.o.heat }

// Observations returns the observed frames (read-only).
func (f *FastObjective) Observations() [][][]float64 { return f.o.obs }

// Reconstructions returns the reconstructions of the last evaluation
// (read-only, overwritten by the next one).
func (f *FastObjective) Reconstructions() [][][]float64 { return f.fi.Recs() }

// LastTerms returns the breakdown of the last evaluation.
func (f *FastObjective) LastTerms() Terms { return f.o.last }

// Stats returns the Sinkhorn and adjoint iteration counts of the last
// evaluation.
func (f *FastObjective) Stats() ot.FastStats { return f.fi.Stats() }

// Totals returns the work done since the objective was built.
func (f *FastObjective) Totals() FastTotals { return f.totals }

// Accept records the warm-start state of the last evaluation as that of an
// accepted point (Accepter; Minimize calls it). Every later evaluation
// starts from it.
func (f *FastObjective) Accept(x []float64, fx float64) {
	f.fi.SaveWarm(&f.accepted)
	f.hasAcc = true
	if f.opt.LooseTol > 0 && f.gmax > 0 {
		if f.gmax0 == 0 {
			f.gmax0 = f.gmax
		}
		tol := f.opt.LooseTol * f.gmax / f.gmax0
		f.fi.SetTol(math.Min(math.Max(tol, f.opt.Sinkhorn.Tol), f.opt.LooseTol),
			math.Min(math.Max(tol, f.opt.Sinkhorn.AdjointTol), f.opt.LooseTol))
	}
}

// Tol returns the current marginal and adjoint tolerances (they change
// with FastOptions.LooseTol).
func (f *FastObjective) Tol() (tol, adjointTol float64) {
	s := f.fi.Settings()
	return s.Tol, s.AdjointTol
}

// Tighten divides the marginal and adjoint tolerances (and their floor and
// LooseTol, so that the adaptive rule keeps the change) by 10 (Tightener).
// It reports false when FastOptions.Tighten tightenings were made already,
// or when the tolerance test is disabled or already at 1e-12 (an L1
// marginal violation of normalised histograms near round-off, where a
// tighter test could no longer be met).
func (f *FastObjective) Tighten() bool {
	budget := f.opt.Tighten
	if budget == 0 {
		budget = DefaultTighten
	}
	tol, atol := f.Tol()
	if f.tightened >= budget || !(tol > 1e-12) || !(atol > 0) {
		return false
	}
	f.tightened++
	f.fi.SetTol(tol/10, atol/10)
	f.opt.Sinkhorn.Tol, f.opt.Sinkhorn.AdjointTol = tol/10, atol/10
	if f.opt.LooseTol > 0 {
		f.opt.LooseTol /= 10
	}
	return true
}

// RestoreAccepted makes the next evaluation start from the state of the
// last accepted point (the cold start if none).
func (f *FastObjective) RestoreAccepted() { f.fi.LoadWarm(&f.accepted) }

// ResetWarm makes the next evaluation start cold (b = 1, z = 0) and
// forgets the accepted state.
func (f *FastObjective) ResetWarm() {
	f.fi.ResetWarm()
	f.accepted, f.hasAcc = ot.WarmStart{}, false
}

// Eval returns F(x) and, unless grad is nil, writes ∇_x F into grad, like
// Objective.Eval (x = log θ), with converged barycenters.
func (f *FastObjective) Eval(grad, x []float64) (float64, error) {
	if err := f.o.setLogTheta("FastObjective.Eval", grad, x); err != nil {
		return 0, err
	}
	return f.eval(grad, true)
}

// EvalMetric evaluates F at the metric θ itself and, unless grad is nil,
// writes ∇_θ F.
func (f *FastObjective) EvalMetric(grad, theta []float64) (float64, error) {
	o := f.o
	if len(theta) != len(o.theta) || (grad != nil && len(grad) != len(theta)) {
		panic("learn: FastObjective.EvalMetric: length mismatch")
	}
	copy(o.theta, theta)
	return f.eval(grad, false)
}

// eval mirrors Objective.evalTheta with the FastInterpolator.
func (f *FastObjective) eval(grad []float64, logDomain bool) (float64, error) {
	o := f.o
	if err := o.setWeights(); err != nil {
		return 0, err
	}
	if f.hasAcc {
		f.fi.LoadWarm(&f.accepted)
	}
	f.totals.Evals++
	recs, err := f.fi.Forward()
	st := f.fi.Stats()
	f.totals.Sinkhorn += st.Iterations
	if err != nil {
		return 0, fmt.Errorf("learn: forward: %w", err)
	}
	if !st.Converged {
		f.totals.NotConverged++
	}
	fv, err := o.terms(recs, grad != nil)
	if err != nil || grad == nil {
		return fv, err
	}
	f.totals.Gradients++
	clear(o.gw)
	err = f.fi.Backward(o.gw, o.grec)
	st = f.fi.Stats()
	f.totals.Adjoint += st.AdjointIterations
	if !st.AdjointConverged {
		f.totals.NotConverged++
	}
	if err != nil {
		return 0, fmt.Errorf("learn: backward: %w", err)
	}
	if err := o.pullBack(grad, logDomain); err != nil {
		return 0, err
	}
	if !f.opt.Uncorrected {
		c := st.Correction
		o.last.Correction = c
		o.last.Data += c
		o.last.F += c
		fv += c
		if math.IsNaN(fv) || math.IsInf(fv, 0) {
			return 0, fmt.Errorf("learn: corrected objective is %v (set FastOptions.Uncorrected to do without the correction): %w", fv, ot.ErrNonFinite)
		}
	}
	f.gmax = 0
	for _, v := range grad {
		f.gmax = math.Max(f.gmax, math.Abs(v))
	}
	return fv, nil
}
