package ot

import (
	"fmt"
	"math"
	"sync"
)

// sinkhorn is the Sinkhorn barycenter iteration of Interpolator and
// Barycenter. It advances many barycenters in lock-step: group g is the
// barycenter of its R columns' histograms with weights λ, and all C columns
// go through the kernel as one N×C block. One iteration from b is
//
//	u = K·b,  a = P/u,  v = K·a,  q = exp(Σ_k λ_k·log v_k),  b' = q/v,
//
// the log-sum taken in column order, each product rounded on its own (no fused
// multiply-add), and a term whose weight is exactly 0 left out. The marginal
// violation of column k is ‖b_k⊙v_k − q‖₁: the plan diag(a_k)·K·diag(b_k) has
// first marginal P_k exactly, and its second marginal should be q.
//
// The builder chooses the layout: bIn and bOut are one slice when the input
// of an iteration need not be kept, and u, v and q have one block per
// iteration when a reverse pass needs them (slots = L), one otherwise.
type sinkhorn struct {
	k      Kernel
	n      int
	op     string      // names the computation in errors
	groups []group     // one barycenter each
	pole   [][]float64 // per column: its histogram P

	ones, k1     []float64 // N: the constant 1 and K·1
	a            []float64 // N×C: P/u
	bIn, bOut    []float64 // N×C: the input b of an iteration and T(b) = q/v
	slots        int       // blocks of u, v and q
	tapeU, tapeV []float64 // slots×N×C: u = K·b and v = K·a (tapeU may be longer)
	tapeQ        []float64 // slots×N×G: the barycenters q
	viol         []float64 // per column: marginal violation of the last iteration
	dev          []float64 // N×C: |b⊙v − q| of the last iteration, entrywise
	mass         []float64 // per group: the mass of q

	wg         sync.WaitGroup // sweep's parallel parts
	cu, cv, cq []float64      // the blocks of the sweep in progress
}

// group is one barycenter: columns col..col+len(lam)−1 with weights lam.
type group struct {
	col        int
	lam        []float64
	seq, frame int // the reconstruction it is, for errors (−1: none)
}

// sweepOpts configures one run of the iteration.
type sweepOpts struct {
	iters int     // number of iterations (the bound when tol > 0)
	tol   float64 // > 0: stop once the largest violation is at most tol
	// warm: bIn holds the starting scalings; otherwise b = 1, whose K·b is
	// K·1 broadcast to every column.
	warm bool
	// uReady: the caller has computed u of a warm first iteration.
	uReady bool
	mix    *anderson // nil: the plain iteration
	// stop, if set, is called after every iteration; returning true ends
	// the run as converged.
	stop func(it int) bool
}

func (s *sinkhorn) col(x []float64, c int) []float64 {
	return x[c*s.n : (c+1)*s.n : (c+1)*s.n]
}

// blocks returns u, v and q of iteration it (counted from 1), which share
// one block when there is one slot.
func (s *sinkhorn) blocks(it int) (u, v, q []float64) {
	slot := min(it, s.slots) - 1
	nc, nq := s.n*len(s.pole), s.n*len(s.groups)
	return s.tapeU[slot*nc : (slot+1)*nc], s.tapeV[slot*nc : (slot+1)*nc], s.tapeQ[slot*nq : (slot+1)*nq]
}

// alloc allocates the blocks of every layout, q in slots blocks.
func (s *sinkhorn) alloc(slots int) {
	n, c := s.n, len(s.pole)
	s.ones = make([]float64, n)
	for i := range s.ones {
		s.ones[i] = 1
	}
	s.k1 = make([]float64, n)
	s.slots = slots
	s.tapeQ = make([]float64, slots*n*len(s.groups))
	s.viol = make([]float64, c)
	s.dev = make([]float64, n*c)
	s.mass = make([]float64, len(s.groups))
}

// allocInPlace allocates the layout in which b is updated in place, with
// slots blocks of u, v and q.
func (s *sinkhorn) allocInPlace(slots int) {
	s.alloc(slots)
	nc := s.n * len(s.pole)
	s.a = make([]float64, nc)
	s.bIn = make([]float64, nc)
	s.bOut = s.bIn
	s.tapeU = make([]float64, slots*nc)
	s.tapeV = make([]float64, slots*nc)
}

// apply is s.k.Apply with its error wrapped.
func (s *sinkhorn) apply(dst, src []float64, cols int) error {
	if err := s.k.Apply(dst, src, cols); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	return nil
}

