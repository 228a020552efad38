package main

import (
	"errors"
	"fmt"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
)

// The heat kernel solves with M = I + (t/S)·α·L_w (backward Euler; Crank–
// Nicolson uses half that coefficient), where α = (n−1)² is the grid's 1/h²
// and L_w the Laplacian of the edge weights w. A row of L_w holds at most 2d
// edges, so the largest entry that (t/S)·α·L_w adds to the identity is
//
//	s = (t/S)·(n−1)²·2d·max(w).
//
// Every entry of M, and of its Cholesky factor, is then rounded to within
// about s·2⁻⁵³, while the identity is what keeps M positive definite (L_w
// alone is singular: L_w·1 = 0). Once s nears 2⁵³ ≈ 9·10¹⁵ the identity is
// lost in the rounding and the factorisation fails (or, before it does,
// the kernel is mostly rounding). maxHeatScale keeps s at most 10¹², where
// the identity still holds about four significant digits.
const maxHeatScale = 1e12

// heatScale returns s = (t/steps)·(n−1)²·2d·maxW for the d-dimensional grid
// of side n. It is +Inf when the product overflows.
func heatScale(t float64, steps, d, n int, maxW float64) float64 {
	return t / float64(steps) * kernel.GridAlpha(n) * float64(2*d) * maxW
}

// checkHeatT refuses a diffusion time (given by the option named flag) for
// which even the uniform metric (every weight 1) puts the heat matrix beyond
// maxHeatScale on the d-dimensional grid of side n; the error is a usage
// error that says which times work.
func checkHeatT(flag string, t float64, steps, d, n int) error {
	if s := heatScale(t, steps, d, n, 1); !(s <= maxHeatScale) {
		return usagef("%s %g is too large for %d steps on a grid of side %d: (t/steps)·(n−1)²·2d·max(w) must stay ≤ %g for the heat matrix I + (t/steps)·(n−1)²·L_w to be numerically positive definite, so t ≤ %.3g with unit weights",
			flag, t, steps, n, float64(maxHeatScale), maxHeatScale/heatScale(1, steps, d, n, 1))
	}
	return nil
}

// checkMetricScale refuses a metric θ (read from the file named by source)
// whose largest value puts the heat matrix beyond maxHeatScale with
// diffusion time t and the given steps on the d-dimensional grid of side n.
// Every edge weight of either parameterisation is at most max θ (a vertex
// metric's edge weight is the mean of its two ends' values). The error names
// the file and says up to which value the metric works.
func checkMetricScale(source string, theta []float64, t float64, steps, d, n int) error {
	var mx float64
	for _, v := range theta {
		mx = max(mx, v)
	}
	if s := heatScale(t, steps, d, n, mx); !(s <= maxHeatScale) {
		return fmt.Errorf("metric file %s: largest value %g is too large for t = %g, %d steps and a grid of side %d: (t/steps)·(n−1)²·2d·max(w) must stay ≤ %g for the heat matrix I + (t/steps)·(n−1)²·L_w to be numerically positive definite, so the values must be ≤ %.3g (or t smaller)",
			source, mx, t, steps, n, float64(maxHeatScale), maxHeatScale/heatScale(t, steps, d, n, 1))
	}
	return nil
}

// heatHintError is a failed factorisation that notPosDefHint has explained.
type heatHintError struct{ error }

func (e heatHintError) Unwrap() error { return e.error }

// notPosDefHint explains a failed factorisation of the heat matrix built
// from the metric named by source (a file, "the uniform metric", …): it
// wraps err with the reason and the range that works, naming the options
// (flags) that set t and the steps. Other errors, and errors it explained
// already (the innermost caller knows the metric best), are returned
// unchanged.
func notPosDefHint(err error, source, flags string) error {
	var done heatHintError
	if !errors.Is(err, factor.ErrNotPosDef) || errors.As(err, &done) {
		return err
	}
	return heatHintError{fmt.Errorf("%w: with %s the heat matrix I + (t/steps)·(n−1)²·L_w is not numerically positive definite: its weights or t are too large (keep (t/steps)·(n−1)²·2d·max(w) ≤ %g) [options: %s]",
		err, source, float64(maxHeatScale), flags)}
}
