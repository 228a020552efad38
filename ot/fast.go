package ot

import (
	"fmt"
	"math"
)

// Defaults of FastSettings.
const (
	// DefaultFastTol is the default marginal tolerance of a
	// FastInterpolator: the largest L1 violation of the barycenter marginal
	// over all columns (histograms have mass ≈ 1).
	DefaultFastTol = 1e-6
	// DefaultFastMaxIterations bounds the Sinkhorn iterations of one
	// FastInterpolator.Forward and the adjoint iterations of one Backward.
	DefaultFastMaxIterations = 5000
	// DefaultAdjointRestart is the default restart length of the GMRES
	// adjoint solve (see FastSettings.AdjointGMRES): the usual textbook
	// choice, not tuned; warm-started solves at tol 1e-3 used 1–3 Krylov
	// vectors, so it bounds memory (21 blocks of N×C) rather than work.
	DefaultAdjointRestart = 20
)

// FastSettings configures a FastInterpolator. A nil *FastSettings and zero
// fields mean the documented defaults.
type FastSettings struct {
	// Tol stops the Sinkhorn iterations when the marginal violation (see
	// FastInterpolator) falls to Tol or below. 0 means DefaultFastTol;
	// a negative Tol disables the test, so that Forward always runs
	// MaxIterations iterations.
	Tol float64
	// MaxIterations bounds the Sinkhorn iterations of one Forward. 0 means
	// DefaultFastMaxIterations. Reaching it is not an error: Stats reports
	// Converged = false.
	MaxIterations int
	// AdjointTol stops the adjoint iterations of Backward when the L1 norm
	// of the last increment is at most AdjointTol times that of the adjoint
	// vector, both measured on b⊙z (the adjoint of log b: z itself grows
	// like 1/b in bins without mass, where b may be 1e-50, and would
	// otherwise decide the test alone). 0 means Tol (1e-12 when Tol is
	// negative).
	AdjointTol float64
	// AdjointMaxIterations bounds the adjoint iterations of one Backward.
	// 0 means MaxIterations.
	AdjointMaxIterations int
	// Cold disables the warm start: every Forward starts from b = 1 and
	// every Backward from a zero adjoint, like Interpolator.
	Cold bool
	// AdjointGMRES solves the adjoint system of Backward by restarted GMRES
	// (restart length AdjointRestart, 0 meaning DefaultAdjointRestart)
	// instead of the fixed-point iteration z ← F(z), in the variable b⊙z:
	// AdjointTol then bounds the 2-norm of the residual b⊙(F(z) − z)
	// relative to that of b⊙F(z) at the last restart, and
	// AdjointIterations counts evaluations of the adjoint map (each two
	// kernel applications), one more per restart for the residual. It
	// solves the system in fewer evaluations (on seldovia2 at 16³, tol
	// 1e-3: 2.1 per gradient instead of 7.4). Without the scaling by b, the
	// residual's 2-norm was that of a few bins without mass (z reached 1e51
	// there at 32³) and GMRES reduced it there only, which made the L-BFGS
	// line searches fail at 32³.
	AdjointGMRES   bool
	AdjointRestart int
	// Anderson, when positive, accelerates the Sinkhorn iterations of
	// Forward by Anderson mixing of each frame's log-scalings over the last
	// Anderson iterations (a safeguarded, mass-weighted type-II scheme; a
	// frame whose marginal violation grows forgets its history and takes
	// the plain step). Each iteration still costs two kernel applications;
	// the mixing adds O(Anderson·N·C) arithmetic and 2·Anderson+3 blocks of
	// N×C. A warm-started Forward keeps the history of the previous one
	// (the learner's successive kernels are close; the safeguard drops it
	// where it misleads). When a mixed input meets Tol, Forward takes one
	// more plain iteration from it, so that the last iteration's input,
	// where Backward linearises T, is an image of T like in the plain
	// iteration (at 32³ the adjoint iteration diverged when linearised at a
	// mix). The fixed point, hence the reconstructions at convergence and
	// the implicit gradient, are those of the plain iteration; on seldovia2
	// cold solves at 16³ need 30–50% fewer iterations and warm 32³
	// evaluations 4–8 instead of 6–15 (5.2 on average over a 500-iteration
	// run). 0 means off (the plain iteration,
	// bitwise that of Interpolator when cold).
	Anderson int
}