// run iterates as o says, counting into st (Iterations, Violation,
// Converged). The result is the q of the last iteration; bIn holds that
// iteration's input and bOut its image.
func (s *sinkhorn) run(o sweepOpts, st *Stats) error {
	c := len(s.pole)
	mixed := false // whether this iteration's input is an Anderson mix
	start := st.Iterations
	for it := 1; it <= o.iters; it++ {
		st.Iterations++
		u, v, q := s.blocks(st.Iterations - start)
		switch {
		case it == 1 && !o.warm:
			for j := 0; j < c; j++ {
				copy(s.col(u, j), s.k1)
				copy(s.col(s.bIn, j), s.ones)
			}
		case it == 1 && o.uReady:
		default:
			if err := s.apply(u, s.bIn, c); err != nil {
				return err
			}
		}
		worst, err := s.sweep(st.Iterations, u, v, q)
		if err != nil {
			return err
		}
		st.Violation = worst
		if o.tol > 0 && worst <= o.tol && !mixed || o.stop != nil && o.stop(it) {
			st.Converged = true
			break
		}
		if it == o.iters {
			break
		}
		if o.mix != nil && worst > o.tol {
			mixed = o.mix.step(s.bIn, s.bOut, s.viol, q)
		} else {
			// The plain step, also after a mixed input that met the
			// tolerance: the last iteration's input must be an image of T
			// (see Settings.Anderson).
			if &s.bIn[0] != &s.bOut[0] {
				copy(s.bIn, s.bOut)
			}
			mixed = false
		}
	}
	return nil
}

// sweep completes iteration it from u = K·b: it writes a, v = K·a, the
// barycenters q and bOut = q/v, records the column violations and returns
// the largest one. A barycenter whose mass is not a finite positive number
// gives a *NonFiniteError.
//
// The elementwise work runs in parts of rows (parallel.go); the sums (the
// mass of q and the violations) run in parts of groups, each over whole
// columns in row order, so the result does not depend on the parts.
func (s *sinkhorn) sweep(it int, u, v, q []float64) (float64, error) {
	s.cu, s.cv, s.cq = u, v, q
	defer func() { s.cu, s.cv, s.cq = nil, nil, nil }()
	c := len(s.pole)
	parallel(&s.wg, s, phaseScale, s.n, 2*c)
	if err := s.apply(v, s.a, c); err != nil {
		return 0, err
	}
	parallel(&s.wg, s, phaseBarycenter, s.n, 24*c)
	parallel(&s.wg, s, phaseSums, len(s.groups), s.n*c/max(len(s.groups), 1))
	var worst float64
	for gi, g := range s.groups {
		nan := false
		for k := range g.lam {
			worst = math.Max(worst, s.viol[g.col+k])
			nan = nan || math.IsNaN(s.viol[g.col+k])
		}
		if !positiveFinite(s.mass[gi]) || nan {
			return 0, &NonFiniteError{Op: s.op, Sequence: g.seq, Frame: g.frame, Iteration: it, Hint: hintUnderflow}
		}
	}
	return worst, nil
}

// The phases of sweep, run by runPart.
const (
	phaseScale      = iota // rows: a = P/u
	phaseBarycenter        // rows: q, the deviations |b⊙v − q| and bOut = q/v
	phaseSums              // groups: the mass of q and the column violations
)

// runPart runs rows (or groups) lo..hi−1 of a phase of sweep.
func (s *sinkhorn) runPart(phase, lo, hi int) {
	switch phase {
	case phaseScale:
		for j, p := range s.pole {
			aj, uj := s.col(s.a, j)[lo:hi], s.col(s.cu, j)[lo:hi]
			for i, pi := range p[lo:hi] {
				aj[i] = pi / uj[i]
			}
		}
	case phaseBarycenter:
		for gi := range s.groups {
			s.barycenterRows(gi, lo, hi)
		}
	case phaseSums:
		for gi := lo; gi < hi; gi++ {
			s.sums(gi)
		}
	}
}

// barycenterRows computes rows lo..hi−1 of group gi's barycenter
// q = exp(Σ_k λ_k·log v_k), then for each of its columns the deviation
// |b_k⊙v_k − q| (into dev) and bOut = q/v_k. bIn may be bOut: each entry is
// read before it is written.
func (s *sinkhorn) barycenterRows(gi, lo, hi int) {
	g := s.groups[gi]
	qf := s.col(s.cq, gi)[lo:hi]
	clear(qf)
	for k, l := range g.lam {
		if l == 0 {
			continue
		}
		vk := s.col(s.cv, g.col+k)[lo:hi]
		for i := range qf {
			qf[i] += float64(l * math.Log(vk[i]))
		}
	}
	for i, lq := range qf {
		qf[i] = math.Exp(lq)
	}
	for k := range g.lam {
		c := g.col + k
		vk, bi, bo := s.col(s.cv, c)[lo:hi], s.col(s.bIn, c)[lo:hi], s.col(s.bOut, c)[lo:hi]
		dk := s.col(s.dev, c)[lo:hi]
		for i, qi := range qf {
			dk[i] = math.Abs(bi[i]*vk[i] - qi)
			bo[i] = qi / vk[i]
		}
	}
}

// sums sets group gi's mass (the sum of q) and its columns' violations
// (the sums of their deviations), each summed in row order.
func (s *sinkhorn) sums(gi int) {
	g := s.groups[gi]
	var mass float64
	for _, qi := range s.col(s.cq, gi) {
		mass += qi
	}
	for k := range g.lam {
		c := g.col + k
		var e float64
		for _, d := range s.col(s.dev, c) {
			e += d
		}
		s.viol[c] = e
	}
	s.mass[gi] = mass
}
