package kernel

import (
	"errors"
	"fmt"

	"github.com/gmlg/gmlg/kernel/factor"
)

// The heat kernel solves with M = I + (t/S)·α·L_w (backward Euler; Crank–
// Nicolson uses half that coefficient), where α scales the Laplacian L_w of
// the edge weights w ((n−1)² on a grid, the unit square's 1/h²). A row of
// L_w holds at most deg edges, deg the largest vertex degree (2d on a
// grid), so the largest entry that (t/S)·α·L_w adds to the identity is
//
//	s = (t/S)·α·deg·max(w).
//
// Every entry of M, and of its Cholesky factor, is then rounded to within
// about s·2⁻⁵³, while the identity is what keeps M positive definite (L_w
// alone is singular: L_w·1 = 0). Once s nears 2⁵³ ≈ 9·10¹⁵ the identity is
// lost in the rounding and the factorisation fails (or, before it does,
// the kernel is mostly rounding). MaxHeatScale keeps s at most 10¹², where
// the identity still holds about four significant digits.
const MaxHeatScale = 1e12

// HeatBound is the bound MaxHeatScale on the heat matrix of one grid or
// graph: it says which diffusion times and which metrics keep the matrix
// numerically positive definite there, and explains the refusals.
type HeatBound struct {
	alpha   float64
	degree  int
	where   string // " on a grid of side 11", " on this graph"
	formula string // s in the words of the space
	matrix  string // M in the words of the space
}

// GridHeatBound is the bound on the d-dimensional grid of side n with the
// grid's scale α = GridAlpha(n). It needs no Graph, so that sizes can be
// checked before a large grid is built.
func GridHeatBound(d, n int) HeatBound {
	return HeatBound{alpha: GridAlpha(n), degree: 2 * d, where: fmt.Sprintf(" on a grid of side %d", n),
		formula: "(t/steps)·(n−1)²·2d·max(w)", matrix: "I + (t/steps)·(n−1)²·L_w"}
}

// GraphHeatBound is the bound on a general graph g, whose Laplacian is not
// scaled (α = 1).
func GraphHeatBound(g *Graph) HeatBound {
	deg := make([]int, g.N())
	top := 1
	for e := range g.NumEdges() {
		i, j := g.Edge(e)
		deg[i]++
		deg[j]++
		top = max(top, deg[i], deg[j])
	}
	return HeatBound{alpha: 1, degree: top, where: " on this graph",
		formula: "(t/steps)·max degree·max(w)", matrix: "I + (t/steps)·L_w"}
}

// Scale returns s = (t/steps)·α·deg·maxW (see MaxHeatScale); it is +Inf
// when the product overflows.
func (b HeatBound) Scale(t float64, steps int, maxW float64) float64 {
	return t / float64(steps) * b.alpha * float64(b.degree) * maxW
}

// CheckTime refuses a diffusion time t for which even the uniform metric
// (every weight 1) puts the heat matrix beyond MaxHeatScale with the given
// steps. name is what the caller calls t ("--t"); the error says which
// times work.
func (b HeatBound) CheckTime(name string, t float64, steps int) error {
	if s := b.Scale(t, steps, 1); !(s <= MaxHeatScale) {
		return fmt.Errorf("%s %g is too large for %d steps%s: %s must stay ≤ %g for the heat matrix %s to be numerically positive definite, so t ≤ %.3g with unit weights",
			name, t, steps, b.where, b.formula, float64(MaxHeatScale), b.matrix, MaxHeatScale/b.Scale(1, steps, 1))
	}
	return nil
}

// CheckMetric refuses a metric θ (read from the file named source) whose
// largest value puts the heat matrix beyond MaxHeatScale with diffusion
// time t and the given steps. Every edge weight of either
// parameterisation is at most max θ (a vertex metric's edge weight is the
// mean of its two ends' values). The error says up to which value the
// metric works.
func (b HeatBound) CheckMetric(source string, theta []float64, t float64, steps int) error {
	var mx float64
	for _, v := range theta {
		mx = max(mx, v)
	}
	if s := b.Scale(t, steps, mx); !(s <= MaxHeatScale) {
		return fmt.Errorf("metric file %s: largest value %g is too large for t = %g and %d steps%s: %s must stay ≤ %g for the heat matrix %s to be numerically positive definite, so the values must be ≤ %.3g (or t smaller)",
			source, mx, t, steps, b.where, b.formula, float64(MaxHeatScale), b.matrix, MaxHeatScale/b.Scale(t, steps, 1))
	}
	return nil
}

// notPosDefError is a failed factorisation that ExplainNotPosDef has
// explained.
type notPosDefError struct{ error }

func (e notPosDefError) Unwrap() error { return e.error }

// ExplainNotPosDef explains a failed factorisation of the heat matrix built
// from the metric named by source (a file, "the uniform metric", …): it
// wraps err with the reason and the range that works, naming the settings
// that set t and the steps. Other errors, and errors it explained already
// (the innermost caller knows the metric best), are returned unchanged;
// the result still matches factor.ErrNotPosDef.
func ExplainNotPosDef(err error, source, settings string) error {
	var done notPosDefError
	if !errors.Is(err, factor.ErrNotPosDef) || errors.As(err, &done) {
		return err
	}
	return notPosDefError{fmt.Errorf("%w: with %s the heat matrix I + (t/steps)·(n−1)²·L_w is not numerically positive definite: its weights or t are too large (keep (t/steps)·(n−1)²·2d·max(w) ≤ %g) [options: %s]",
		err, source, float64(MaxHeatScale), settings)}
}