// FastStats describes the last Forward and Backward of a FastInterpolator.
type FastStats struct {
	// Iterations is the number of Sinkhorn iterations of the last Forward
	// (each two N×C kernel applications), Violation the marginal violation
	// after the last one, and Converged whether it reached Tol.
	Iterations int
	Violation  float64
	Converged  bool
	// Warm says that the last Forward started from stored scalings;
	// ColdRetry that it did, failed with a non-finite value, and was redone
	// from b = 1 (Iterations then counts both attempts).
	Warm, ColdRetry bool
	// AdjointIterations is the number of adjoint iterations of the last
	// Backward (each two N×C kernel applications), AdjointResidual the
	// relative L1 norm of its last increment and AdjointConverged whether
	// it reached AdjointTol.
	AdjointIterations int
	AdjointResidual   float64
	AdjointConverged  bool
	// Correction is zᵀ·(T̃(b) − b) at the last Backward, b the last
	// iteration's input: added to the objective whose gradient Backward
	// was given, it removes that objective's first-order error due to the
	// unconverged scalings (see FastInterpolator, "Warm start", for the
	// resulting Lagrangian). 0 before any Backward and without interior
	// frames; when AdjointConverged is false it is only as good as z.
	Correction float64
	// AndersonRestarts counts the frames whose Anderson history the last
	// Forward discarded (see FastSettings.Anderson).
	AndersonRestarts int
}

// WarmStart is a snapshot of a FastInterpolator's warm-start state (the
// scalings b and the adjoint vector of the last call). The zero value is
// the cold state. Reusing a WarmStart in SaveWarm reuses its buffers.
type WarmStart struct {
	b, z       []float64
	hasB, hasZ bool
}

