package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/cputime"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot"
)

// Spec is one measurement: a row, a backend and the learner's settings. It
// is what the parent sends to a child process (as JSON). Zero fields take
// the defaults of Defaults.
type Spec struct {
	Row     Row
	Backend string // "cholmod", "go", …
	// Iters is the number of L-BFGS iterations to run; 0 means 3.
	Iters int
	// Frames of the synthetic sequence; 0 means 10.
	Frames int
	// Sinkhorn iterations L; 0 means 50.
	Sinkhorn int
	// T is the diffusion time t_heat; 0 means the paper's setting for the
	// row's dimension (3e-3 in 2-D, the README's figures 3–6; 1e-3 in 3-D,
	// the colour run).
	T float64
	// LambdaS weights f_s; 0 means the README's value for the dimension
	// (0.03 in 2-D, figures 3–4; 1 in 3-D, the colour run). Negative
	// disables it.
	LambdaS float64
	// EvalOnly times a single objective + gradient evaluation at x0
	// instead of running L-BFGS iterations, and extrapolates with
	// AssumedEvalsPerIter evaluations per iteration (for the big rows on a
	// busy machine, and the CI's quick mode).
	EvalOnly bool
	// Store selects the heat kernel's Store memory strategy (the
	// reference's: every sub-step is kept) instead of Recompute.
	Store bool
}

// Defaults returns s with its zero fields filled in.
func (s Spec) Defaults() Spec {
	if s.Iters == 0 {
		s.Iters = 3
	}
	if s.Frames == 0 {
		s.Frames = 10
	}
	if s.Sinkhorn == 0 {
		s.Sinkhorn = 50
	}
	if s.T == 0 {
		s.T = 3e-3
		if s.Row.D == 3 {
			s.T = 1e-3
		}
	}
	if s.LambdaS == 0 {
		s.LambdaS = 0.03
		if s.Row.D == 3 {
			s.LambdaS = 1
		}
	}
	if s.Backend == "" {
		s.Backend = kernel.DefaultBackend().Name()
	}
	return s
}

// AssumedEvalsPerIter is the number of evaluations per L-BFGS iteration
// assumed by EvalOnly measurements: the middle of the 1.1–1.7 that the
// reference's L-BFGS-B spends (docs/method.md, "Optimiser").
const AssumedEvalsPerIter = 1.4

// Measurement is the outcome of one Spec. Durations are in seconds. MaxRSS
// is filled in by the parent from the child's resource usage (0 when
// measured in-process).
type Measurement struct {
	Spec     Spec
	Backend  string // as reported by the factor
	Ordering string
	NNZL     int
	Threads  int // GOMAXPROCS of the measuring process

	Setup     float64 // data generation + symbolic analysis
	FirstEval float64 // the evaluation at x0, included in Minimize
	Minimize  float64 // wall time of learn.Minimize
	Iters     int     // accepted L-BFGS iterations
	Evals     int     // objective evaluations, x0 included
	Status    string  // why Minimize stopped
	// MinimizeCPU is the process's CPU time (user + system, all threads)
	// during Minimize: on a shared machine it shows the work done,
	// independent of how much of the CPU the process got.
	MinimizeCPU float64

	// Derived figures (see Derive).
	SecPerEval   float64 // mean over all evaluations
	SecPerIter   float64 // (Minimize − FirstEval)/Iters
	EvalsPerIter float64 // (Evals − 1)/Iters, or AssumedEvalsPerIter for EvalOnly
	T500Hours    float64 // FirstEval + 500·SecPerIter, in hours
	CPUPerIter   float64 // MinimizeCPU per iteration, first evaluation's share removed
	// T500CPUHours is T500 from CPU time instead of wall time: what 500
	// iterations would take on an otherwise idle machine at most (CPU time
	// over all threads bounds the wall time of a process that had the
	// machine to itself).
	T500CPUHours float64

	// Work inside the factorisation backend, summed over goroutines (the
	// heat adjoint runs two solve chains concurrently).
	Solves         int64   // sub-step solves (one per Solve, S per S-step call, 2·S per adjoint)
	SolveColumns   int64   // right-hand sides solved
	SolveSeconds   float64 // time inside the solves, per solving thread
	Factorizations int64
	FactorSeconds  float64

	// Work and Span are those of the factor's supernodal tree
	// (factor.Tree.Span): Work/Span bounds the speed-up of a block solve
	// on any number of workers. Both are 0 for a backend without a tree.
	Work, Span float64
	// Sched8 and Sched16 are the speed-ups that the backend's own solve
	// schedule allows on 8 and 16 workers (factor.ScheduleReporter), 0
	// for a backend without one.
	Sched8, Sched16 float64

	F0, F float64 // objective at x0 and at the last accepted iterate

	MaxRSS int64 // peak resident set size of the child process, bytes
}

