package learn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/ot"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// Function is what Minimize minimises: F(x) and its gradient in one pass.
type Function interface {
	Eval(grad, x []float64) (float64, error)
}

// Settings configures Minimize. A nil *Settings and zero fields mean the
// defaults, which mirror the reference's scipy fmin_l_bfgs_b call
// (docs/method.md, "Optimiser").
type Settings struct {
	MaxIter       int // accepted iterations; 0 means 500
	History       int // correction pairs kept (m); 0 means 20
	MaxLinesearch int // evaluations of one line search; 0 means 20
	// FTol stops when (f_k − f_{k+1})/max(|f_k|,|f_{k+1}|,1) ≤ FTol; 0 means
	// factr·eps = 1e7·2.22e-16 (scipy's default). Negative disables.
	FTol float64
	// GTol stops when ‖g‖∞ ≤ GTol; 0 means 1e-5 (pgtol). Negative disables.
	GTol     float64
	MaxEvals int // objective evaluations; 0 means 15000
	// Observer, if set, receives every accepted iteration (an error stops
	// the optimisation) and every line-search evaluation that returned a
	// value; Run also sends it its other reports.
	Observer Observer
}

// Trial describes one line-search evaluation: the point x + Step·d of
// iteration Iter (from 1), its Index-th trial (from 0) on the L-BFGS
// direction or, when Steepest, on −g; F0 and Slope = gᵀd at x, F and
// Deriv = ∇F(x + Step·d)ᵀd at the trial.
type Trial struct {
	Iter, Index               int
	Steepest                  bool
	Step, F0, Slope, F, Deriv float64
}

// Progress is what Observer.Iteration receives. Its slices are the
// optimiser's own: copy them to keep them.
type Progress struct {
	Iter     int           // accepted iterations so far, counting from 1
	F        float64       // objective at X
	GradNorm float64       // ‖∇F(X)‖₂
	GradMax  float64       // ‖∇F(X)‖∞
	Evals    int           // objective evaluations so far (including x0)
	Elapsed  time.Duration // since Minimize started (not counting a resumed run's past)
	X        []float64     // current point (log metric)
	State    *State        // everything needed to resume from here
	Level    int           // Run's current level (0 outside Run)
}

// State is the optimiser's complete state at an accepted iterate: resuming
// from it continues exactly as the uninterrupted run would.
type State struct {
	Iter, Evals int
	X, G        []float64
	F           float64
	// S and Y are the correction pairs, oldest first; Rho[k] = 1/(S[k]·Y[k]).
	S, Y [][]float64
	Rho  []float64
	// Losses holds F after each accepted iteration (entry k−1 is F(x_k)),
	// like the reference's 1-loss.npy.
	Losses []float64
}

// Status says why Minimize stopped.
type Status int

const (
	IterationLimit      Status = iota + 1 // MaxIter accepted iterations
	FunctionConvergence                   // the relative decrease fell below FTol
	GradientConvergence                   // ‖g‖∞ ≤ GTol
	EvaluationLimit                       // MaxEvals evaluations
	LinesearchFailure                     // no acceptable step even from steepest descent
	Cancelled                             // ctx was cancelled or the observer failed
	ExactRose                             // Run stopped its finest level for the Polish
)

var statusNames = []string{
	IterationLimit:      "iteration limit",
	FunctionConvergence: "converged (relative reduction of f ≤ ftol)",
	GradientConvergence: "converged (‖g‖∞ ≤ gtol)",
	EvaluationLimit:     "evaluation limit",
	LinesearchFailure:   "line search failed",
	Cancelled:           "cancelled",
	ExactRose:           "stopped for the exact polish (the exact objective of the iterates rose)",
}

func (s Status) String() string { return enumString(s, statusNames, "Status") }

// Result is the outcome of Minimize. State is the last accepted state, from
// which the run can be resumed.
type Result struct {
	X         []float64
	F         float64
	Status    Status
	State     *State
	Tightened int // tolerance tightenings of a Tightener
}