// FastInterpolator computes the same reconstructions as Interpolator, the
// Sinkhorn barycenters of every frame of every sequence with the same
// update order and endpoint rule, but runs the iterations to convergence
// instead of a fixed L, starts them from the scalings of the previous call
// (warm start), and differentiates the fixed point implicitly instead of
// unrolling the iterations.
//
// # Forward
//
// For the interior columns (pole k of frame f, weights λ), one iteration
// from the scalings b is
//
//	u = K·b,  a = P/u,  v = K·a,  q = Π_k v_k^λ_k,  b' = q/v.
//
// The coupling diag(a_k)·K·diag(b_k) has first marginal a⊙K·b = P exactly;
// its second marginal b⊙K·a should equal the barycenter q. The marginal
// violation of a column is ‖b_k⊙v_k − q‖₁, and Forward stops when the
// largest one over all columns is at most Tol (or after MaxIterations).
// The reconstruction is the q of the last iteration. Started cold (b = 1)
// with Tol < 0 and MaxIterations = L, Forward is bitwise Interpolator's.
//
// # Implicit gradient
//
// Let T(b, θ) be one iteration and Q(b, θ) its q. At the fixed point
// b* = T(b*), the gradient of a loss ℓ(q*) is
//
//	∂ℓ/∂θ = Q_θᵀ·ḡ + T_θᵀ·z,   z = J_bᵀ·z + Q_bᵀ·ḡ   (J_b = ∂T/∂b),
//
// and Backward solves for z by the fixed-point iteration on the right
// (two kernel applications per iteration, the kernel being symmetric, until
// the relative increment is at most AdjointTol; started from the previous
// call's z unless Cold) or, with AdjointGMRES, by restarted GMRES on the
// same affine map (the same two kernel applications per Krylov vector,
// minimising the residual over all of them: on a slowly converging toy
// case 9–11 map evaluations instead of 18–24). The parameter gradient is then accumulated once:
// one Adjoint call on the block [a* | b* | a_end] of the kernel inputs at
// the fixed point and of the endpoint frames, with the sum of all adjoint
// contributions of each input, plus one for K·1 unless the kernel keeps
// K·1 = 1 (OnesPreserving), as in Interpolator.
//
// The fixed point has a one-parameter gauge freedom per frame, b_k → c_k·b_k
// with Π c_k^λ_k = 1, which leaves q unchanged and gives J_b the eigenvalue
// 1: with an only approximately converged forward pass the plain iteration
// then drifts along it and stalls at a relative increment of about Tol.
// Backward therefore differentiates T̃ = G∘T instead, where G fixes the
// gauge (b₀·s^λ₁, b₁·s^−λ₀ with s = Σb₁/Σb₀, so that Σb₀ = Σb₁): T̃ has the
// same q and fixed points up to gauge, its Jacobian sends the gauge
// direction to 0, and the adjoint iteration converges at the rate of the
// forward one. Forward ends by moving its last iterate to that gauge
// (elementwise scalings, no kernel application).
//
// The gradient is that of the converged objective: it matches finite
// differences of Forward's reconstructions once Tol is tight, and the
// unrolled gradient of Interpolator.Backward when L is large enough that
// both have converged. It is only as accurate as the convergence: check
// Stats().Converged.
//
// # Warm start
//
// Every successful Forward stores the input b of its last iteration (moved
// to the gauge), and the next Forward starts from it (the learner calls it
// at successive, close trial points); the adjoint vector z that gave the
// gradient is kept likewise. SaveWarm and LoadWarm snapshot and restore
// both, e.g. to go back to those of the last accepted point of a line
// search; ResetWarm returns to the cold start. A Forward that fails leaves
// the stored state unchanged.
//
// Storing the last input rather than its image T(b) makes evaluations
// consistent near the point they start from. With Stats().Correction the
// value is L(θ; b, z) = ℓ(Q(b, θ)) + zᵀ·(T(b, θ) − b) (a Lagrangian of the
// fixed-point constraint), and the gradient Backward returns is exactly
// ∂L/∂θ at (b, z). Started from the (b, z) that a point's evaluation ended
// with, an evaluation at the same θ stops after one iteration and at once
// in the adjoint solve, and returns the same value and gradient (to
// round-off); at close points it keeps (b, z) for as long as they meet the
// tolerances, so that a line search sees one smooth function whose slope
// is the gradient's. Starting from T(b) instead, the value at the same θ
// differed by the tolerance-level error and the directional derivative of
// a late 32³ line search by its whole size (−5.1 against +0.09), and line
// searches shrank their step to zero.
//
// The workspace is allocated by NewFastInterpolator, Anderson's and
// GMRES's parts by the first Forward and Backward that need them (GMRES's
// kernel images one block per Krylov vector, the first time a solve uses
// that many); beyond that, Forward and Backward do not allocate (except
// what the kernel does). A FastInterpolator is not safe for concurrent use.
type FastInterpolator struct {
	base *Interpolator // layout, poles, endpoint buffers, q and recs
	k    Kernel
	n    int
	set  FastSettings

	src2     []float64 // N×(2C+E): a (first C columns) | b_in (next C) | the endpoints' a (E)
	a, bIn   []float64 // views into src2
	u, v     []float64 // N×C: K·b_in, K·a of the last iteration
	uEnd     []float64 // N×(C+E): u | K·a_end (a warm Forward's first application)
	bOut     []float64 // N×C: q/v
	viol     []float64 // per column
	gaugeS   []float64 // per frame: s = Σb'₁/Σb'₀ of the last iteration
	gaugeS0  []float64 // per frame: Σb'₀
	warm     WarmStart
	z, zNew  []float64   // N×C adjoint vector and its next iterate
	aa       *anderson   // Anderson mixing of Forward, allocated on first use
	krylov   [][]float64 // GMRES basis (AdjointRestart+1 blocks of N×C), allocated on first use
	abar     [][]float64 // GMRES: K·v̄ of each basis vector and of the restart point (up to AdjointRestart+1 blocks), each allocated on first use
	zs       []float64   // GMRES: a basis vector unscaled (N×C)
	hess     []float64   // GMRES Hessenberg matrix, (restart+1)×restart, column-major
	givC     []float64   // GMRES Givens rotations and right-hand side
	givS     []float64
	givG     []float64
	g2       []float64 // N×(2C+E): v̄ | ū | the endpoints' loss gradients
	vb, ub   []float64 // views into g2
	gsrc     []float64 // N×(2C+E): K·g2 (its last E columns are used)
	g1       []float64 // N
	stats    FastStats
	done     bool
	hasEnd   bool
	hasInter bool
}

