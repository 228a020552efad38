package ot

import (
	"cmp"
	"fmt"
)

// Defaults of Settings.
const (
	// DefaultIterations is the number L of Sinkhorn iterations of the
	// fixed-L mode (the reference's L = 50).
	DefaultIterations = 50
	// DefaultMaxIterations bounds the Sinkhorn iterations of one Forward in
	// tolerance mode and the adjoint iterations of one implicit Backward.
	DefaultMaxIterations = 5000
	// DefaultAdjointRestart is the restart length of the GMRES adjoint
	// solve: the usual textbook choice. Warm-started solves use a few
	// Krylov vectors, so it bounds memory rather than work.
	DefaultAdjointRestart = 20
)

// Gradient selects how Interpolator.Backward differentiates the
// reconstructions.
type Gradient int

const (
	// AutoGradient, the zero value, is Unrolled with a fixed number of
	// iterations and ImplicitFixedPoint in tolerance mode.
	AutoGradient Gradient = iota
	// Unrolled back-propagates through the L iterations recorded on a tape:
	// the exact gradient of the fixed-L reconstructions. Needs a fixed L.
	Unrolled
	// ImplicitFixedPoint differentiates the Sinkhorn fixed point implicitly,
	// solving the adjoint system by the fixed-point iteration z ← F(z).
	ImplicitFixedPoint
	// ImplicitGMRES differentiates the fixed point implicitly, solving the
	// adjoint system by restarted GMRES (fewer kernel applications than the
	// fixed-point iteration when the Sinkhorn iteration contracts slowly).
	ImplicitGMRES
)

var gradientNames = [...]string{"auto", "unrolled", "fixed-point", "gmres"}

func (g Gradient) String() string {
	if g >= 0 && int(g) < len(gradientNames) {
		return gradientNames[g]
	}
	return fmt.Sprintf("Gradient(%d)", int(g))
}

// Settings configures an Interpolator. A nil *Settings and the zero value
// are the reference's computation: L = 50 iterations from b = 1 and the
// unrolled gradient. Zero fields mean the documented defaults. Warm starts
// and Anderson mixing act in tolerance mode only, so that with a fixed L
// the result of a Forward depends on the kernel alone.
type Settings struct {
	// Iterations is the number L of Sinkhorn iterations when Tol = 0; 0
	// means DefaultIterations (50).
	Iterations int
	// Tol, when positive, iterates each Forward until the marginal violation
	// (see Interpolator) is at most Tol, at most MaxIterations times.
	Tol float64
	// MaxIterations bounds the Sinkhorn iterations of one Forward in
	// tolerance mode; reaching it is not an error (Stats reports
	// Converged = false). 0 means DefaultMaxIterations.
	MaxIterations int
	// Gradient chooses how Backward differentiates; the zero value is
	// AutoGradient. Unrolled needs a fixed L.
	Gradient Gradient
	// AdjointTol stops the implicit gradient's adjoint solve: the fixed-point
	// iteration when the L1 norm of its last increment is at most AdjointTol
	// times that of the adjoint vector, GMRES when the 2-norm of the residual
	// is at most AdjointTol times that of the map's image at its last restart;
	// both measured on b⊙z, the adjoint of log b (z itself grows like 1/b in
	// bins without mass, where b may be 1e-50, and would otherwise decide the
	// test alone). 0 means Tol in tolerance mode and 1e-12 with a fixed L.
	AdjointTol float64
	// AdjointMaxIterations bounds the adjoint iterations (evaluations of the
	// adjoint map, two kernel applications each) of one implicit Backward.
	// 0 means MaxIterations.
	AdjointMaxIterations int
	// AdjointRestart is the restart length of ImplicitGMRES (0: the default).
	AdjointRestart int
	// Anderson, when positive, accelerates the Sinkhorn iterations of
	// tolerance mode by Anderson mixing of each frame's log-scalings over
	// the last Anderson iterations (anderson.go); it adds 2·Anderson+3
	// blocks of N×C. When a mixed input meets Tol, Forward takes one more
	// plain iteration from it, so that the implicit gradient linearises the
	// iteration at an image of it; the result is the plain iteration's
	// fixed point. 0 means off. It needs Tol > 0.
	Anderson int
	// Cold, in tolerance mode, starts every Forward from b = 1 and every
	// implicit Backward from z = 0 instead of the state the previous call
	// left (see Interpolator, "Warm start").
	Cold bool
	// ForwardOnly drops the gradient's workspace (the tape of the unrolled
	// gradient): Backward then panics.
	ForwardOnly bool
	// IterateEndpoints runs the frames whose weight is exactly 1 through the
	// iterations with weights (1, 0), as the reference's colour interpolation
	// does, instead of the closed form K·(P/K·1): the frame comes out as
	// K·(P/K·b) for the last b, close to K·(P/K·1).
	IterateEndpoints bool
}

