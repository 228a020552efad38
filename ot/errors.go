package ot

import (
	"errors"
	"fmt"
)

// ErrNonFinite is matched (with errors.Is) by every error that reports a
// non-finite or vanishing value met during a Sinkhorn computation, a loss or
// a reverse pass. The concrete error is a *NonFiniteError.
var ErrNonFinite = errors.New("non-finite or vanishing value")

// NonFiniteError reports where a computation produced a value that is not a
// finite positive number: a barycenter whose mass is NaN, ±Inf or zero (the
// kernel underflowed), a loss that is infinite, or a gradient that is not
// finite. It matches ErrNonFinite with errors.Is.
type NonFiniteError struct {
	// Op names the computation: "barycenter", "forward", "backward" or "loss".
	Op string
	// Sequence and Frame locate the reconstruction (-1 when they do not
	// apply, e.g. in Barycenter).
	Sequence, Frame int
	// Iteration is the Sinkhorn iteration, counted from 1, at which the
	// value was seen; 0 means the endpoint rule K(P/K·1) or a quantity that
	// is not tied to an iteration.
	Iteration int
	// Hint says which parameter to change.
	Hint string
}

// Default hints, naming the parameter to change.
const (
	hintUnderflow = "the kernel underflowed: increase the diffusion time t (t_heat), " +
		"lower the number of Sinkhorn iterations, or add a floor to the histograms"
	hintGrad = "the gradient of the loss with respect to the reconstructions is not finite: " +
		"add a floor to the observations (KL needs positive observations)"
)

// Error implements error.
func (e *NonFiniteError) Error() string {
	where := ""
	if e.Sequence >= 0 {
		where += fmt.Sprintf(" in sequence %d", e.Sequence)
	}
	if e.Frame >= 0 {
		where += fmt.Sprintf(" frame %d", e.Frame)
	}
	if e.Iteration > 0 {
		where += fmt.Sprintf(" at Sinkhorn iteration %d", e.Iteration)
	}
	return fmt.Sprintf("ot: %s: %v%s: %s", e.Op, ErrNonFinite, where, e.Hint)
}

// Is reports whether target is ErrNonFinite.
func (e *NonFiniteError) Is(target error) bool { return target == ErrNonFinite }