// NewFastInterpolator builds the workspace for the sequences seqs over the
// kernel k, with the same validation as NewInterpolator. The warm start is
// cold.
func NewFastInterpolator(k Kernel, seqs []Sequence, s *FastSettings) (*FastInterpolator, error) {
	var set FastSettings
	if s != nil {
		set = *s
	}
	if set.Tol == 0 {
		set.Tol = DefaultFastTol
	}
	if set.MaxIterations == 0 {
		set.MaxIterations = DefaultFastMaxIterations
	}
	if set.AdjointTol == 0 {
		set.AdjointTol = set.Tol
		if set.Tol < 0 {
			set.AdjointTol = 1e-12
		}
	}
	if set.AdjointMaxIterations == 0 {
		set.AdjointMaxIterations = set.MaxIterations
	}
	if set.AdjointRestart == 0 {
		set.AdjointRestart = DefaultAdjointRestart
	}
	if set.MaxIterations < 0 || set.AdjointMaxIterations < 0 || set.AdjointRestart < 1 || set.Anderson < 0 || math.IsNaN(set.Tol) || math.IsNaN(set.AdjointTol) {
		panic(fmt.Sprintf("ot: NewFastInterpolator: invalid settings %+v", set))
	}
	base, err := NewInterpolator(k, seqs, &InterpSettings{Iterations: 1, ForwardOnly: true})
	if err != nil {
		return nil, fmt.Errorf("ot: NewFastInterpolator: %w", err)
	}
	n := base.n
	c := 2 * base.nInt
	nc := n * c
	fi := &FastInterpolator{base: base, k: k, n: n, set: set,
		hasEnd: base.nEnd > 0, hasInter: c > 0}
	ne := n * base.nEnd
	fi.src2 = make([]float64, 2*nc+ne)
	fi.a, fi.bIn = fi.src2[:nc:nc], fi.src2[nc:2*nc:2*nc]
	fi.uEnd = make([]float64, nc+ne)
	fi.u, fi.v, fi.bOut = fi.uEnd[:nc:nc], base.tapeV, base.b
	fi.viol = make([]float64, c)
	fi.gaugeS = make([]float64, base.nInt)
	fi.gaugeS0 = make([]float64, base.nInt)
	fi.z = make([]float64, nc)
	fi.zNew = make([]float64, nc)
	fi.g2 = make([]float64, 2*nc+ne)
	fi.vb, fi.ub = fi.g2[:nc:nc], fi.g2[nc:2*nc:2*nc]
	if ne > 0 {
		fi.gsrc = make([]float64, 2*nc+ne)
	}
	fi.g1 = make([]float64, n)
	fi.warm.b = make([]float64, nc) // the adjoint's warm start is z itself
	return fi, nil
}

// Size returns N, the length of every histogram.
func (fi *FastInterpolator) Size() int { return fi.n }

// Settings returns the settings in effect, defaults filled in.
func (fi *FastInterpolator) Settings() FastSettings { return fi.set }

// Columns returns C = 2F and E as Interpolator.Columns does.
func (fi *FastInterpolator) Columns() (c, e int) { return fi.base.Columns() }

// SetTol changes the marginal and adjoint tolerances (0 leaves one
// unchanged), e.g. to tighten them as an optimisation converges.
func (fi *FastInterpolator) SetTol(tol, adjointTol float64) {
	if math.IsNaN(tol) || math.IsNaN(adjointTol) {
		panic("ot: SetTol: NaN tolerance")
	}
	if tol != 0 {
		fi.set.Tol = tol
	}
	if adjointTol != 0 {
		fi.set.AdjointTol = adjointTol
	}
}

