package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
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
	// EvalOnly times one objective + gradient evaluation at x0 instead of
	// L-BFGS iterations, extrapolating with AssumedEvalsPerIter (for the
	// big rows on a busy machine, and the CI's quick mode).
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
	// during Minimize: the work done, whatever the load.
	MinimizeCPU float64

	// Derived figures (see Derive). T500CPUHours is T500 from CPU time: at
	// most what 500 iterations would take on an otherwise idle machine.
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

	// KernelCols is the mean width of the blocks solved. On one thread,
	// KernelApply and KernelAdjoint are the applications' (SolveSteps) and
	// the adjoint's (AdjointSteps) calls of one more evaluation, each made
	// twice (kernelRates), and KernelGFlops that evaluation's solve flops
	// over the second calls' time: the speed of its solves alone.
	KernelCols                 int
	KernelApply, KernelAdjoint CallPair
	KernelGFlops               float64

	// Work and Span are those of the factor's supernodal tree, Sched8 and
	// Sched16 the speed-ups its own solve schedule allows on 8 and 16
	// workers (countingFactor.shape); 0 where the factor reports none.
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
// alone (kernelRates). MaxRSS is left 0; Run measures it in a child process.
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
		if err := kernelRates(obj, stats, x0, m); err != nil {
			return fail(err)
		}
	}
	return m, err
}

// CallPair is one kind of solve call in the evaluation of kernelRates: the
// columns its calls solved (sub-steps times right-hand sides), their wall
// time, and that of the same calls made again at once, in seconds.
type CallPair struct {
	Columns     int64
	Eval, Alone float64
}

// kernelRates evaluates obj once more at x with every solve call made
// twice, the second time at once on the same inputs into scratch, as
// kernel/sparsechol's BenchmarkSolveSteps repeats a call on a block in
// cache, and sets m's KernelApply, KernelAdjoint and KernelGFlops. Each
// call and its repetition run one right after the other, so the machine's
// drift, which moves a solve's speed by up to 2× between runs on a shared
// host, cancels in their ratio.
func kernelRates(obj *learn.Objective, stats *SolveStats, x []float64, m *Measurement) error {
	stats.pair.Store(true)
	_, err := obj.Eval(make([]float64, len(x)), x)
	stats.pair.Store(false)
	if err != nil {
		return err
	}
	stats.mu.Lock()
	m.KernelApply, m.KernelAdjoint = stats.pairs[0], stats.pairs[1]
	stats.mu.Unlock()
	if alone := m.KernelApply.Alone + m.KernelAdjoint.Alone; alone > 0 {
		m.KernelGFlops = solveFlops(m.NNZL, m.KernelApply.Columns+m.KernelAdjoint.Columns) / alone / 1e9
	}
	return nil
}

// SolveStats counts the work done inside a factorisation backend, and
// keeps its last factor. Its counts are safe for concurrent use. With
// pair set, its factors make every solve call twice (kernelRates) and
// pairs sums them, the applications' first, then the adjoint's.
type SolveStats struct {
	solves, cols, wallNanos, factors, factorNanos atomic.Int64
	last                                          *countingFactor

	pair    atomic.Bool
	mu      sync.Mutex // guards pairs and scratch
	pairs   [2]CallPair
	scratch []float64
}

// again makes a call that took first a second time, at once, with n
// values of scratch for its outputs, and adds both to p: cols columns
// solved (sub-steps times right-hand sides).
func (s *SolveStats) again(p *CallPair, cols int, first time.Duration, n int, call func(scratch []float64) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cap(s.scratch) < n {
		s.scratch = make([]float64, n)
	}
	t := time.Now()
	err := call(s.scratch[:n])
	p.Columns += int64(cols)
	p.Eval += first.Seconds()
	p.Alone += time.Since(t).Seconds()
	return err
}

// count records solves sub-step solves of cols columns that took d.
func (s *SolveStats) count(solves, cols int, d time.Duration) {
	s.solves.Add(int64(solves))
	s.cols.Add(int64(solves * cols))
	s.wallNanos.Add(int64(d))
}

// countingFactorizer wraps a backend and times its factors' Factorize,
// SolveSteps and AdjointSteps calls.
type countingFactorizer struct {
	factor.Factorizer
	stats *SolveStats
}