// Tightener is a Function whose values are exact only to a tolerance that
// it can tighten (a tolerance-mode Objective): on a plateau tolerance-level
// noise can defeat the line search. When one fails and Tighten reports
// true, Minimize re-evaluates the last accepted point from its state
// (RestoreAccepted), accepts it again and goes on with its memory.
type Tightener interface {
	Accepter
	Tighten() bool
	RestoreAccepted()
}

// Minimize minimises fn from x0 (or from resume, when non-nil) with L-BFGS:
// the two-loop recursion with the initial scaling sᵀy/yᵀy and gonum's
// Moré–Thuente line search with the reference's dcsrch settings (ftol =
// 1e-3, gtol = 0.9). The first step along −g has length min(1/‖g‖₂, 1e10),
// later trial steps are 1. When a line search fails the memory is dropped
// and steepest descent is tried once before giving up (or tightening a
// Tightener's tolerance).
//
// It returns an error when an evaluation fails (a numerical failure at a
// trial point only shortens the step), ctx is cancelled or the observer
// fails; the Result then still holds the last accepted state.
func Minimize(ctx context.Context, fn Function, x0 []float64, s *Settings, resume *State) (*Result, error) {
	set, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	st, err := startState(fn, x0, resume)
	if err != nil {
		return nil, err
	}
	m := &lbfgs{fn: fn, set: set, st: st, start: time.Now(), dir: make([]float64, len(st.X)),
		xt: make([]float64, len(st.X)), gt: make([]float64, len(st.X)), alpha: make([]float64, set.History)}
	res := &Result{State: st}
	tt, _ := fn.(Tightener)
	for {
		status, err := m.run(ctx)
		if err == nil && status == LinesearchFailure && tt != nil && tt.Tighten() {
			res.Tightened++
			if err = m.reevaluate(tt); err == nil {
				continue
			}
		}
		res.X, res.F, res.Status = st.X, st.F, status
		return res, err
	}
}

// withDefaults returns s (nil: all defaults) with its zero fields defaulted.
func (s *Settings) withDefaults() (Settings, error) {
	var set Settings
	if s != nil {
		set = *s
	}
	set.MaxIter = cmp.Or(set.MaxIter, 500)
	set.History = cmp.Or(set.History, 20)
	set.MaxLinesearch = cmp.Or(set.MaxLinesearch, 20)
	set.FTol = cmp.Or(set.FTol, 1e7*2.220446049250313e-16)
	set.GTol = cmp.Or(set.GTol, 1e-5)
	set.MaxEvals = cmp.Or(set.MaxEvals, 15000)
	if set.MaxIter < 0 || set.History < 0 || set.MaxLinesearch < 0 || set.MaxEvals < 0 {
		return set, fmt.Errorf("learn: negative optimiser setting in %+v", set)
	}
	set.Observer = cmp.Or[Observer](set.Observer, NopObserver{})
	return set, nil
}

// startState returns a copy of resume, or the state at x0 after its first
// evaluation (which an Accepter is told of).
func startState(fn Function, x0 []float64, resume *State) (*State, error) {
	if resume != nil {
		st := resume.Clone()
		if len(st.X) == 0 || len(st.G) != len(st.X) {
			return nil, errors.New("learn: resume state has no point or a gradient of the wrong length")
		}
		return st, nil
	}
	st := &State{X: append([]float64(nil), x0...), G: make([]float64, len(x0))}
	f, err := fn.Eval(st.G, st.X)
	st.Evals = 1
	if err != nil {
		return nil, fmt.Errorf("learn: evaluate at the starting point: %w", err)
	}
	st.F = f
	if acc, ok := fn.(Accepter); ok {
		acc.Accept(st.X, st.F)
	}
	return st, nil
}

// lbfgs is one run of Minimize.
type lbfgs struct {
	fn                 Function
	set                Settings
	st                 *State
	start              time.Time
	dir, xt, gt, alpha []float64
	ft                 float64 // F at xt
}

