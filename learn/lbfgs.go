package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gmlg/gmlg/kernel"
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
	// Callback, if set, is called after every accepted iteration. Returning
	// an error stops the optimisation with that error (wrapped).
	Callback func(*Progress) error
	// Trial, if set, is called after every line-search evaluation that
	// returned a value (to log how line searches went).
	Trial func(Trial)
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

// Progress is what the callback receives after each accepted iteration. Its
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
	// Level is the index in the schedule of CoarseToFine's current level
	// (0 outside CoarseToFine); X and State are that level's.
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
	// Cancelled: the context was cancelled or the callback returned an error.
	Cancelled
	// ExactRose: CoarseToFine stopped its finest fast level for the polish
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
	// Tightened counts MinimizeFast's tolerance tightenings (0 otherwise).
	Tightened int
}

// Minimize minimises fn from x0 (or from resume, when non-nil, ignoring x0)
// with L-BFGS: the two-loop recursion with m = History correction pairs and
// the initial scaling sᵀy/yᵀy, and gonum's Moré–Thuente line search
// (optimize.MoreThuente with ftol = 1e-3, gtol = 0.9, the settings of the
// reference's dcsrch). The first step along −g has length min(1/‖g‖₂, 1e10),
// later trial steps are 1. When a line search fails the memory is dropped
// and steepest descent is tried once before giving up.
//
// It returns an error when an evaluation fails (except that a non-finite
// objective at a trial point only shortens the step), or when ctx is
// cancelled or the callback fails; the Result is then still valid and holds
// the last accepted state.
func Minimize(ctx context.Context, fn Function, x0 []float64, s *Settings, resume *State) (*Result, error) {
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
		return nil, fmt.Errorf("learn: negative optimiser setting in %+v", set)
	}
	start := time.Now()
	st := &State{}
	if resume != nil {
		st = cloneState(resume)
		if len(st.X) == 0 || len(st.G) != len(st.X) {
			return nil, errors.New("learn: resume state has no point or a gradient of the wrong length")
		}
	} else {
		st.X = append([]float64(nil), x0...)
		st.G = make([]float64, len(x0))
		f, err := fn.Eval(st.G, st.X)
		st.Evals = 1
		if err != nil {
			return nil, fmt.Errorf("learn: evaluate at the starting point: %w", err)
		}
		st.F = f
		if acc, ok := fn.(Accepter); ok {
			acc.Accept(st.X, st.F)
		}
	}
	dim := len(st.X)
	res := &Result{State: st}
	finish := func(status Status, err error) (*Result, error) {
		res.X, res.F, res.Status = st.X, st.F, status
		return res, err
	}
	if set.GTol > 0 && floats.Norm(st.G, math.Inf(1)) <= set.GTol {
		return finish(GradientConvergence, nil)
	}
	dir := make([]float64, dim)
	xt := make([]float64, dim)
	gt := make([]float64, dim)
	alpha := make([]float64, set.History)
	for {
		if err := ctx.Err(); err != nil {
			return finish(Cancelled, fmt.Errorf("learn: %w", err))
		}
		if st.Iter >= set.MaxIter {
			return finish(IterationLimit, nil)
		}
		if st.Evals >= set.MaxEvals {
			return finish(EvaluationLimit, nil)
		}
		var ft float64
		accepted := false
		for attempt := 0; attempt < 2 && !accepted; attempt++ {
			step := st.direction(dir, alpha)
			slope := floats.Dot(st.G, dir)
			if !(slope < 0) {
				st.S, st.Y, st.Rho = st.S[:0], st.Y[:0], st.Rho[:0]
				step = st.direction(dir, alpha)
				slope = floats.Dot(st.G, dir)
			}
			ls := &optimize.MoreThuente{DecreaseFactor: 1e-3, CurvatureFactor: 0.9}
			ls.Init(st.F, slope, step)
			for k := 0; k < set.MaxLinesearch && st.Evals < set.MaxEvals; k++ {
				// A cancelled run stops before the next trial evaluation,
				// at the last accepted point (a 32³ line search can take
				// minutes).
				if err := ctx.Err(); err != nil {
					return finish(Cancelled, fmt.Errorf("learn: %w", err))
				}
				floats.AddScaledTo(xt, st.X, step, dir)
				f, err := fn.Eval(gt, xt)
				st.Evals++
				if err != nil {
					if !numericalTrouble(err) {
						return finish(0, fmt.Errorf("learn: evaluation %d: %w", st.Evals, err))
					}
					// The trial step left the region where the model is
					// computable: restart the line search with a tenth of it.
					step /= 10
					ls = &optimize.MoreThuente{DecreaseFactor: 1e-3, CurvatureFactor: 0.9}
					ls.Init(st.F, slope, step)
					continue
				}
				ft = f
				deriv := floats.Dot(gt, dir)
				if set.Trial != nil {
					set.Trial(Trial{Iter: st.Iter + 1, Index: k, Steepest: attempt > 0, Step: step, F0: st.F, Slope: slope, F: f, Deriv: deriv})
				}
				op, next, lerr := ls.Iterate(f, deriv)
				if lerr != nil {
					break
				}
				if op == optimize.MajorIteration {
					accepted = true
					break
				}
				step = next
			}
			if !accepted {
				if len(st.S) == 0 {
					break
				}
				st.S, st.Y, st.Rho = st.S[:0], st.Y[:0], st.Rho[:0]
			}
		}
		if !accepted {
			if st.Evals >= set.MaxEvals {
				return finish(EvaluationLimit, nil)
			}
			return finish(LinesearchFailure, nil)
		}
		st.push(xt, gt, set.History)
		fold := st.F
		copy(st.X, xt)
		copy(st.G, gt)
		st.F = ft
		st.Iter++
		st.Losses = append(st.Losses, ft)
		if acc, ok := fn.(Accepter); ok {
			acc.Accept(st.X, st.F)
		}
		if set.Callback != nil {
			p := &Progress{Iter: st.Iter, F: st.F, GradNorm: floats.Norm(st.G, 2), GradMax: floats.Norm(st.G, math.Inf(1)),
				Evals: st.Evals, Elapsed: time.Since(start), X: st.X, State: st}
			if err := set.Callback(p); err != nil {
				return finish(Cancelled, fmt.Errorf("learn: stopped by callback: %w", err))
			}
		}
		if set.FTol > 0 && (fold-st.F)/math.Max(math.Max(math.Abs(fold), math.Abs(st.F)), 1) <= set.FTol {
			return finish(FunctionConvergence, nil)
		}
		if set.GTol > 0 && floats.Norm(st.G, math.Inf(1)) <= set.GTol {
			return finish(GradientConvergence, nil)
		}
	}
}

// numericalTrouble reports errors that mean "this trial point is outside the
// computable region" rather than a broken setup.
func numericalTrouble(err error) bool {
	return errors.Is(err, ot.ErrNonFinite) || errors.Is(err, kernel.ErrBadWeight) || errors.Is(err, errMetricOverflow)
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