// Analyze wraps the factor when it is a factor.StepSolver, the heat
// kernel's contract (which refuses any other).
func (c *countingFactorizer) Analyze(p *factor.Pattern, opt *factor.Options) (factor.Factor, error) {
	f, err := c.Factorizer.Analyze(p, opt)
	if ss, ok := f.(factor.StepSolver); ok && err == nil {
		c.stats.last = &countingFactor{StepSolver: ss, stats: c.stats}
		return c.stats.last, nil
	}
	return f, err
}

// countingFactor counts the work of a factor.StepSolver, which it
// forwards: a call of S steps is S solves, an adjoint's 2·S (it runs two
// chains).
type countingFactor struct {
	factor.StepSolver
	stats *SolveStats
}

func (c *countingFactor) Factorize(values []float64) error {
	t := time.Now()
	err := c.StepSolver.Factorize(values)
	c.stats.factors.Add(1)
	c.stats.factorNanos.Add(int64(time.Since(t)))
	return err
}

func (c *countingFactor) SolveSteps(out, b []float64, cols, steps int, keep, reverse bool) error {
	t := time.Now()
	err := c.StepSolver.SolveSteps(out, b, cols, steps, keep, reverse)
	d := time.Since(t)
	c.stats.count(steps, cols, d)
	if err == nil && c.stats.pair.Load() {
		err = c.stats.again(&c.stats.pairs[0], steps*cols, d, len(out), func(s []float64) error {
			return c.StepSolver.SolveSteps(s, b, cols, steps, keep, reverse)
		})
	}
	return err
}

func (c *countingFactor) AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error {
	t := time.Now()
	err := c.StepSolver.AdjointSteps(gsrc, gw, src, g, cols, steps, from, to, coef, parallel)
	d := time.Since(t)
	c.stats.count(2*steps, cols, d)
	if err == nil && c.stats.pair.Load() {
		err = c.stats.again(&c.stats.pairs[1], 2*steps*cols, d, len(gsrc)+len(gw), func(s []float64) error {
			gs := s[:len(gsrc)]
			if gsrc == nil {
				gs = nil
			}
			return c.StepSolver.AdjointSteps(gs, s[len(gsrc):], src, g, cols, steps, from, to, coef, parallel)
		})
	}
	return err
}

// shape sets m's Work and Span, those of the factor's tree
// (factor.Tree.Span), and Sched8 and Sched16, the speed-ups that its own
// solve schedule allows on 8 and 16 workers (factor.ScheduleReporter);
// each pair stays zero where the factor reports none.
func (c *countingFactor) shape(m *Measurement) error {
	if tr, ok := c.StepSolver.(factor.TreeReporter); ok {
		t, err := tr.Tree()
		if err == nil {
			m.Work, m.Span, err = t.Span()
		}
		if err != nil {
			return err
		}
	}
	sr, ok := c.StepSolver.(factor.ScheduleReporter)
	if !ok {
		return nil
	}
	dst := [...]*float64{&m.Sched8, &m.Sched16}
	for i, p := range [...]int{8, 16} {
		w, t, err := sr.ScheduleTime(p)
		if err != nil {
			return err
		}
		*dst[i] = w / t
	}
	return nil
}

// solveFlops is the flops of cols column solves (sub-steps) with a factor
// of nnz entries: 2·nnz multiply-adds each, forward and backward.
func solveFlops(nnz int, cols int64) float64 { return 4 * float64(nnz) * float64(cols) }

// Roofline is the ceiling of the solves' speed on P cores (the roofline
// model of Williams, Waterman and Patterson, 2009): the smaller of the
// cores' multiply-add peak and the arithmetic intensity times the
// bandwidth at which the solve's working set streams, from the cache that
// holds it or from memory. MeasureRoofline measures it.
type Roofline struct {
	Threads    int     // P, the cores it is for
	Lanes      int     // the vector width of the peak's multiply-adds (sparsechol.VectorWidth)
	PeakGFlops float64 // P times one core's multiply-add peak
	// Bands are the triad's bandwidth on P goroutines over working sets of
	// growing size, the last (over 4× the last-level cache) that of memory.
	Bands []Band
}

// Band is the streaming bandwidth over a working set of Bytes.
type Band struct {
	Bytes       int64
	GBPerSecond float64
}

// Bandwidth returns the bandwidth of the smallest measured working set
// that holds bytes (the last band's beyond them all).
func (r Roofline) Bandwidth(bytes float64) float64 {
	for _, b := range r.Bands {
		if float64(b.Bytes) >= bytes {
			return b.GBPerSecond
		}
	}
	if len(r.Bands) == 0 {
		return 0
	}
	return r.Bands[len(r.Bands)-1].GBPerSecond
}