// Stats returns the iteration counts and residuals of the last Forward and
// Backward.
func (fi *FastInterpolator) Stats() FastStats { return fi.stats }

// Recs returns the reconstructions of the last Forward, indexed
// [sequence][frame], as views into the workspace.
func (fi *FastInterpolator) Recs() [][][]float64 { return fi.base.recs }

// MemoryBytes returns the size of the workspace in bytes, about
// 8·N·(14.5·C + 6E + 3) (8·N·(12.5·C + 3) without endpoint frames), two
// N×C blocks of which (the Interpolator's a and u) are unused: no tape,
// whatever the number of iterations. With AdjointGMRES the Krylov basis
// adds 8·N·C·(AdjointRestart+2) (allocated by the first Backward) and the
// kernel images of the basis vectors one N×C block per vector used (at
// most AdjointRestart+1; 2–6 in warm 32³ solves at tol 1e-3), and
// Anderson mixing 8·N·C·(2·Anderson+3) (allocated by the first Forward).
func (fi *FastInterpolator) MemoryBytes() int {
	b := fi.base
	f := len(b.k1) + len(b.ones) + len(b.q) + len(b.a) + len(b.b) + len(b.tapeU) + len(b.tapeV) +
		len(b.aEnd) + len(b.rEnd) + len(fi.uEnd) + len(fi.src2) + len(fi.z) + len(fi.zNew) + len(fi.g2) +
		len(fi.gsrc) + len(fi.g1) + len(fi.warm.b) + len(fi.viol)
	if fi.set.AdjointGMRES {
		f += (fi.set.AdjointRestart + 2) * len(fi.z)
		for _, a := range fi.abar {
			f += len(a)
		}
	}
	if fi.set.Anderson > 0 {
		f += (2*fi.set.Anderson + 3) * len(fi.z)
	}
	return 8 * f
}

// SaveWarm copies the warm-start state (scalings and adjoint vector) into
// w, reusing its buffers.
func (fi *FastInterpolator) SaveWarm(w *WarmStart) {
	w.hasB, w.hasZ = fi.warm.hasB, fi.warm.hasZ
	w.b = append(w.b[:0], fi.warm.b...)
	w.z = append(w.z[:0], fi.z...)
}

// LoadWarm restores a state saved by SaveWarm (of this FastInterpolator);
// the zero WarmStart means the cold start. It panics if w comes from an
// interpolator of another size.
func (fi *FastInterpolator) LoadWarm(w *WarmStart) {
	if w.hasB && len(w.b) != len(fi.warm.b) || w.hasZ && len(w.z) != len(fi.z) {
		panic("ot: LoadWarm: state of another interpolator")
	}
	fi.warm.hasB, fi.warm.hasZ = w.hasB, w.hasZ
	if w.hasB {
		copy(fi.warm.b, w.b)
	}
	if w.hasZ {
		copy(fi.z, w.z)
	} else {
		clear(fi.z)
	}
}

// ResetWarm returns to the cold start: the next Forward starts from b = 1
// and the next Backward from z = 0.
func (fi *FastInterpolator) ResetWarm() {
	fi.warm.hasB, fi.warm.hasZ = false, false
	clear(fi.z)
}

// Forward reconstructs every frame of every sequence with the current
// kernel, iterating to the marginal tolerance from the stored scalings, and
// returns the reconstructions (the same views as Recs). Errors are those of
// Interpolator.Forward; when a warm-started Forward meets a non-finite value
// it is retried once from b = 1 before the error is returned.
func (fi *FastInterpolator) Forward() ([][][]float64, error) {
	fi.done = false
	fi.stats = FastStats{}
	warm := fi.warm.hasB && !fi.set.Cold
	err := fi.forward(warm)
	if err != nil && warm && isNonFinite(err) {
		its := fi.stats.Iterations
		fi.stats.ColdRetry = true
		err = fi.forward(false)
		fi.stats.Iterations += its
	}
	if err != nil {
		return nil, err
	}
	if fi.hasInter {
		fi.fixGauge()
		copy(fi.warm.b, fi.bIn)
		fi.warm.hasB = true
	}
	fi.done = true
	return fi.base.recs, nil
}

