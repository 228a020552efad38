package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/cputime"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot"
)

// Spec is one measurement: a row, a backend and the learner's settings. It
// is what the parent sends to a child process (as JSON). Zero fields take
// the defaults of Defaults.
type Spec struct {
	Row      Row
	Backend  string // "cholmod", "go", …
	Iters    int    // L-BFGS iterations to run; 0 means 3
	Frames   int    // frames of the synthetic sequence; 0 means 10
	Sinkhorn int    // Sinkhorn iterations L; 0 means 50
	// T is the diffusion time t_heat and LambdaS the weight of f_s
	// (negative: none); 0 means the paper's settings for the row's
	// dimension: in 2-D t = 3e-3 (the README's figures 3–6) and λ_s = 0.03
	// (figures 3–4), in 3-D those of the colour run, 1e-3 and 1.
	T, LambdaS float64
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
	t, lambdaS := 3e-3, 0.03
	if s.Row.D == 3 {
		t, lambdaS = 1e-3, 1
	}
	s.Iters, s.Frames, s.Sinkhorn = cmp.Or(s.Iters, 3), cmp.Or(s.Frames, 10), cmp.Or(s.Sinkhorn, 50)
	s.T, s.LambdaS = cmp.Or(s.T, t), cmp.Or(s.LambdaS, lambdaS)
	if s.Backend == "" {
		s.Backend = kernel.DefaultBackend().Name()
	}
	return s
}

// AssumedEvalsPerIter is the number of evaluations per L-BFGS iteration
// assumed by EvalOnly measurements: the middle of the 1.1–1.7 that the
// reference's L-BFGS-B spends (docs/method.md, "Optimiser").
const AssumedEvalsPerIter = 1.4