// Derive fills the derived figures from the raw ones.
func (m *Measurement) Derive() {
	m.SecPerEval, m.SecPerIter, m.EvalsPerIter, m.T500Hours, m.CPUPerIter, m.T500CPUHours = 0, 0, 0, 0, 0, 0
	if m.Evals > 0 {
		m.SecPerEval = m.Minimize / float64(m.Evals)
	}
	switch {
	case m.Iters > 0:
		m.SecPerIter = (m.Minimize - m.FirstEval) / float64(m.Iters)
		m.EvalsPerIter = float64(m.Evals-1) / float64(m.Iters)
	case m.Spec.EvalOnly && m.Evals > 0:
		m.EvalsPerIter = AssumedEvalsPerIter
		m.SecPerIter = m.SecPerEval * AssumedEvalsPerIter
	}
	if m.SecPerIter > 0 {
		m.T500Hours = T500(m.FirstEval, m.SecPerIter)
		if m.Minimize > 0 && m.MinimizeCPU > 0 {
			share := m.MinimizeCPU / m.Minimize
			m.CPUPerIter = share * m.SecPerIter
			m.T500CPUHours = T500(share*m.FirstEval, m.CPUPerIter)
		}
	}
}

// T500 extrapolates the time of 500 L-BFGS iterations, in hours, from the
// time of the first evaluation and the mean time of one iteration (seconds).
func T500(first, perIter float64) float64 { return (first + 500*perIter) / 3600 }

// Problem is a benchmark problem: a grid, its synthetic sequence and the
// learner's configuration.
type Problem struct {
	Graph    *kernel.Graph
	Sequence learn.Sequence
	Config   learn.Config
}

// NewProblem builds the deterministic problem of s on the row's grid: a
// 10-frame sequence of Sinkhorn barycenters (gmlg's forward model) under a
// known smooth vertex metric — the reference's analytic metric and stick
// poles in 2-D, Metric3D and two Gaussian poles in 3-D — and the learner's
// configuration (L-BFGS on the log vertex metric, loss N·L2², λ_s on f_s).
// The backend is the one named in s, wrapped by counters into stats when
// stats is non-nil.
func NewProblem(s Spec, stats *SolveStats) (*Problem, error) {
	s = s.Defaults()
	r := s.Row
	g, err := kernel.Cube(r.D, r.N)
	if err != nil {
		return nil, fmt.Errorf("bench: grid %v: %w", r, err)
	}
	be, err := kernel.Backend(s.Backend)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var poles [2]synth.Pole
	var theta []float64
	if r.D == 2 {
		poles = [2]synth.Pole{synth.StickTopLeft, synth.StickBottomRight}
		theta = synth.AnalyticMetric(r.N)
	} else {
		poles = [2]synth.Pole{
			{Shape: "gauss", X0: 0.25, Y0: 0.3, Z0: 0.3, Sigma: 0.12},
			{Shape: "gauss", X0: 0.75, Y0: 0.65, Z0: 0.7, Sigma: 0.12},
		}
		theta = Metric3D(r.N)
	}
	var pq [2][]float64
	for k, p := range poles {
		if pq[k], err = p.Histogram(r.D, r.N); err != nil {
			return nil, fmt.Errorf("bench: pole %d: %w", k, err)
		}
	}
	heat := kernel.HeatOptions{T: s.T, Steps: r.Steps, Backend: be}
	frames, err := synth.Generate(&synth.Config{
		Graph: g, Metric: kernel.VertexMetric{G: g}, Theta: theta, Heat: heat,
		Iterations: s.Sinkhorn, Frames: s.Frames, Poles: [][2][]float64{pq},
	})
	if err != nil {
		return nil, fmt.Errorf("bench: generate %v: %w", r, err)
	}
	if stats != nil {
		heat.Backend = &countingFactorizer{inner: be, stats: stats}
	}
	if s.Store {
		heat.Memory = kernel.Store
	}
	lambdaS := s.LambdaS
	if lambdaS < 0 {
		lambdaS = 0
	}
	return &Problem{
		Graph:    g,
		Sequence: learn.Sequence{Frames: frames[0]},
		Config:   learn.Config{Heat: heat, Sinkhorn: ot.Settings{Iterations: s.Sinkhorn}, LambdaS: lambdaS},
	}, nil
}