// gaugeFactors returns frame f's gauge scalings for the ratio s = Σb₁/Σb₀:
// c₀ = s^λ₁ and c₁ = s^−λ₀ (Π c_k^λ_k = 1; scaled by them, Σb₀ = Σb₁).
func (fi *FastInterpolator) gaugeFactors(f int, s float64) (c0, c1 float64) {
	return math.Pow(s, fi.base.lam1[f]), math.Pow(s, -fi.base.lam0[f])
}

// fixGauge moves the last iteration along the gauge of each frame,
// b_k → c_k·b_k with c₀ = s^λ₁, c₁ = s^−λ₀ and s = Σb₁/Σb₀ (so that Π c_k^λ_k
// = 1 and afterwards Σb₀ = Σb₁), scaling u, a, v and b' alike: q is
// unchanged. It then records s and Σb'₀ of b' for the gauge map G of
// Backward.
func (fi *FastInterpolator) fixGauge() {
	b := fi.base
	for f := 0; f < b.nInt; f++ {
		c0, c1 := 2*f, 2*f+1
		s := sum(b.col(fi.bIn, c1)) / sum(b.col(fi.bIn, c0))
		g0, g1 := fi.gaugeFactors(f, s)
		for k, ck := range [2]float64{g0, g1} {
			col := 2*f + k
			bi, uc, ac, vc, bo := b.col(fi.bIn, col), b.col(fi.u, col), b.col(fi.a, col), b.col(fi.v, col), b.col(fi.bOut, col)
			for i := range bi {
				bi[i] *= ck
				uc[i] *= ck
				ac[i] /= ck
				vc[i] /= ck
				bo[i] *= ck
			}
		}
		s0 := sum(b.col(fi.bOut, c0))
		fi.gaugeS[f], fi.gaugeS0[f] = sum(b.col(fi.bOut, c1))/s0, s0
	}
}

// checkEnd reports an endpoint reconstruction r_end without finite
// positive mass.
func (fi *FastInterpolator) checkEnd() error {
	b := fi.base
	for e, r := range b.endRef {
		if !positiveFinite(sum(b.col(b.rEnd, e))) {
			return &NonFiniteError{Op: "forward", Sequence: r.seq, Frame: r.frame, Hint: hintUnderflow}
		}
	}
	return nil
}

func isNonFinite(err error) bool {
	_, ok := err.(*NonFiniteError)
	return ok
}

