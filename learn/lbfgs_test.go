package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/ot"
	"gonum.org/v1/gonum/optimize/functions"
)

type funcOf func(grad, x []float64) (float64, error)

func (f funcOf) Eval(grad, x []float64) (float64, error) { return f(grad, x) }

func rosenbrock() Function {
	r := functions.ExtendedRosenbrock{}
	return funcOf(func(grad, x []float64) (float64, error) {
		if grad != nil {
			r.Grad(grad, x)
		}
		return r.Func(x), nil
	})
}

func TestMinimizeRosenbrock(t *testing.T) {
	x0 := []float64{-1.2, 1, -1.2, 1, 0.5}
	res, err := Minimize(context.Background(), rosenbrock(), x0, &Settings{MaxIter: 1000, GTol: 1e-9, FTol: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != GradientConvergence {
		t.Errorf("status %v, want gradient convergence", res.Status)
	}
	for i, v := range res.X {
		if math.Abs(v-1) > 1e-6 {
			t.Errorf("x[%d] = %v, want 1", i, v)
		}
	}
}

// TestMinimizeTrials: Observer.Trial sees every evaluation after the
// starting point, and the last trial of each iteration is the accepted
// point with the accepted value.
func TestMinimizeTrials(t *testing.T) {
	x0 := []float64{-1.2, 1, -1.2, 1}
	var trials []Trial
	var accepted []float64
	res, err := Minimize(context.Background(), rosenbrock(), x0, &Settings{MaxIter: 25,
		Observer: &funcObserver{
			trial: func(tr Trial) { trials = append(trials, tr) },
			iter: func(p *Progress) error {
				accepted = append(accepted, p.F)
				last := trials[len(trials)-1]
				if last.Iter != p.Iter || last.F != p.F {
					t.Errorf("iteration %d (F %v): last trial %+v", p.Iter, p.F, last)
				}
				return nil
			}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != res.State.Evals-1 || len(accepted) != 25 {
		t.Fatalf("%d trials for %d evaluations, %d iterations", len(trials), res.State.Evals, len(accepted))
	}
	for i, tr := range trials {
		if !(tr.Step > 0) || !(tr.Slope < 0) || tr.Iter < 1 || (i > 0 && tr.Index == 0 && !tr.Steepest && tr.Iter != trials[i-1].Iter+1) {
			t.Errorf("trial %d: %+v", i, tr)
		}
	}
}

// TestResumeEqualsUninterrupted: stopping after k iterations and resuming from
// the saved state gives bitwise the same result as an uninterrupted run.
func TestResumeEqualsUninterrupted(t *testing.T) {
	x0 := []float64{-1.2, 1, -1.2, 1}
	full, err := Minimize(context.Background(), rosenbrock(), x0, &Settings{MaxIter: 30, History: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var saved *State
	stop := errors.New("interrupt")
	_, err = Minimize(context.Background(), rosenbrock(), x0, &Settings{MaxIter: 30, History: 5, Observer: IterationFunc(func(p *Progress) error {
		if p.Iter == 12 {
			saved = p.State.Clone()
			return stop
		}
		return nil
	})}, nil)
	if !errors.Is(err, stop) || saved == nil {
		t.Fatalf("callback error not returned: %v", err)
	}
	resumed, err := Minimize(context.Background(), rosenbrock(), nil, &Settings{MaxIter: 30, History: 5}, saved)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.State.Iter != full.State.Iter || resumed.State.Evals != full.State.Evals {
		t.Errorf("resumed run: %d iterations/%d evaluations, uninterrupted %d/%d",
			resumed.State.Iter, resumed.State.Evals, full.State.Iter, full.State.Evals)
	}
	for i := range full.X {
		if resumed.X[i] != full.X[i] {
			t.Fatalf("x[%d]: resumed %.17g, uninterrupted %.17g", i, resumed.X[i], full.X[i])
		}
	}
	for k := range full.State.Losses {
		if resumed.State.Losses[k] != full.State.Losses[k] {
			t.Fatalf("loss %d differs", k)
		}
	}
}

func TestMinimizeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	res, err := Minimize(ctx, rosenbrock(), []float64{-1.2, 1}, &Settings{Observer: IterationFunc(func(p *Progress) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})}, nil)
	if !errors.Is(err, context.Canceled) || res.Status != Cancelled || res.State.Iter != 3 {
		t.Errorf("err=%v status=%v iter=%d, want context.Canceled after 3 iterations", err, res.Status, res.State.Iter)
	}
}

// TestMinimizeCancelInLineSearch: a cancellation during a line search stops
// the run before the next trial evaluation, at the last accepted point.
func TestMinimizeCancelInLineSearch(t *testing.T) {
	x0 := []float64{-1.2, 1}
	// Find a line search of two or more evaluations in an uncancelled run.
	var marks []int // evaluations when each iteration was accepted
	if _, err := Minimize(context.Background(), rosenbrock(), x0, &Settings{MaxIter: 40, Observer: IterationFunc(func(p *Progress) error {
		marks = append(marks, p.Evals)
		return nil
	})}, nil); err != nil {
		t.Fatal(err)
	}
	cancelAt := 0
	for k := 1; k < len(marks) && cancelAt == 0; k++ {
		if marks[k]-marks[k-1] >= 2 {
			cancelAt = marks[k-1] + 1 // the first, rejected trial of iteration k+1
		}
	}
	if cancelAt == 0 {
		t.Fatal("no line search of two evaluations to cancel in")
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := rosenbrock()
	evals := 0
	var accepted []float64
	fn := funcOf(func(grad, x []float64) (float64, error) {
		evals++
		if evals == cancelAt {
			cancel()
		}
		return r.Eval(grad, x)
	})
	res, err := Minimize(ctx, fn, x0, &Settings{MaxIter: 40, Observer: IterationFunc(func(p *Progress) error {
		accepted = append(accepted[:0], p.X...)
		return nil
	})}, nil)
	if !errors.Is(err, context.Canceled) || res.Status != Cancelled {
		t.Fatalf("err=%v status=%v, want context.Canceled", err, res.Status)
	}
	if evals != cancelAt || res.State.Evals != cancelAt {
		t.Errorf("%d evaluations (state %d), want %d: no trial after the cancellation", evals, res.State.Evals, cancelAt)
	}
	if !slices.Equal(res.X, accepted) {
		t.Errorf("x = %v, want the last accepted point %v", res.X, accepted)
	}
}

// TestMinimizeNumericalTrouble: an evaluation that fails because the trial
// point is outside the computable region (a value that is not finite, a
// weight or metric out of range, a factorisation that met a non-positive
// pivot, a tolerance-mode correction out of range) makes the line search
// try a shorter step, and the run still converges; any other error stops
// it.
func TestMinimizeNumericalTrouble(t *testing.T) {
	broken := errors.New("broken setup")
	for _, tc := range []struct {
		name    string
		err     error
		recover bool
	}{
		{"not finite", fmt.Errorf("loss: %w", ot.ErrNonFinite), true},
		{"bad weight", fmt.Errorf("set weights: %w", kernel.ErrBadWeight), true},
		{"metric overflow", fmt.Errorf("metric: %w", errMetricOverflow), true},
		{"not positive definite", fmt.Errorf("factorise: %w", &factor.NotPosDefError{Backend: "test", Column: 3}), true},
		{"correction out of range", checkCorrection(1, -2), true},
		{"other", broken, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Σ c_i (x_i − 1)², computable only where every x_i ≤ 1.2:
			// the first steps from −5 overshoot that bound.
			fails := 0
			fn := funcOf(func(grad, x []float64) (float64, error) {
				f := 0.0
				for i, v := range x {
					if v > 1.2 {
						fails++
						return 0, tc.err
					}
					c := float64(1 + 3*i)
					f += c * (v - 1) * (v - 1)
					if grad != nil {
						grad[i] = 2 * c * (v - 1)
					}
				}
				return f, nil
			})
			res, err := Minimize(context.Background(), fn, []float64{-5, -5, -5}, &Settings{MaxIter: 200, GTol: 1e-8}, nil)
			if !tc.recover {
				if !errors.Is(err, broken) || fails != 1 {
					t.Fatalf("err = %v after %d failed evaluations, want %v after one", err, fails, broken)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fails == 0 {
				t.Fatal("no evaluation failed: the test does not reach the region's bound")
			}
			for i, v := range res.X {
				if math.Abs(v-1) > 1e-6 {
					t.Errorf("x[%d] = %v, want 1 (status %v, %d failed evaluations)", i, v, res.Status, fails)
				}
			}
		})
	}
}