// Bound returns the roofline in GFlop/s at the arithmetic intensity ai, in
// flops per byte, for a working set of bytes.
func (r Roofline) Bound(ai, bytes float64) float64 {
	return min(r.PeakGFlops, ai*r.Bandwidth(bytes))
}

// SolveIntensity is the arithmetic intensity, in flops per byte, of a
// sub-step solve with a factor L of nnz entries on n vertices for a block
// of cols columns: each of its two passes (forward and backward
// substitution) does 2·nnz·cols flops, streams L, nnz·(8+4) bytes (a value
// and a row index per entry), and reads and writes the block once.
func SolveIntensity(nnz, n, cols int) float64 {
	return 2 * float64(nnz) * float64(cols) / SolveBytes(nnz, n, cols)
}

// SolveBytes is the working set of a pass of SolveIntensity, in bytes.
func SolveBytes(nnz, n, cols int) float64 {
	return 12*float64(nnz) + 16*float64(n)*float64(cols)
}

// MeasureRoofline measures the roofline of p cores: one core's peak of
// independent multiply-add chains as wide as the solve kernels' vectors,
// the best of 50 runs of 2¹⁸ rounds (short, to run unpreempted on a shared
// machine), times p; and the bandwidth of the triad a[i] = b[i] + s·c[i]
// (triadRange: vector loads and stores where the kernels have them), 24
// bytes an element, on p goroutines over working sets of 1 MiB, 4 MiB, …
// up to 4× the L3 cache (64 MiB to 2 GiB), where it is that of memory.
func MeasureRoofline(p int) Roofline {
	r := Roofline{Threads: p, Lanes: sparsechol.VectorWidth()}
	for range 50 {
		t := time.Now()
		f := fmaRounds(r.Lanes, 1<<18)
		r.PeakGFlops = max(r.PeakGFlops, float64(p)*f*(1<<18)/time.Since(t).Seconds()/1e9)
	}
	kb := 32 << 10 // the L3 cache that Linux reports for CPU 0, in KiB
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cache/index3/size"); err == nil {
		fmt.Sscanf(string(b), "%dK", &kb)
	}
	last := min(max(int64(4*kb)<<10, 64<<20), 2<<30)
	for size := int64(1 << 20); ; size = min(4*size, last) {
		r.Bands = append(r.Bands, Band{size, triad(p, int(size/24))})
		if size == last {
			return r
		}
	}
}

// triadRange sets a[i] = b[i] + s·c[i] for every i: in vector
// instructions as far as triadVec takes them, the rest in Go.
func triadRange(a, b, c []float64, s float64) {
	b, c = b[:len(a)], c[:len(a)]
	for i := triadVec(a, b, c, s); i < len(a); i++ {
		a[i] = b[i] + s*c[i]
	}
}

// triad returns the bandwidth in GB/s of a[i] = b[i] + s·c[i] over n
// elements of each array on p goroutines, the best of enough sweeps to
// stream 1 GiB (at least 4) after an untimed one.
func triad(p, n int) float64 {
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	best := 0.0
	for sweep := range max(4, (1<<30)/(24*n)) + 1 {
		t := time.Now()
		var wg sync.WaitGroup
		for k := range p {
			wg.Go(func() {
				a := a[k*n/p : (k+1)*n/p]
				b, c := b[k*n/p:][:len(a)], c[k*n/p:][:len(a)]
				if sweep == 0 { // untimed: each goroutine writes its own pages first
					for i := range b {
						b[i], c[i] = 1, 2
					}
				}
				triadRange(a, b, c, 3)
			})
		}
		wg.Wait()
		if sweep > 0 {
			best = max(best, 24*float64(n)/time.Since(t).Seconds()/1e9)
		}
	}
	return best
}

// scalarSink keeps the scalar chains' results.
var scalarSink float64

// scalarRounds runs n rounds of eight independent scalar multiply-add
// chains in Go, the arithmetic of the portable kernels, and returns the
// flops of a round.
func scalarRounds(n int) float64 {
	a0, a1, a2, a3, a4, a5, a6, a7 := 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0
	for range n {
		a0, a1, a2, a3 = 0.5*a0+1, 0.5*a1+1, 0.5*a2+1, 0.5*a3+1
		a4, a5, a6, a7 = 0.5*a4+1, 0.5*a5+1, 0.5*a6+1, 0.5*a7+1
	}
	scalarSink = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
	return 16
}
