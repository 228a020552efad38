package ot

import (
	"cmp"
	"fmt"
	"math"
)

// BarycenterSettings configures Barycenter. A nil *BarycenterSettings and
// zero fields mean the documented defaults.
type BarycenterSettings struct {
	// Weights are the barycentric weights λ, one per histogram, non-negative
	// and normally summing to 1. nil means uniform weights 1/R.
	Weights []float64
	// Iterations is the number of Sinkhorn iterations L (the maximum when
	// Tol > 0). 0 means DefaultIterations.
	Iterations int
	// Tol, when positive, stops the iterations as soon as the marginal
	// error (see BarycenterResult.MarginalErr) is at most Tol. 0 runs
	// exactly Iterations iterations, as the reference does.
	Tol float64
}

// BarycenterResult is the outcome of Barycenter.
type BarycenterResult struct {
	// Bary is the barycenter q (length N) of the last iteration.
	Bary []float64
	// Iterations is the number of Sinkhorn iterations performed; 0 when the
	// endpoint rule applied.
	Iterations int
	// MarginalErr[l] is the marginal violation of iteration l+1:
	// max over k of ‖b_k ⊙ K·a_k − q‖₁ / ‖P_k‖₁, b_k the iteration's input,
	// the relative L1 error of the second marginal of the plan
	// diag(a_k)·K·diag(b_k) (its first marginal a_k ⊙ K·b_k is P_k by
	// construction). Empty when the endpoint rule applied.
	MarginalErr []float64
	// Converged reports that Tol > 0 and the last marginal error is at most
	// Tol, or that the endpoint rule applied (the answer is then exact).
	Converged bool
}

// Barycenter computes the entropic Wasserstein barycenter of the R
// histograms hists (each of length N = k.Size()) by the Sinkhorn iterations
// of the package doc, as the reference does: q of the last iteration from
// b = 1, with no log-domain stabilisation and no renormalisation, or
// K·(P_k/K·1) at once when weight k is exactly 1 (the pole blurred by the
// kernel). Each iteration makes two Apply calls on an N×R block.
//
// A barycenter whose mass is NaN, infinite or zero gives a *NonFiniteError.
// Invalid histograms or weights (negative or non-finite entries) give an
// error; wrong lengths panic.
func Barycenter(k Kernel, hists [][]float64, s *BarycenterSettings) (*BarycenterResult, error) {
	s = cmp.Or(s, &BarycenterSettings{})
	n := k.Size()
	r := len(hists)
	if r == 0 {
		panic("ot: Barycenter: no histograms")
	}
	for i, h := range hists {
		if len(h) != n {
			panic(fmt.Sprintf("ot: Barycenter: histogram %d has length %d, want kernel size %d", i, len(h), n))
		}
		if err := checkHist(h); err != nil {
			return nil, fmt.Errorf("ot: Barycenter: histogram %d: %w", i, err)
		}
	}
	lam := s.Weights
	if lam == nil {
		lam = make([]float64, r)
		for i := range lam {
			lam[i] = 1 / float64(r)
		}
	}
	if len(lam) != r {
		panic(fmt.Sprintf("ot: Barycenter: %d weights for %d histograms", len(lam), r))
	}
	for i, l := range lam {
		if !(l >= 0) || math.IsInf(l, 0) {
			return nil, fmt.Errorf("ot: Barycenter: weight %d is %v, want a finite non-negative number", i, l)
		}
	}
	iters := cmp.Or(s.Iterations, DefaultIterations)
	if iters < 0 || s.Tol < 0 || math.IsNaN(s.Tol) {
		panic("ot: Barycenter: negative Iterations or Tol")
	}

	sk := &sinkhorn{k: k, n: n, op: "barycenter", groups: []group{{lam: lam, seq: -1, frame: -1}}, pole: hists}
	sk.allocInPlace(1)
	if err := sk.apply(sk.k1, sk.ones, 1); err != nil {
		return nil, fmt.Errorf("ot: Barycenter: %w", err)
	}
	for j, l := range lam {
		if l == 1 {
			return endpointBarycenter(k, hists[j], sk.k1)
		}
	}
	mass := make([]float64, r)
	for j, h := range hists {
		mass[j] = sum(h)
	}
	res := &BarycenterResult{MarginalErr: make([]float64, 0, iters)}
	stop := func(int) bool {
		var e float64
		for j, v := range sk.viol {
			if mass[j] > 0 {
				v /= mass[j]
			}
			e = math.Max(e, v)
		}
		res.MarginalErr = append(res.MarginalErr, e)
		return s.Tol > 0 && e <= s.Tol
	}
	var st Stats
	if err := sk.run(sweepOpts{iters: iters, stop: stop}, &st); err != nil {
		return nil, wrap("Barycenter", err)
	}
	res.Bary, res.Iterations, res.Converged = sk.tapeQ, st.Iterations, st.Converged
	return res, nil
}

// endpointBarycenter is the barycenter whose weight on p is 1: K·(p/K·1),
// the pole blurred once by the kernel.
func endpointBarycenter(k Kernel, p, k1 []float64) (*BarycenterResult, error) {
	a := make([]float64, len(p))
	for i := range a {
		a[i] = p[i] / k1[i]
	}
	q := make([]float64, len(p))
	if err := k.Apply(q, a, 1); err != nil {
		return nil, fmt.Errorf("ot: Barycenter: kernel: %w", err)
	}
	if !positiveFinite(sum(q)) {
		return nil, &NonFiniteError{Op: "barycenter", Sequence: -1, Frame: -1, Hint: hintUnderflow}
	}
	return &BarycenterResult{Bary: q, Converged: true}, nil
}

// checkHist returns an error if h has a negative or non-finite entry.
func checkHist(h []float64) error {
	for i, v := range h {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("entry %d is %v, want a finite non-negative number", i, v)
		}
	}
	return nil
}

// notFinite reports whether x is NaN or infinite.
func notFinite(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// positiveFinite reports whether x is a finite number > 0.
func positiveFinite(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}
