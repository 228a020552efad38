package learn

import (
	"errors"
	"fmt"
)

// ErrInconsistentState is the error, wrapped by (*State).Validate, of a
// State whose slices disagree in length: one decoded from a damaged or
// foreign checkpoint, which Minimize must not resume from.
var ErrInconsistentState = errors.New("learn: inconsistent optimiser state")

// Validate checks the invariants that Minimize keeps in every State it
// reports: a point X of at least one parameter, a gradient G of its
// length, as many correction pairs S, Y as curvatures Rho, each pair of
// X's length, and one loss per accepted iteration. It returns nil for a
// consistent state and an error wrapping ErrInconsistentState otherwise,
// naming the first invariant broken; a nil state is inconsistent too.
func (s *State) Validate() error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: no state", ErrInconsistentState)
	case len(s.X) == 0:
		return fmt.Errorf("%w: no point", ErrInconsistentState)
	case len(s.G) != len(s.X):
		return fmt.Errorf("%w: gradient of length %d at a point of %d parameters", ErrInconsistentState, len(s.G), len(s.X))
	case len(s.S) != len(s.Y) || len(s.Rho) != len(s.S):
		return fmt.Errorf("%w: %d steps, %d gradient changes and %d curvatures in the history", ErrInconsistentState, len(s.S), len(s.Y), len(s.Rho))
	case len(s.Losses) != s.Iter:
		return fmt.Errorf("%w: %d losses for %d iterations", ErrInconsistentState, len(s.Losses), s.Iter)
	}
	for k := range s.S {
		if len(s.S[k]) != len(s.X) || len(s.Y[k]) != len(s.X) {
			return fmt.Errorf("%w: correction pair %d of lengths %d and %d for %d parameters", ErrInconsistentState, k, len(s.S[k]), len(s.Y[k]), len(s.X))
		}
	}
	return nil
}
