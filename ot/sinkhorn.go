package ot

import (
	"fmt"
	"math"
)

// sinkhorn is the Sinkhorn barycenter iteration that Interpolator,
// Barycenter and the colour interpolation are built on. It advances many
// barycenters in lock-step; group g is the barycenter of the histograms of
// its R columns with weights λ, and all columns of all groups (C in all) go
// through the kernel as one N×C block. One iteration from the scalings b is
//
//	u = K·b,  a = P/u,  v = K·a,  q = exp(Σ_k λ_k·log v_k),  b' = q/v,
//
// the log-sum taken in column order, each product rounded on its own (no
// fused multiply-add), and a term whose weight is exactly 0 left out. The
// marginal violation of column k is ‖b_k⊙v_k − q‖₁: the plan
// diag(a_k)·K·diag(b_k) has first marginal P_k exactly, and its second
// marginal should be q.
//
// The fields are set by the builder, which chooses the layout: bIn and
// bOut are the same slice when the input of an iteration need not be kept
// (b is then updated in place), and u, v and q have one block per
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

// blocks returns u, v and q of iteration it (counted from 1).
func (s *sinkhorn) blocks(it int) (u, v, q []float64) {
	slot := 0
	if s.slots > 1 {
		slot = it - 1
	}
	nc, nq := s.n*len(s.pole), s.n*len(s.groups)
	return s.tapeU[slot*nc : (slot+1)*nc], s.tapeV[slot*nc : (slot+1)*nc], s.tapeQ[slot*nq : (slot+1)*nq]
}

// last returns u, v and q of the last iteration of a run.
func (s *sinkhorn) last(st *Stats) (u, v, q []float64) { return s.blocks(max(st.Iterations, 1)) }

// computeK1 sets k1 = K·1.
func (s *sinkhorn) computeK1() error {
	if err := s.k.Apply(s.k1, s.ones, 1); err != nil {
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
		var err error
		switch {
		case it == 1 && !o.warm:
			for j := 0; j < c; j++ {
				copy(s.col(u, j), s.k1)
				copy(s.col(s.bIn, j), s.ones)
			}
		case it == 1 && o.uReady:
		default:
			err = s.k.Apply(u, s.bIn, c)
		}
		if err != nil {
			return fmt.Errorf("kernel: %w", err)
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
func (s *sinkhorn) sweep(it int, u, v, q []float64) (float64, error) {
	for j, p := range s.pole {
		aj, uj := s.col(s.a, j), s.col(u, j)
		for i := range aj {
			aj[i] = p[i] / uj[i]
		}
	}
	if err := s.k.Apply(v, s.a, len(s.pole)); err != nil {
		return 0, fmt.Errorf("kernel: %w", err)
	}
	var worst float64
	for gi, g := range s.groups {
		qf := s.col(q, gi)
		clear(qf)
		for k, l := range g.lam {
			if l == 0 {
				continue
			}
			vk := s.col(v, g.col+k)
			for i := range qf {
				qf[i] += float64(l * math.Log(vk[i]))
			}
		}
		var mass float64
		for i, lq := range qf {
			qf[i] = math.Exp(lq)
			mass += qf[i]
		}
		var errs float64
		for k := range g.lam {
			c := g.col + k
			vk, bi, bo := s.col(v, c), s.col(s.bIn, c), s.col(s.bOut, c)
			var e float64
			for i, qi := range qf {
				e += math.Abs(bi[i]*vk[i] - qi)
				bo[i] = qi / vk[i]
			}
			s.viol[c] = e
			errs += e
			worst = math.Max(worst, e)
		}
		if !positiveFinite(mass) || math.IsNaN(errs) {
			return 0, &NonFiniteError{Op: s.op, Sequence: g.seq, Frame: g.frame, Iteration: it, Hint: hintUnderflow}
		}
	}
	return worst, nil
}