// run iterates from m.st until a stopping rule holds, and returns it.
func (m *lbfgs) run(ctx context.Context) (Status, error) {
	st, set := m.st, &m.set
	for {
		if set.GTol > 0 && floats.Norm(st.G, math.Inf(1)) <= set.GTol {
			return GradientConvergence, nil
		}
		if err := ctx.Err(); err != nil {
			return Cancelled, fmt.Errorf("learn: %w", err)
		}
		if st.Iter >= set.MaxIter {
			return IterationLimit, nil
		}
		if st.Evals >= set.MaxEvals {
			return EvaluationLimit, nil
		}
		accepted, status, err := m.search(ctx)
		if err != nil || !accepted {
			return status, err
		}
		fold := st.F
		if err := m.accept(); err != nil {
			return Cancelled, err
		}
		if set.FTol > 0 && (fold-st.F)/math.Max(math.Max(math.Abs(fold), math.Abs(st.F)), 1) <= set.FTol {
			return FunctionConvergence, nil
		}
	}
}

// search runs the line search of one iteration, from the L-BFGS direction
// and, when that fails, from steepest descent. It reports whether a step
// was accepted (then at m.xt, m.gt, m.ft) and otherwise why the run stops.
func (m *lbfgs) search(ctx context.Context) (bool, Status, error) {
	st, set := m.st, &m.set
	for attempt := 0; attempt < 2; attempt++ {
		step := st.direction(m.dir, m.alpha)
		slope := floats.Dot(st.G, m.dir)
		if !(slope < 0) {
			st.S, st.Y, st.Rho = st.S[:0], st.Y[:0], st.Rho[:0]
			step = st.direction(m.dir, m.alpha)
			slope = floats.Dot(st.G, m.dir)
		}
		accepted, status, err := m.lineSearch(ctx, attempt > 0, step, slope)
		if err != nil || accepted {
			return accepted, status, err
		}
		if len(st.S) == 0 {
			break
		}
		st.S, st.Y, st.Rho = st.S[:0], st.Y[:0], st.Rho[:0]
	}
	if st.Evals >= set.MaxEvals {
		return false, EvaluationLimit, nil
	}
	return false, LinesearchFailure, nil
}

// lineSearch runs the Moré–Thuente search along m.dir from the initial
// step, slope = gᵀd, and reports whether it accepted a step.
func (m *lbfgs) lineSearch(ctx context.Context, steepest bool, step, slope float64) (bool, Status, error) {
	st, set := m.st, &m.set
	ls := &optimize.MoreThuente{DecreaseFactor: 1e-3, CurvatureFactor: 0.9}
	ls.Init(st.F, slope, step)
	for k := 0; k < set.MaxLinesearch && st.Evals < set.MaxEvals; k++ {
		// A cancelled run stops before the next trial evaluation, at the
		// last accepted point (a 32³ line search can take minutes).
		if err := ctx.Err(); err != nil {
			return false, Cancelled, fmt.Errorf("learn: %w", err)
		}
		floats.AddScaledTo(m.xt, st.X, step, m.dir)
		f, err := m.fn.Eval(m.gt, m.xt)
		st.Evals++
		if err != nil {
			if !numericalTrouble(err) {
				return false, 0, fmt.Errorf("learn: evaluation %d: %w", st.Evals, err)
			}
			// The trial step left the region where the model is
			// computable: restart the line search with a tenth of it.
			step /= 10
			ls = &optimize.MoreThuente{DecreaseFactor: 1e-3, CurvatureFactor: 0.9}
			ls.Init(st.F, slope, step)
			continue
		}
		m.ft = f
		deriv := floats.Dot(m.gt, m.dir)
		set.Observer.Trial(Trial{Iter: st.Iter + 1, Index: k, Steepest: steepest, Step: step, F0: st.F, Slope: slope, F: f, Deriv: deriv})
		op, next, lerr := ls.Iterate(f, deriv)
		if lerr != nil {
			return false, 0, nil
		}
		if op == optimize.MajorIteration {
			return true, 0, nil
		}
		step = next
	}
	return false, 0, nil
}

