package learn

import (
	"cmp"
	"errors"
	"fmt"
	"math"

	"github.com/gmlg/gmlg/ot"
)

// Accepter is a Function told of the accepted iterates: Minimize calls
// Accept(x, f) after evaluating the starting point and after every accepted
// iteration, with the point and value of the function's last evaluation,
// before the Settings.Observer.
type Accepter interface {
	Accept(x []float64, f float64)
}

// DefaultTol is a tolerance-mode marginal tolerance (Config.Sinkhorn.Tol)
// that suits histograms of mass 1; the command line's default.
const DefaultTol = 1e-6

// DefaultTighten is Config.Tighten's default: three tightenings take a
// tolerance of 1e-4 to 1e-7.
const DefaultTighten = 3

// Totals accumulates an Objective's work since it was built.
type Totals struct {
	Evals, Gradients int // evaluations, and those with a gradient
	// Sinkhorn and Adjoint count iterations (each two N×C kernel
	// applications; adjoint ones only with the implicit gradient).
	Sinkhorn, Adjoint int
	NotConverged      int // tolerance-mode solves stopped at their bound
}

// Exact reports whether the objective is in exact mode.
func (o *Objective) Exact() bool { return !(o.cfg.Sinkhorn.Tol > 0) }

// Stats returns the iteration counts of the last evaluation.
func (o *Objective) Stats() ot.Stats { return o.interp.Stats() }

// Totals returns the work done since the objective was built.
func (o *Objective) Totals() Totals { return o.totals }

// Accept records the warm start of the last evaluation as the accepted
// point's, from which every later evaluation starts, and adapts the
// tolerances with LooseTol (Accepter). It does nothing in exact mode.
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

// Tol returns the current marginal and adjoint tolerances (0, 0 in exact
// mode).
func (o *Objective) Tol() (tol, adjointTol float64) {
	if o.Exact() {
		return 0, 0
	}
	s := o.interp.Settings()
	return s.Tol, s.AdjointTol
}

// Tighten divides the tolerances (and their floor and LooseTol, so that the
// adaptive rule keeps the change) by 10 (Tightener). It reports false in
// exact mode, after Config.Tighten tightenings, or at a tolerance of 1e-12
// (an L1 marginal violation near round-off, which a tighter test could no
// longer meet).
func (o *Objective) Tighten() bool {
	budget := cmp.Or(o.cfg.Tighten, DefaultTighten)
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

// countSolve adds the last Forward's (or Backward's) iterations to the
// totals.
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

// errCorrection is the error of a first-order correction out of range
// (checkCorrection); Minimize shortens the trial step.
var errCorrection = errors.New("first-order correction out of range")

// checkCorrection returns an error wrapping errCorrection when the
// correction c would make the data term (non-negative at every point)
// negative: c is then no estimate of a tolerance-level error. This happens
// where scalings are far from their fixed point though the marginals meet
// the tolerance, as on a trial step far out along a poor direction.
func checkCorrection(data, c float64) error {
	if data+c < 0 {
		return fmt.Errorf("learn: the first-order correction %.6g exceeds the data term %.6g (set Config.Uncorrected to do without it): %w",
			c, data, errCorrection)
	}
	return nil
}

// correct adds the last Backward's first-order correction to fv and the
// breakdown (tolerance mode, unless Uncorrected) and records ‖∇F‖∞ for
// LooseTol.
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
