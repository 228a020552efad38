package learn

import (
	"errors"
	"fmt"
	"math"

	"github.com/gmlg/gmlg/ot"
)

// Accepter is implemented by a Function that wants to know the accepted
// iterates: Minimize calls Accept(x, f) after evaluating the starting point
// and after every accepted iteration, with the point and value that the
// function's LAST evaluation computed (the optimiser has just accepted it),
// before the Settings.Observer.
type Accepter interface {
	Accept(x []float64, f float64)
}

// DefaultTol is a marginal tolerance for tolerance mode
// (Config.Sinkhorn.Tol) that suits histograms of mass 1; the command line
// uses it when no tolerance is given.
const DefaultTol = 1e-6

// DefaultTighten is Config.Tighten's default: three tightenings take a
// tolerance of 1e-4 to 1e-7.
const DefaultTighten = 3

// Totals accumulates an Objective's work since it was built.
type Totals struct {
	// Evals counts evaluations, Gradients those with a gradient.
	Evals, Gradients int
	// Sinkhorn and Adjoint count Sinkhorn and adjoint iterations (each two
	// N×C kernel applications; adjoint iterations only with the implicit
	// gradient).
	Sinkhorn, Adjoint int
	// NotConverged counts the forward or adjoint solves of tolerance mode
	// that stopped at their iteration bound before reaching the tolerance.
	NotConverged int
}

// Exact reports whether the objective runs a fixed number of Sinkhorn
// iterations (exact mode) rather than iterating to a tolerance.
func (o *Objective) Exact() bool { return !(o.cfg.Sinkhorn.Tol > 0) }

// Stats returns the Sinkhorn and adjoint iteration counts of the last
// evaluation.
func (o *Objective) Stats() ot.Stats { return o.interp.Stats() }

// Totals returns the work done since the objective was built.
func (o *Objective) Totals() Totals { return o.totals }

// Accept records the warm-start state of the last evaluation as that of an
// accepted point (Accepter; Minimize calls it): every later evaluation
// starts from it. With LooseTol it also adapts the tolerances. It does
// nothing in exact mode.
func (o *Objective) Accept(x []float64, fx float64) {
	if o.Exact() {
		return
	}
	o.interp.SaveWarm(&o.accepted)
	o.hasAcc = true
	if o.cfg.LooseTol > 0 && o.gmax > 0 {
		if o.gmax0 == 0 {
			o.gmax0 = o.gmax
		}
		tol := o.cfg.LooseTol * o.gmax / o.gmax0
		o.interp.SetTol(math.Min(math.Max(tol, o.cfg.Sinkhorn.Tol), o.cfg.LooseTol),
			math.Min(math.Max(tol, o.cfg.Sinkhorn.AdjointTol), o.cfg.LooseTol))
	}
}

// Tol returns the current marginal and adjoint tolerances (they change
// with LooseTol and Tighten); 0, 0 in exact mode.
func (o *Objective) Tol() (tol, adjointTol float64) {
	if o.Exact() {
		return 0, 0
	}
	s := o.interp.Settings()
	return s.Tol, s.AdjointTol
}

// Tighten divides the marginal and adjoint tolerances (and their floor and
// LooseTol, so that the adaptive rule keeps the change) by 10 (Tightener).
// It reports false when Config.Tighten tightenings were made already, in
// exact mode, or when the tolerance is already at 1e-12 (an L1 marginal
// violation of normalised histograms near round-off, where a tighter test
// could no longer be met).
func (o *Objective) Tighten() bool {
	budget := o.cfg.Tighten
	if budget == 0 {
		budget = DefaultTighten
	}
	tol, atol := o.Tol()
	if o.tightened >= budget || !(tol > 1e-12) || !(atol > 0) {
		return false
	}
	o.tightened++
	o.interp.SetTol(tol/10, atol/10)
	o.cfg.Sinkhorn.Tol, o.cfg.Sinkhorn.AdjointTol = tol/10, atol/10
	if o.cfg.LooseTol > 0 {
		o.cfg.LooseTol /= 10
	}
	return true
}

// RestoreAccepted makes the next evaluation start from the state of the
// last accepted point (the cold start if none; nothing in exact mode).
func (o *Objective) RestoreAccepted() { o.interp.LoadWarm(&o.accepted) }

// ResetWarm makes the next evaluation start cold (b = 1, z = 0) and
// forgets the accepted state (nothing in exact mode).
func (o *Objective) ResetWarm() {
	o.interp.ResetWarm()
	o.accepted, o.hasAcc = ot.WarmStart{}, false
}

// countSolve adds the last Forward's (backward: Backward's) iterations to
// the totals, counting a tolerance-mode solve that did not converge.
func (o *Objective) countSolve(backward bool) {
	st := o.interp.Stats()
	conv := st.Converged
	if backward {
		o.totals.Adjoint += st.AdjointIterations
		conv = st.AdjointConverged
	} else {
		o.totals.Sinkhorn += st.Iterations
	}
	if !o.Exact() && !conv {
		o.totals.NotConverged++
	}
}

// errCorrection is the error of a tolerance-mode evaluation whose
// first-order correction would make the data term negative (see
// checkCorrection). Minimize shortens the trial step (numericalTrouble).
var errCorrection = errors.New("first-order correction out of range")

// checkCorrection returns an error wrapping errCorrection when the
// correction c would make the data term data (a sum of losses, each
// non-negative at every point, converged or not) negative: c is then no
// estimate of a tolerance-level error. This happens where some scalings
// are far from their fixed point in absolute terms though the marginals
// meet the tolerance, as on a trial step far out along a poor direction.
func checkCorrection(data, c float64) error {
	if data+c < 0 {
		return fmt.Errorf("learn: the first-order correction %.6g exceeds the data term %.6g (set Config.Uncorrected to do without it): %w",
			c, data, errCorrection)
	}
	return nil
}

// correct adds the first-order correction of the last implicit Backward
// to the objective value fv and to the breakdown, unless Uncorrected or in
// exact mode, and records ‖∇F‖∞ for LooseTol.
func (o *Objective) correct(fv float64, grad []float64) (float64, error) {
	if o.Exact() {
		return fv, nil
	}
	if !o.cfg.Uncorrected {
		c := o.interp.Stats().Correction
		if err := checkCorrection(o.last.Data, c); err != nil {
			return 0, err
		}
		o.last.Correction = c
		o.last.Data += c
		o.last.F += c
		fv += c
		if math.IsNaN(fv) || math.IsInf(fv, 0) {
			return 0, fmt.Errorf("learn: corrected objective is %v (set Config.Uncorrected to do without the correction): %w", fv, ot.ErrNonFinite)
		}
	}
	o.gmax = 0
	for _, v := range grad {
		o.gmax = math.Max(o.gmax, math.Abs(v))
	}
	return fv, nil
}