// Metric3D is a smooth positive analytic vertex metric on the 3-D grid of
// side n, as the [3,N] array θ[p·N+i] (axis 0 fastest): component p is
// 1 + 0.6·sin(2π(x_p + p/3))·cos(π·x_{p+1 mod 3}) on unit coordinates, so
// it lies in [0.4, 1.6] and varies along every axis.
func Metric3D(n int) []float64 {
	N := n * n * n
	th := make([]float64, 3*N)
	for i := 0; i < N; i++ {
		x := [3]float64{
			float64(i%n) / float64(n-1),
			float64((i/n)%n) / float64(n-1),
			float64(i/(n*n)) / float64(n-1),
		}
		for p := 0; p < 3; p++ {
			th[p*N+i] = 1 + 0.6*math.Sin(2*math.Pi*(x[p]+float64(p)/3))*math.Cos(math.Pi*x[(p+1)%3])
		}
	}
	return th
}

// timedFunc times every evaluation of the objective.
type timedFunc struct {
	obj   *learn.Objective
	evals int
	first time.Duration
	f0    float64
}

func (t *timedFunc) Eval(grad, x []float64) (float64, error) {
	start := time.Now()
	f, err := t.obj.Eval(grad, x)
	if t.evals == 0 {
		t.first, t.f0 = time.Since(start), f
	}
	t.evals++
	return f, err
}

// Measure runs s in the current process: it builds the problem, then runs
// s.Iters iterations of learn.Minimize from the unit metric (x = 0) with the
// convergence tests disabled, and reports timings and backend counters.
// MaxRSS is left 0; Run measures it in a child process.
func Measure(ctx context.Context, s Spec) (*Measurement, error) {
	s = s.Defaults()
	m := &Measurement{Spec: s, Threads: runtime.GOMAXPROCS(0)}
	stats := &SolveStats{}
	start := time.Now()
	p, err := NewProblem(s, stats)
	if err != nil {
		return nil, err
	}
	obj, err := learn.NewObjective(p.Graph, []learn.Sequence{p.Sequence}, &p.Config)
	if err != nil {
		return nil, fmt.Errorf("bench: %v: %w", s.Row, err)
	}
	defer obj.Close()
	m.Setup = time.Since(start).Seconds()
	// The data generation's buffers are garbage now: return them to the OS
	// so that the peak RSS is the learner's, not the generator's.
	debug.FreeOSMemory()
	stats.reset()
	fn := &timedFunc{obj: obj}
	x0 := make([]float64, obj.Dim())
	t0, c0 := time.Now(), cputime.Used()
	var res *learn.Result
	if s.EvalOnly {
		grad := make([]float64, len(x0))
		var f float64
		f, err = fn.Eval(grad, x0)
		res = &learn.Result{F: f, State: &learn.State{}, Status: learn.IterationLimit}
	} else {
		res, err = learn.Minimize(ctx, fn, x0, &learn.Settings{MaxIter: s.Iters, FTol: -1, GTol: -1}, nil)
	}
	m.Minimize = time.Since(t0).Seconds()
	m.MinimizeCPU = (cputime.Used() - c0).Seconds()
	if err != nil && (res == nil || !errors.Is(err, context.Canceled)) {
		return nil, fmt.Errorf("bench: %v on %s: %w", s.Row, s.Backend, err)
	}
	info := obj.Heat().Info()
	m.Backend, m.Ordering, m.NNZL = info.Backend, info.Ordering, info.NNZL
	if cf, ok := p.Config.Heat.Backend.(*countingFactorizer); ok {
		if m.Work, m.Span, err = cf.span(); err != nil {
			return nil, fmt.Errorf("bench: %v on %s: %w", s.Row, s.Backend, err)
		}
		if m.Sched8, m.Sched16, err = cf.schedule(); err != nil {
			return nil, fmt.Errorf("bench: %v on %s: %w", s.Row, s.Backend, err)
		}
	}
	m.FirstEval = fn.first.Seconds()
	m.Evals = fn.evals
	m.Iters = res.State.Iter
	m.Status = res.Status.String()
	if s.EvalOnly {
		m.Status = "one evaluation"
	}
	m.F0, m.F = fn.f0, res.F
	m.Solves, m.SolveColumns = stats.solves.Load(), stats.cols.Load()
	m.SolveSeconds = time.Duration(stats.solveNanos.Load()).Seconds()
	m.Factorizations = stats.factors.Load()
	m.FactorSeconds = time.Duration(stats.factorNanos.Load()).Seconds()
	m.Derive()
	return m, err
}

// SolveStats counts the work done inside a factorisation backend. It is safe
// for concurrent use.
type SolveStats struct {
	solves, cols, solveNanos atomic.Int64
	factors, factorNanos     atomic.Int64
}