// accept moves the state to the accepted trial point and reports it.
func (m *lbfgs) accept() error {
	st := m.st
	st.push(m.xt, m.gt, m.set.History)
	copy(st.X, m.xt)
	copy(st.G, m.gt)
	st.F = m.ft
	st.Iter++
	st.Losses = append(st.Losses, m.ft)
	if acc, ok := m.fn.(Accepter); ok {
		acc.Accept(st.X, st.F)
	}
	p := &Progress{Iter: st.Iter, F: st.F, GradNorm: floats.Norm(st.G, 2), GradMax: floats.Norm(st.G, math.Inf(1)),
		Evals: st.Evals, Elapsed: time.Since(m.start), X: st.X, State: st}
	if err := m.set.Observer.Iteration(p); err != nil {
		return fmt.Errorf("learn: stopped by the observer: %w", err)
	}
	return nil
}

// reevaluate evaluates the accepted point again, from its warm start,
// after tt tightened its tolerance.
func (m *lbfgs) reevaluate(tt Tightener) error {
	st := m.st
	tt.RestoreAccepted()
	fx, err := m.fn.Eval(m.gt, st.X)
	st.Evals++
	if err != nil {
		return fmt.Errorf("learn: re-evaluating after tightening the tolerance: %w", err)
	}
	copy(st.G, m.gt)
	st.F = fx
	tt.Accept(st.X, fx)
	return nil
}

// numericalTrouble reports errors that mean "this trial point is outside the
// computable region" rather than a broken setup: a value that is not
// finite, a weight or metric out of range, a factorisation that met a
// non-positive pivot (weights so far apart that rounding dominates), or a
// tolerance-mode correction out of range.
func numericalTrouble(err error) bool {
	return errors.Is(err, ot.ErrNonFinite) || errors.Is(err, kernel.ErrBadWeight) ||
		errors.Is(err, errMetricOverflow) || errors.Is(err, factor.ErrNotPosDef) ||
		errors.Is(err, errCorrection)
}

// direction writes −H·g into dir with the two-loop recursion and returns the
// initial trial step: 1, or min(1/‖g‖₂, 1e10) without memory.
func (st *State) direction(dir, alpha []float64) float64 {
	copy(dir, st.G)
	m := len(st.S)
	for k := m - 1; k >= 0; k-- {
		alpha[k] = st.Rho[k] * floats.Dot(st.S[k], dir)
		floats.AddScaled(dir, -alpha[k], st.Y[k])
	}
	if m > 0 {
		y := st.Y[m-1]
		floats.Scale(1/(st.Rho[m-1]*floats.Dot(y, y)), dir)
	}
	for k := 0; k < m; k++ {
		beta := st.Rho[k] * floats.Dot(st.Y[k], dir)
		floats.AddScaled(dir, alpha[k]-beta, st.S[k])
	}
	floats.Scale(-1, dir)
	if m == 0 {
		return math.Min(1/floats.Norm(st.G, 2), 1e10)
	}
	return 1
}

// push stores the correction pair (xt−x, gt−g) unless its curvature is not
// safely positive, dropping the oldest beyond history.
func (st *State) push(xt, gt []float64, history int) {
	var s, y []float64
	if len(st.S) == history {
		s, y = st.S[0], st.Y[0]
		copy(st.S, st.S[1:])
		copy(st.Y, st.Y[1:])
		copy(st.Rho, st.Rho[1:])
		st.S, st.Y, st.Rho = st.S[:history-1], st.Y[:history-1], st.Rho[:history-1]
	} else {
		s, y = make([]float64, len(xt)), make([]float64, len(xt))
	}
	floats.SubTo(s, xt, st.X)
	floats.SubTo(y, gt, st.G)
	sy, yy := floats.Dot(s, y), floats.Dot(y, y)
	if !(sy > 2.220446049250313e-16*yy) {
		return
	}
	st.S, st.Y, st.Rho = append(st.S, s), append(st.Y, y), append(st.Rho, 1/sy)
}

// Clone returns a deep copy of the state.
func (s *State) Clone() *State {
	c := &State{Iter: s.Iter, Evals: s.Evals, F: s.F,
		X: append([]float64(nil), s.X...), G: append([]float64(nil), s.G...),
		Rho: append([]float64(nil), s.Rho...), Losses: append([]float64(nil), s.Losses...)}
	for k := range s.S {
		c.S = append(c.S, append([]float64(nil), s.S[k]...))
		c.Y = append(c.Y, append([]float64(nil), s.Y[k]...))
	}
	return c
}
