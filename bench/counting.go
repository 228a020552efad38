package bench

import (
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/gmlg/gmlg/kernel/factor"
)

// SolveStats counts the work done inside a factorisation backend, and
// keeps its last factor. Its counts are safe for concurrent use.
type SolveStats struct {
	solves, cols, wallNanos, factors, factorNanos atomic.Int64
	last                                          *countingFactor
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
	c.stats.count(steps, cols, time.Since(t))
	return err
}

func (c *countingFactor) AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error {
	t := time.Now()
	err := c.StepSolver.AdjointSteps(gsrc, gw, src, g, cols, steps, from, to, coef, parallel)
	c.stats.count(2*steps, cols, time.Since(t))
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
	for p, dst := range map[int]*float64{8: &m.Sched8, 16: &m.Sched16} {
		if ok {
			w, t, err := sr.ScheduleTime(p)
			if err != nil {
				return err
			}
			*dst = w / t
		}
	}
	return nil
}

// kernelRate returns the speed in flops per second (4·nnz(L) per column
// and sub-step) of the factor's SolveSteps alone, as kernel/sparsechol's
// BenchmarkSolveSteps times it: steps sub-steps on a random block of n
// rows and cols columns, called for half a second after a call that
// readies its workspace.
func (c *countingFactor) kernelRate(n, cols, steps int) (float64, error) {
	rng := rand.New(rand.NewPCG(9, 9))
	b, x := make([]float64, n*cols), make([]float64, n*cols)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	var start time.Time
	calls := -1 // the first call is not timed
	for ; calls < 1 || time.Since(start) < 500*time.Millisecond; calls++ {
		if calls == 0 {
			start = time.Now()
		}
		if err := c.StepSolver.SolveSteps(x, b, cols, steps, false, false); err != nil {
			return 0, err
		}
	}
	return 4 * float64(c.Info().NNZL) * float64(cols*steps*calls) / time.Since(start).Seconds(), nil
}