// Measurement is the outcome of one Spec. Durations are in seconds. MaxRSS,
// the peak resident set size of the child process in bytes, is filled in
// by the parent from the child's resource usage (0 when measured
// in-process).
type Measurement struct {
	Spec              Spec
	Backend, Ordering string // as the factor reports them
	NNZL              int
	Threads           int // GOMAXPROCS of the measuring process

	FirstEval float64 // the evaluation at x0, included in Minimize
	Minimize  float64 // wall time of learn.Minimize
	Iters     int     // accepted L-BFGS iterations
	Evals     int     // objective evaluations, x0 included
	Status    string  // why Minimize stopped
	// MinimizeCPU is the process's CPU time (user + system, all threads)
	// during Minimize: on a shared machine it shows the work done,
	// independent of how much of the CPU the process got.
	MinimizeCPU float64

	// Derived figures (see Derive). T500CPUHours is T500 from CPU time
	// instead of wall time: what 500 iterations would take on an otherwise
	// idle machine at most (CPU time over all threads bounds the wall time
	// of a process that had the machine to itself).
	SecPerEval   float64 // mean over all evaluations
	SecPerIter   float64 // (Minimize − FirstEval)/Iters
	EvalsPerIter float64 // (Evals − 1)/Iters, or AssumedEvalsPerIter for EvalOnly
	T500Hours    float64 // FirstEval + 500·SecPerIter, in hours
	CPUPerIter   float64 // MinimizeCPU per iteration, first evaluation's share removed
	T500CPUHours float64

	// Work inside the factorisation backend, summed over goroutines.
	Solves         int64   // sub-step solves (S per S-step call, 2·S per adjoint)
	SolveColumns   int64   // right-hand sides solved
	SolveWall      float64 // wall time inside the solves
	Factorizations int64
	FactorSeconds  float64

	// KernelCols is the mean width of the blocks solved; KernelGFlops,
	// measured on one thread only, the speed of the factor's solves alone
	// at that width (kernelRate).
	KernelCols   int
	KernelGFlops float64

	// Work and Span are those of the factor's supernodal tree
	// (factor.Tree.Span): Work/Span bounds the speed-up of a block solve
	// on any number of workers. Sched8 and Sched16 are the speed-ups that
	// the backend's own solve schedule allows on 8 and 16 workers
	// (factor.ScheduleReporter). Each pair is 0 where the factor reports
	// none.
	Work, Span, Sched8, Sched16 float64

	F0, F  float64 // objective at x0 and at the last accepted iterate
	MaxRSS int64
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

// NewObjective builds the learner's objective (on the log vertex metric,
// loss N·L2², λ_s on f_s) for the deterministic problem of s on the row's
// grid: a 10-frame sequence of Sinkhorn barycenters (gmlg's forward model)
// under a known smooth vertex metric, the reference's analytic metric and
// stick poles in 2-D, Metric3D and two Gaussian poles in 3-D. The backend
// is the one named in s, wrapped by counters into stats when stats is
// non-nil.
func NewObjective(s Spec, stats *SolveStats) (*learn.Objective, error) {
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
	poles, theta := [2]synth.Pole{synth.StickTopLeft, synth.StickBottomRight}, synth.AnalyticMetric(r.N)
	if r.D == 3 {
		poles = [2]synth.Pole{{Shape: "gauss", X0: 0.25, Y0: 0.3, Z0: 0.3, Sigma: 0.12}, {Shape: "gauss", X0: 0.75, Y0: 0.65, Z0: 0.7, Sigma: 0.12}}
		theta = Metric3D(r.N)
	}
	var pq [2][]float64
	for k, p := range poles {
		if pq[k], err = p.Histogram(r.D, r.N); err != nil {
			return nil, fmt.Errorf("bench: pole %d: %w", k, err)
		}
	}
	heat := kernel.HeatOptions{T: s.T, Steps: r.Steps, Backend: be}
	frames, err := synth.Generate(&synth.Config{Graph: g, Metric: kernel.VertexMetric{G: g}, Theta: theta, Heat: heat,
		Iterations: s.Sinkhorn, Frames: s.Frames, Poles: [][2][]float64{pq}})
	if err != nil {
		return nil, fmt.Errorf("bench: generate %v: %w", r, err)
	}
	if stats != nil {
		heat.Backend = &countingFactorizer{Factorizer: be, stats: stats}
	}
	if s.Store {
		heat.Memory = kernel.Store
	}
	obj, err := learn.NewObjective(g, []learn.Sequence{{Frames: frames[0]}}, &learn.Config{Heat: heat, Sinkhorn: ot.Settings{Iterations: s.Sinkhorn}, LambdaS: max(s.LambdaS, 0)})
	if err != nil {
		return nil, fmt.Errorf("bench: %v on %s: %w", r, s.Backend, err)
	}
	return obj, nil
}

// Metric3D is a smooth positive analytic vertex metric on the 3-D grid of
// side n, as the [3,N] array θ[p·N+i] (axis 0 fastest): component p is
// 1 + 0.6·sin(2π(x_p + p/3))·cos(π·x_{p+1 mod 3}) on unit coordinates, so
// it lies in [0.4, 1.6] and varies along every axis.
func Metric3D(n int) []float64 {
	N, h := n*n*n, 1/float64(n-1)
	th := make([]float64, 3*N)
	for i := range N {
		x := [3]float64{h * float64(i%n), h * float64(i/n%n), h * float64(i/(n*n))}
		for p := range 3 {
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
// convergence tests disabled (or one evaluation), and reports timings and
// backend counters; then, on one thread, the speed of the factor's solves
// alone (kernelRate). MaxRSS is left 0; Run measures it in a child process.
func Measure(ctx context.Context, s Spec) (*Measurement, error) {
	s = s.Defaults()
	m, stats := &Measurement{Spec: s, Threads: runtime.GOMAXPROCS(0)}, &SolveStats{}
	fail := func(err error) (*Measurement, error) {
		return nil, fmt.Errorf("bench: %v on %s: %w", s.Row, s.Backend, err)
	}
	obj, err := NewObjective(s, stats)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	// The data generation's buffers are garbage now: return them to the OS
	// so that the peak RSS is the learner's, not the generator's.
	debug.FreeOSMemory()
	*stats = SolveStats{last: stats.last}
	fn, x0 := &timedFunc{obj: obj}, make([]float64, obj.Dim())
	t0, c0 := time.Now(), cputime.Used()
	res := &learn.Result{State: &learn.State{}, Status: learn.IterationLimit}
	if s.EvalOnly {
		res.F, err = fn.Eval(make([]float64, len(x0)), x0)
	} else {
		res, err = learn.Minimize(ctx, fn, x0, &learn.Settings{MaxIter: s.Iters, FTol: -1, GTol: -1}, nil)
	}
	m.Minimize, m.MinimizeCPU = time.Since(t0).Seconds(), (cputime.Used() - c0).Seconds()
	if err != nil && (res == nil || !errors.Is(err, context.Canceled)) {
		return fail(err)
	}
	info, f := obj.Heat().Info(), stats.last
	m.Backend, m.Ordering, m.NNZL = info.Backend, info.Ordering, info.NNZL
	if err := f.shape(m); err != nil {
		return fail(err)
	}
	m.FirstEval, m.Evals, m.Iters, m.Status, m.F0, m.F = fn.first.Seconds(), fn.evals, res.State.Iter, res.Status.String(), fn.f0, res.F
	if s.EvalOnly {
		m.Status = "one evaluation"
	}
	m.Solves, m.SolveColumns, m.Factorizations = stats.solves.Load(), stats.cols.Load(), stats.factors.Load()
	m.SolveWall, m.FactorSeconds = time.Duration(stats.wallNanos.Load()).Seconds(), time.Duration(stats.factorNanos.Load()).Seconds()
	m.Derive()
	if m.Solves > 0 {
		m.KernelCols = int(math.Round(float64(m.SolveColumns) / float64(m.Solves)))
	}
	if m.Solves > 0 && m.Threads == 1 && ctx.Err() == nil {
		rate, kerr := f.kernelRate(s.Row.Vertices(), m.KernelCols, s.Row.Steps)
		if kerr != nil {
			return fail(kerr)
		}
		m.KernelGFlops = rate / 1e9
	}
	return m, err
}