func (s *SolveStats) reset() {
	s.solves.Store(0)
	s.cols.Store(0)
	s.solveNanos.Store(0)
	s.factors.Store(0)
	s.factorNanos.Store(0)
}

// countingFactorizer wraps a backend and times its Factorize and Solve calls.
// It keeps the last factor it analysed, for span.
type countingFactorizer struct {
	inner factor.Factorizer
	stats *SolveStats
	last  factor.Factor
}

// span returns the work and span of the last analysed factor's tree, or
// zeros when its backend reports none.
func (c *countingFactorizer) span() (work, span float64, err error) {
	tr, ok := c.last.(factor.TreeReporter)
	if !ok {
		return 0, 0, nil
	}
	t, err := tr.Tree()
	if err != nil {
		return 0, 0, err
	}
	return t.Span()
}

// schedule returns the speed-ups that the last analysed factor's own solve
// schedule allows on 8 and 16 workers, or zeros when it has none.
func (c *countingFactorizer) schedule() (p8, p16 float64, err error) {
	sr, ok := c.last.(factor.ScheduleReporter)
	if !ok {
		return 0, 0, nil
	}
	var out [2]float64
	for k, p := range []int{8, 16} {
		w, t, err := sr.ScheduleTime(p)
		if err != nil {
			return 0, 0, err
		}
		out[k] = w / t
	}
	return out[0], out[1], nil
}

func (c *countingFactorizer) Name() string { return c.inner.Name() }

// Analyze wraps the factor when it is a factor.StepSolver, the heat
// kernel's contract (which refuses any other).
func (c *countingFactorizer) Analyze(p *factor.Pattern, opt *factor.Options) (factor.Factor, error) {
	f, err := c.inner.Analyze(p, opt)
	if err != nil {
		return nil, err
	}
	c.last = f
	ss, ok := f.(factor.StepSolver)
	if !ok {
		return f, nil
	}
	team, _ := f.(factor.ScheduleReporter)
	return &countingFactor{StepSolver: ss, stats: c.stats, team: team}, nil
}

// count records solves sub-step solves of cols columns that took d of wall
// time on each of threads threads.
func (s *SolveStats) count(solves, cols, threads int, d time.Duration) {
	s.solves.Add(int64(solves))
	s.cols.Add(int64(solves * cols))
	s.solveNanos.Add(int64(threads) * int64(d))
}

// countingFactor counts the work of a factor.StepSolver, which it
// forwards. A call of S steps counts S solves (2·S for an adjoint,
// which runs two chains) and its wall time once per thread it ran on: for
// a factor whose solves run on a team of workers (the engine, which
// reports its schedule) the team's size for GOMAXPROCS within the CPUs,
// or the sum of the two half-teams' for a parallel adjoint; two for a
// parallel adjoint's chains on another factor.
type countingFactor struct {
	factor.StepSolver
	stats *SolveStats
	team  factor.ScheduleReporter // nil if the factor has none
}

func (c *countingFactor) Factorize(values []float64) error {
	t := time.Now()
	err := c.StepSolver.Factorize(values)
	c.stats.factors.Add(1)
	c.stats.factorNanos.Add(int64(time.Since(t)))
	return err
}

// threads is the number of threads a call ran on: split when it ran on
// two halves (a parallel adjoint's two chains).
func (c *countingFactor) threads(split bool) int {
	switch p := min(runtime.GOMAXPROCS(0), runtime.NumCPU()); {
	case c.team != nil && split:
		return c.team.TeamSize(max(1, p/2)) + c.team.TeamSize(max(1, p-p/2))
	case c.team != nil:
		return c.team.TeamSize(p)
	case split:
		return 2
	}
	return 1
}

func (c *countingFactor) SolveSteps(out, b []float64, cols, steps int, keep, reverse bool) error {
	t := time.Now()
	err := c.StepSolver.SolveSteps(out, b, cols, steps, keep, reverse)
	c.stats.count(steps, cols, c.threads(false), time.Since(t))
	return err
}

func (c *countingFactor) AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error {
	t := time.Now()
	err := c.StepSolver.AdjointSteps(gsrc, gw, src, g, cols, steps, from, to, coef, parallel)
	c.stats.count(2*steps, cols, c.threads(parallel), time.Since(t))
	return err
}

func availableBackends() []string { return kernel.Backends() }

func newObjective(p *Problem) (*learn.Objective, error) {
	return learn.NewObjective(p.Graph, []learn.Sequence{p.Sequence}, &p.Config)
}