// tolMode reports whether the settings stop at a marginal tolerance.
func (s *Settings) tolMode() bool { return s.Tol > 0 }

// withDefaults returns the settings (the zero value for nil) with the defaults
// filled in, and panics on settings that are invalid or contradict each other.
func (s *Settings) withDefaults() Settings {
	d := *cmp.Or(s, &Settings{})
	if d.Iterations < 0 || d.MaxIterations < 0 || d.AdjointMaxIterations < 0 || d.AdjointRestart < 0 ||
		d.Anderson < 0 || !(d.Tol >= 0) || !(d.AdjointTol >= 0) || d.Gradient < AutoGradient || d.Gradient > ImplicitGMRES {
		panic(fmt.Sprintf("ot: invalid settings %+v", d))
	}
	d.Iterations = cmp.Or(d.Iterations, DefaultIterations)
	d.MaxIterations = cmp.Or(d.MaxIterations, DefaultMaxIterations)
	d.AdjointMaxIterations = cmp.Or(d.AdjointMaxIterations, d.MaxIterations)
	d.AdjointRestart = cmp.Or(d.AdjointRestart, DefaultAdjointRestart)
	d.AdjointTol = cmp.Or(d.AdjointTol, d.Tol, 1e-12) // Tol is 0 with a fixed L
	if d.Gradient == AutoGradient {
		d.Gradient = Unrolled
		if d.tolMode() {
			d.Gradient = ImplicitFixedPoint
		}
	}
	switch {
	case d.Gradient == Unrolled && d.tolMode() && !d.ForwardOnly:
		panic("ot: the unrolled gradient needs a fixed number of iterations (Tol = 0); choose an implicit Gradient")
	case d.Anderson > 0 && !d.tolMode():
		panic("ot: Anderson mixing needs tolerance mode (Tol > 0)")
	}
	return d
}

// Stats describes the last Forward and Backward of an Interpolator.
type Stats struct {
	// Iterations is the number of Sinkhorn iterations of the last Forward (each
	// two N×C kernel applications) and Violation the largest marginal violation
	// of its last iteration. Converged reports that it reached Tol in tolerance
	// mode (always false with a fixed L, unless there is no interior frame).
	Iterations int
	Violation  float64
	Converged  bool
	// Warm says that the last Forward started from stored scalings; ColdRetry
	// that it met a non-finite value and was redone from b = 1 (Iterations
	// then counts both attempts).
	Warm, ColdRetry bool
	// AdjointIterations is the number of adjoint-map evaluations (each two
	// N×C kernel applications) of the last implicit Backward, AdjointResidual
	// its last relative residual and AdjointConverged whether it reached
	// AdjointTol; all zero for the unrolled gradient.
	AdjointIterations int
	AdjointResidual   float64
	AdjointConverged  bool
	// Correction is zᵀ·(T̃(b) − b) at the last implicit Backward, b the
	// last iteration's input (see Interpolator, "Warm start"): added to the
	// objective whose gradient Backward was given, it removes that
	// objective's first-order error due to the unconverged scalings. 0
	// otherwise; when AdjointConverged is false it is only as good as z.
	Correction float64
	// AndersonRestarts counts the frames whose Anderson history the last
	// Forward discarded.
	AndersonRestarts int
}
