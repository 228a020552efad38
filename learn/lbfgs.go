package learn

import (
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

// Function is what the optimiser minimises: F(x) and its gradient in one pass.
// *Objective implements it.
type Function interface {
	Eval(grad, x []float64) (float64, error)
}

// Settings configures Minimize. A nil *Settings and zero fields mean the
// defaults, which mirror the reference's scipy fmin_l_bfgs_b call
// (docs/method.md, "Optimiser").
type Settings struct {
	// MaxIter bounds the accepted iterations; 0 means 500.
	MaxIter int
	// History is the number of correction pairs kept (m); 0 means 20.
	History int
	// MaxLinesearch bounds the evaluations of one line search (maxls); 0
	// means 20.
	MaxLinesearch int
	// FTol stops when (f_k − f_{k+1})/max(|f_k|,|f_{k+1}|,1) ≤ FTol; 0 means
	// factr·eps = 1e7·2.22e-16 (scipy's default). Negative disables.
	FTol float64
	// GTol stops when ‖g‖∞ ≤ GTol; 0 means 1e-5 (scipy's pgtol). Negative
	// disables.
	GTol float64
	// MaxEvals bounds the objective evaluations; 0 means 15000.
	MaxEvals int
	// Observer, if set, receives every accepted iteration
	// (Observer.Iteration, whose error stops the optimisation with that
	// error, wrapped) and every line-search evaluation that returned a
	// value (Observer.Trial); Run also sends it its levels, polish scores
	// and checkpoints. nil observes nothing.
	Observer Observer
}

// Trial describes one line-search evaluation: the point x + Step·d of
// iteration Iter (counting from 1), its Index-th trial (from 0) on the
// L-BFGS direction or, when Steepest, on −g after the memory was dropped;
// F0 and Slope = gᵀd at x, F and Deriv = ∇F(x + Step·d)ᵀd at the trial.
// Sufficient decrease is F ≤ F0 + 1e-3·Step·Slope, the curvature condition
// |Deriv| ≤ 0.9·|Slope|.
type Trial struct {
	Iter, Index               int
	Steepest                  bool
	Step, F0, Slope, F, Deriv float64
}

// Progress is what Observer.Iteration receives after each accepted iteration. Its
// slices are the optimiser's own: copy them to keep them.
type Progress struct {
	Iter     int           // accepted iterations so far, counting from 1
	F        float64       // objective at X
	GradNorm float64       // ‖∇F(X)‖₂
	GradMax  float64       // ‖∇F(X)‖∞
	Evals    int           // objective evaluations so far (including x0)
	Elapsed  time.Duration // since Minimize started (not counting a resumed run's past)
	X        []float64     // current point (log metric)
	State    *State        // everything needed to resume from here
	// Level is the index of Run's current level (0 outside Run); X and
	// State are that level's.
	Level int
}

// State is the optimiser's complete state at an accepted iterate: resuming
// from it continues exactly as the uninterrupted run would (the objective is
// deterministic).
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
	// IterationLimit: MaxIter accepted iterations.
	IterationLimit Status = iota + 1
	// FunctionConvergence: the relative decrease fell below FTol.
	FunctionConvergence
	// GradientConvergence: ‖g‖∞ ≤ GTol.
	GradientConvergence
	// EvaluationLimit: MaxEvals evaluations.
	EvaluationLimit
	// LinesearchFailure: no acceptable step even from steepest descent.
	LinesearchFailure
	// Cancelled: the context was cancelled or the observer returned an error.
	Cancelled
	// ExactRose: Run stopped its finest fast level for the polish
	// because the exact objective of its iterates rose (see Polish).
	ExactRose
)

