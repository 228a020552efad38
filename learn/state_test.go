package learn

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// validState is a small state that keeps every invariant: two iterations,
// two parameters, one correction pair.
func validState() *State {
	return &State{Iter: 2, Evals: 3, X: []float64{1, -2}, G: []float64{0.1, 0.2}, F: 1.5,
		S: [][]float64{{0.5, 0.5}}, Y: [][]float64{{0.25, 0.5}}, Rho: []float64{1 / 0.375},
		Losses: []float64{2, 1.5}}
}

func TestStateValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *State) *State
		want   string // "" for a valid state
	}{
		{"valid", func(s *State) *State { return s }, ""},
		{"no history", func(s *State) *State { s.S, s.Y, s.Rho = nil, nil, nil; return s }, ""},
		{"iteration 0", func(s *State) *State { s.Iter, s.Losses = 0, nil; return s }, ""},
		{"nil", func(*State) *State { return nil }, "no state"},
		{"no point", func(s *State) *State { s.X, s.G = nil, nil; return s }, "no point"},
		{"short gradient", func(s *State) *State { s.G = s.G[:1]; return s }, "gradient of length 1"},
		{"missing Y", func(s *State) *State { s.Y = nil; return s }, "1 steps, 0 gradient changes"},
		{"missing Rho", func(s *State) *State { s.Rho = nil; return s }, "0 curvatures"},
		{"losses", func(s *State) *State { s.Losses = s.Losses[:1]; return s }, "1 losses for 2 iterations"},
		{"short S", func(s *State) *State { s.S[0] = s.S[0][:1]; return s }, "correction pair 0"},
		{"long Y", func(s *State) *State { s.Y[0] = append(s.Y[0], 1); return s }, "correction pair 0"},
	} {
		err := tc.change(validState()).Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrInconsistentState) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: Validate() = %v, want an ErrInconsistentState naming %q", tc.name, err, tc.want)
		}
	}
}

// TestStateValidateMinimize checks that the states Minimize reports, at
// every iteration and at the end, pass Validate.
func TestStateValidateMinimize(t *testing.T) {
	fn := funcOf(func(g, x []float64) (float64, error) {
		// f(x) = Σ (i+1)(x_i − 1)², a convex quadratic with its minimum at 1.
		f := 0.0
		for i, v := range x {
			d := v - 1
			f += float64(i+1) * d * d
			if g != nil {
				g[i] = 2 * float64(i+1) * d
			}
		}
		return f, nil
	})
	set := &Settings{MaxIter: 5, Observer: IterationFunc(func(p *Progress) error { return p.State.Validate() })}
	res, err := Minimize(t.Context(), fn, make([]float64, 3), set, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.State.Validate(); err != nil {
		t.Errorf("final state: %v", err)
	}
}

// A checkpoint decoded from disk is validated before Minimize resumes
// from it: here its loss history lacks an iteration.
func ExampleState_Validate() {
	st := &State{Iter: 2, X: []float64{0, 0}, G: []float64{1, 1}, Losses: []float64{3}}
	fmt.Println(st.Validate())
	// Output: learn: inconsistent optimiser state: 1 losses for 2 iterations
}
