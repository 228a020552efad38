package learn

import (
	"context"
	"fmt"
)

// MinimizeFast is Minimize for a tolerance-mode Objective, robust to the noise of its
// inexact evaluations: when the line search fails (LinesearchFailure), it
// divides the tolerances by 10, re-evaluates the last accepted point from
// its warm start, and continues from there with the optimiser's state
// (iteration count and L-BFGS memory kept), at most Config.Tighten
// times. Result.Tightened counts the tightenings; the Callback sees one
// continuous run.
func MinimizeFast(ctx context.Context, f *Objective, x0 []float64, s *Settings, resume *State) (*Result, error) {
	budget := f.cfg.Tighten
	if budget == 0 {
		budget = DefaultTighten
	}
	res, err := Minimize(ctx, f, x0, s, resume)
	tightened := 0
	for err == nil && res.Status == LinesearchFailure && tightened < budget && f.tighten() {
		tightened++
		st := cloneState(res.State)
		f.RestoreAccepted()
		fx, eerr := f.Eval(st.G, st.X)
		st.Evals++
		if eerr != nil {
			return res, fmt.Errorf("learn: re-evaluating after tightening the tolerance: %w", eerr)
		}
		st.F = fx
		f.Accept(st.X, fx)
		res, err = Minimize(ctx, f, nil, s, st)
	}
	if res != nil {
		res.Tightened = tightened
	}
	return res, err
}