func (fi *FastInterpolator) forward(warm bool) error {
	b := fi.base
	fi.stats.Warm = warm
	// Warm with interior frames, the endpoint frames' K·a_end rides along
	// with the first iteration's K·b (one kernel application instead of
	// two), and for a kernel that keeps K·1 = 1 (OnesPreserving) K·1 is not
	// computed: both save the cost of reading the factor 2·S times, which
	// applications of a few columns are bound by at 32³. Cold, it runs as
	// Interpolator's does, bitwise.
	fuse := fi.hasEnd && fi.hasInter && warm
	switch {
	case fi.hasEnd && warm && preservesOnes(fi.k):
		copy(b.k1, b.ones)
	case fi.hasEnd || !warm:
		if err := fi.k.Apply(b.k1, b.ones, 1); err != nil {
			return fmt.Errorf("ot: FastInterpolator.Forward: kernel: %w", err)
		}
	}
	if fi.hasEnd {
		for e, p := range b.endPole {
			ae := b.col(b.aEnd, e)
			for i := range ae {
				ae[i] = p[i] / b.k1[i]
			}
		}
		if fuse {
			copy(fi.src2[2*len(fi.a):], b.aEnd)
		} else {
			if err := fi.k.Apply(b.rEnd, b.aEnd, b.nEnd); err != nil {
				return fmt.Errorf("ot: FastInterpolator.Forward: kernel: %w", err)
			}
			if err := fi.checkEnd(); err != nil {
				return err
			}
		}
	}
	if !fi.hasInter {
		fi.stats.Converged = true
		return nil
	}
	c := 2 * b.nInt
	if warm {
		copy(fi.bIn, fi.warm.b)
	}
	if fi.set.Anderson > 0 {
		if fi.aa == nil {
			fi.aa = newAnderson(fi.set.Anderson, b.n, b.nInt)
		}
		if warm {
			fi.aa.carry()
		} else {
			fi.aa.reset()
		}
	}
	mixed := false // whether this iteration's input is an Anderson mix
	for it := 1; it <= fi.set.MaxIterations; it++ {
		fi.stats.Iterations++
		switch {
		case it == 1 && !warm:
			for j := 0; j < c; j++ {
				copy(b.col(fi.u, j), b.k1)
				copy(b.col(fi.bIn, j), b.ones)
			}
		case it == 1 && fuse:
			// K·[b_in | a_end] into [u | r_end].
			if err := fi.k.Apply(fi.uEnd, fi.src2[len(fi.a):], c+b.nEnd); err != nil {
				return fmt.Errorf("ot: FastInterpolator.Forward: kernel: %w", err)
			}
			copy(b.rEnd, fi.uEnd[len(fi.u):])
			if err := fi.checkEnd(); err != nil {
				return err
			}
		default:
			if err := fi.k.Apply(fi.u, fi.bIn, c); err != nil {
				return fmt.Errorf("ot: FastInterpolator.Forward: kernel: %w", err)
			}
		}
		for j := 0; j < c; j++ {
			aj, uj, pj := b.col(fi.a, j), b.col(fi.u, j), b.pole[j]
			for i := range aj {
				aj[i] = pj[i] / uj[i]
			}
		}
		if err := fi.k.Apply(fi.v, fi.a, c); err != nil {
			return fmt.Errorf("ot: FastInterpolator.Forward: kernel: %w", err)
		}
		var worst float64
		for f := 0; f < b.nInt; f++ {
			l0, l1 := b.lam0[f], b.lam1[f]
			v0, v1 := b.col(fi.v, 2*f), b.col(fi.v, 2*f+1)
			bi0, bi1 := b.col(fi.bIn, 2*f), b.col(fi.bIn, 2*f+1)
			b0, b1 := b.col(fi.bOut, 2*f), b.col(fi.bOut, 2*f+1)
			qf := b.col(b.q, f)
			var mass, e0, e1 float64
			for i := range qf {
				qi := geo(l0, l1, v0[i], v1[i])
				qf[i] = qi
				mass += qi
				b0[i] = qi / v0[i]
				b1[i] = qi / v1[i]
				e0 += math.Abs(bi0[i]*v0[i] - qi)
				e1 += math.Abs(bi1[i]*v1[i] - qi)
			}
			if !positiveFinite(mass) || math.IsNaN(e0+e1) {
				r := b.intRef[f]
				return &NonFiniteError{Op: "forward", Sequence: r.seq, Frame: r.frame, Iteration: fi.stats.Iterations, Hint: hintUnderflow}
			}
			fi.viol[2*f], fi.viol[2*f+1] = e0, e1
			worst = math.Max(worst, math.Max(e0, e1))
		}
		fi.stats.Violation = worst
		if worst <= fi.set.Tol && !mixed {
			fi.stats.Converged = true
			break
		}
		if it == fi.set.MaxIterations {
			break
		}
		if fi.set.Anderson > 0 && worst > fi.set.Tol {
			mixed = fi.aa.step(fi.bIn, fi.bOut, fi.viol, fi.base.q)
		} else {
			// The plain step, also after a mixed input that met the
			// tolerance: the last iteration's input must be an image of T
			// (see FastSettings.Anderson).
			copy(fi.bIn, fi.bOut)
			mixed = false
		}
	}
	if fi.set.Anderson > 0 {
		fi.stats.AndersonRestarts += fi.aa.restarts
	}
	return nil
}