func (s Status) String() string {
	switch s {
	case IterationLimit:
		return "iteration limit"
	case FunctionConvergence:
		return "converged (relative reduction of f ≤ ftol)"
	case GradientConvergence:
		return "converged (‖g‖∞ ≤ gtol)"
	case EvaluationLimit:
		return "evaluation limit"
	case LinesearchFailure:
		return "line search failed"
	case Cancelled:
		return "cancelled"
	case ExactRose:
		return "stopped for the exact polish (the exact objective of the iterates rose)"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is the outcome of Minimize. State is the last accepted state, from
// which the run can be resumed.
type Result struct {
	X      []float64
	F      float64
	Status Status
	State  *State
	// Tightened counts the tolerance tightenings of a Tightener (0
	// otherwise).
	Tightened int
}

// Tightener is implemented by a Function whose values are exact only to a
// tolerance that it can tighten (a tolerance-mode Objective): on a plateau the
// objective's tolerance-level noise can defeat the line search. When a line
// search fails, Minimize calls Tighten; if it reports true (the tolerance
// was divided by 10, within the function's own budget), Minimize makes the
// next evaluation start from the last accepted point's state
// (RestoreAccepted), re-evaluates that point, tells the function it is
// accepted and continues with its iteration count and L-BFGS memory.
type Tightener interface {
	Accepter
	Tighten() bool
	RestoreAccepted()
}

// Minimize minimises fn from x0 (or from resume, when non-nil, ignoring x0)
// with L-BFGS: the two-loop recursion with m = History correction pairs and
// the initial scaling sᵀy/yᵀy, and gonum's Moré–Thuente line search
// (optimize.MoreThuente with ftol = 1e-3, gtol = 0.9, the settings of the
// reference's dcsrch). The first step along −g has length min(1/‖g‖₂, 1e10),
// later trial steps are 1. When a line search fails the memory is dropped
// and steepest descent is tried once before giving up, or, for a
// Tightener, before tightening its tolerance and going on.
//
// It returns an error when an evaluation fails (except that a non-finite
// objective at a trial point only shortens the step), or when ctx is
// cancelled or the observer fails; the Result is then still valid and holds
// the last accepted state.
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
			if err := m.reevaluate(tt); err != nil {
				res.X, res.F, res.Status = st.X, st.F, status
				return res, err
			}
			continue
		}
		res.X, res.F, res.Status = st.X, st.F, status
		return res, err
	}
}

// withDefaults returns the settings s (nil: all defaults) with their zero
// fields replaced by the defaults.
func (s *Settings) withDefaults() (Settings, error) {
	var set Settings
	if s != nil {
		set = *s
	}
	if set.MaxIter == 0 {
		set.MaxIter = 500
	}
	if set.History == 0 {
		set.History = 20
	}
	if set.MaxLinesearch == 0 {
		set.MaxLinesearch = 20
	}
	if set.FTol == 0 {
		set.FTol = 1e7 * 2.220446049250313e-16
	}
	if set.GTol == 0 {
		set.GTol = 1e-5
	}
	if set.MaxEvals == 0 {
		set.MaxEvals = 15000
	}
	if set.MaxIter < 0 || set.History < 0 || set.MaxLinesearch < 0 || set.MaxEvals < 0 {
		return set, fmt.Errorf("learn: negative optimiser setting in %+v", set)
	}
	if set.Observer == nil {
		set.Observer = NopObserver{}
	}
	return set, nil
}

// startState returns a copy of resume, or the state at x0 after its first
// evaluation (which an Accepter is told of).
func startState(fn Function, x0 []float64, resume *State) (*State, error) {
	if resume != nil {
		st := cloneState(resume)
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

// lbfgs is one run of Minimize: the function, the settings, the state and
// the work buffers of the line search.
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
	if set.GTol > 0 && floats.Norm(st.G, math.Inf(1)) <= set.GTol {
		return GradientConvergence, nil
	}
	for {
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
		if set.GTol > 0 && floats.Norm(st.G, math.Inf(1)) <= set.GTol {
			return GradientConvergence, nil
		}
	}
}

// search runs the line search of one iteration, from the L-BFGS direction
// and, when that fails, once more from steepest descent after dropping the
// memory. It reports whether a step was accepted (then at m.xt, m.gt,
// m.ft) and otherwise why the run stops.
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

// accept moves the state to the accepted trial point and reports the
// iteration to the function (Accepter) and the observer.
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

// reevaluate evaluates the accepted point again after tt tightened its
// tolerance, from the accepted point's warm start, and makes it the
// accepted point with its new value and gradient.
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
// finite, a weight or metric out of range, a heat system that is positive
// definite in exact arithmetic but whose factorisation met a non-positive
// pivot (weights so far apart that rounding dominates), or a tolerance-mode
// correction out of range.
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
	st.S = append(st.S, s)
	st.Y = append(st.Y, y)
	st.Rho = append(st.Rho, 1/sy)
}

func cloneState(s *State) *State {
	c := &State{Iter: s.Iter, Evals: s.Evals, F: s.F,
		X: append([]float64(nil), s.X...), G: append([]float64(nil), s.G...),
		Rho: append([]float64(nil), s.Rho...), Losses: append([]float64(nil), s.Losses...)}
	for k := range s.S {
		c.S = append(c.S, append([]float64(nil), s.S[k]...))
		c.Y = append(c.Y, append([]float64(nil), s.Y[k]...))
	}
	return c
}

// Clone returns a deep copy of the state (for checkpoints).
func (s *State) Clone() *State { return cloneState(s) }