// correction returns zᵀ·(T̃(b) − b), T̃ = G∘T the gauge-fixed iteration
// and b the last iteration's input (T(b) is b', both moved to the gauge by
// Forward; G scales b'₀ by s^λ₁ and b'₁ by s^−λ₀).
func (fi *FastInterpolator) correction() float64 {
	b := fi.base
	var corr float64
	for f := 0; f < b.nInt; f++ {
		g0, g1 := fi.gaugeFactors(f, fi.gaugeS[f])
		for k, ck := range [2]float64{g0, g1} {
			col := 2*f + k
			z, bi, bo := b.col(fi.z, col), b.col(fi.bIn, col), b.col(fi.bOut, col)
			for i, zi := range z {
				corr += zi * (ck*bo[i] - bi[i])
			}
		}
	}
	return corr
}

// Backward writes into gparam (ADDING, like Interpolator.Backward) the
// gradient with respect to the kernel parameters of a scalar objective of
// the reconstructions of the last Forward, given its gradient grec (same
// shape as Recs), by implicit differentiation of the Sinkhorn fixed point
// (see FastInterpolator). It returns an error if a kernel call fails or
// the gradient is not finite; not reaching AdjointTol is reported by Stats,
// not as an error.
//
// It panics if the kernel is not a DiffKernel, no successful Forward
// preceded it, or a length is wrong.
func (fi *FastInterpolator) Backward(gparam []float64, grec [][][]float64) error {
	dk, ok := fi.k.(DiffKernel)
	if !ok {
		panic("ot: FastInterpolator.Backward: the kernel is not a DiffKernel")
	}
	if !fi.done {
		panic("ot: FastInterpolator.Backward: no successful Forward to differentiate")
	}
	b := fi.base
	b.checkGrads("FastInterpolator.Backward", dk, gparam, grec)
	fi.stats.AdjointIterations, fi.stats.AdjointResidual, fi.stats.AdjointConverged = 0, 0, false
	fi.stats.Correction = 0
	c := 2 * b.nInt
	if fi.hasInter {
		if fi.set.Cold || !fi.warm.hasZ {
			clear(fi.z)
		}
		if fi.set.AdjointGMRES {
			if err := fi.adjointGMRES(grec); err != nil {
				return err
			}
		} else if err := fi.adjointFixedPoint(grec); err != nil {
			return err
		}
		fi.warm.hasZ = true
		fi.stats.Correction = fi.correction()
	} else {
		fi.stats.AdjointConverged = true
	}
	// The weight gradient, once per kernel input, in one call on
	// [a | b | a_end]: v = K·a with v̄, u = K·b with ū, and the endpoint
	// reconstructions K·a_end with their loss gradients (one call instead
	// of two: in a 32³ profile the separate endpoint call on two columns
	// took 4.5 s against 17.6 s for the one on 32, the solves being bound
	// by reading the factor).
	n := fi.n
	cols, nc := 0, 0
	if fi.hasInter {
		cols, nc = 2*c, 2*c*n
	}
	var gsrc []float64
	if fi.hasEnd {
		copy(fi.src2[nc:], b.aEnd)
		b.endGrads(fi.g2[nc:], grec)
		cols += b.nEnd
		gsrc = fi.gsrc[:cols*n]
	}
	if err := dk.Adjoint(gsrc, gparam, fi.src2[:cols*n], fi.g2[:cols*n], cols); err != nil {
		return fmt.Errorf("ot: FastInterpolator.Backward: kernel adjoint: %w", err)
	}
	if fi.hasEnd && !preservesOnes(dk) {
		// a_end = P/K·1: the gradient reaches K·1 (input 1) through it
		// (nothing when K·1 = 1 for all parameters, OnesPreserving).
		clear(fi.g1)
		b.endK1Grad(fi.g1, gsrc[nc:])
		if err := dk.Adjoint(nil, gparam, b.ones, fi.g1, 1); err != nil {
			return fmt.Errorf("ot: FastInterpolator.Backward: kernel adjoint: %w", err)
		}
	}
	for _, g := range gparam {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return &NonFiniteError{Op: "backward", Sequence: -1, Frame: -1, Hint: hintGrad}
		}
	}
	return nil
}
