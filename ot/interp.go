package ot

import (
	"fmt"
	"math"
)

// Sequence is one displacement interpolation to reconstruct: two poles
// (the histograms at t = 0 and t = 1) and the times of its frames.
type Sequence struct {
	// Source and Target are the poles P₀ (t = 0) and P₁ (t = 1), each of
	// length N, non-negative. They are copied by NewInterpolator.
	Source, Target []float64
	// Times are the frame times t_j ∈ [0, 1], in any order. nil means
	// Linspace(Frames).
	Times []float64
	// Frames is the number of frames when Times is nil.
	Frames int
}

// Linspace returns p times evenly spaced on [0, 1] with numpy.linspace
// semantics: t_j = j·fl(1/(p−1)) and the last one exactly 1.0; p = 1 gives
// [0].
func Linspace(p int) []float64 {
	if p < 1 {
		panic("ot: Linspace: need at least one point")
	}
	t := make([]float64, p)
	if p == 1 {
		return t
	}
	step := 1 / float64(p-1)
	for j := range t {
		t[j] = float64(j) * step
	}
	t[p-1] = 1
	return t
}

// InterpSettings configures an Interpolator. A nil *InterpSettings and zero
// fields mean the documented defaults.
type InterpSettings struct {
	// Iterations is the number of Sinkhorn iterations L of every interior
	// barycenter. 0 means DefaultIterations (50).
	Iterations int
	// ForwardOnly drops the tape: Forward keeps two N×C blocks instead of
	// 2L, and Backward panics.
	ForwardOnly bool
}

// Interpolator reconstructs the frames of many displacement interpolations
// with Sinkhorn barycenters, all advancing in lock-step, and back-propagates
// a loss gradient through them to the kernel parameters.
//
// Frame j of a sequence is the barycenter of its poles with weights
// λ = (1−t_j, t_j), computed as in Barycenter (docs/method.md,
// "Barycenters and interpolation"). A frame whose weight is exactly 1
// (t = 0, t = 1, or a t so small that 1−t rounds to 1) is an endpoint
// frame, K·(P/K·1). Let F be the number of interior frames
// over all sequences and C = 2F: the interior frames form N×C blocks whose
// column 2f+k belongs to pole k of interior frame f, in (sequence, frame)
// order. One Forward makes at most 2L+1 kernel applications: K·1 on one
// column, the endpoint frames on one N×E block (E endpoint frames, skipped
// when E = 0), and two N×C applications per Sinkhorn iteration except the
// first, whose K·b = K·1 is broadcast. Backward makes as many adjoint calls.
//
// The workspace is allocated once by NewInterpolator; Forward and Backward
// do not allocate (beyond what the kernel does). An Interpolator is not safe
// for concurrent use.
type Interpolator struct {
	k     Kernel
	n     int
	iters int
	tape  bool

	nInt, nEnd int
	lam0, lam1 []float64   // per interior frame
	pole       [][]float64 // per interior column (2F)
	endPole    [][]float64 // per endpoint frame
	intRef     []frameRef  // per interior frame
	endRef     []frameRef  // per endpoint frame

	ones, k1, g1 []float64 // N
	a, b         []float64 // N×C; in Backward: src of adjoints, b̄
	ab, vb       []float64 // N×C, Backward only
	tapeU, tapeV []float64 // L blocks N×C (1 without tape): K·b, K·a
	tapeQ        []float64 // L blocks N×F (1 without tape): q of every iteration
	q            []float64 // N×F, interior reconstructions: tapeQ's last block
	aEnd, rEnd   []float64 // N×E
	gEnd, abEnd  []float64 // N×E, Backward only
	recs         [][][]float64
	done         bool // a successful Forward is on the tape
}

type frameRef struct{ seq, frame int }

// NewInterpolator builds the workspace for the sequences seqs over the
// kernel k (all histograms have length k.Size()). It returns an error for
// invalid data (negative or non-finite pole entries, times outside [0, 1])
// and panics on programmer errors (wrong lengths, no sequence, no frame).
func NewInterpolator(k Kernel, seqs []Sequence, s *InterpSettings) (*Interpolator, error) {
	if s == nil {
		s = &InterpSettings{}
	}
	if len(seqs) == 0 {
		panic("ot: NewInterpolator: no sequence")
	}
	n := k.Size()
	ip := &Interpolator{k: k, n: n, iters: s.Iterations, tape: !s.ForwardOnly}
	if ip.iters == 0 {
		ip.iters = DefaultIterations
	}
	if ip.iters < 0 {
		panic("ot: NewInterpolator: negative Iterations")
	}
	ip.recs = make([][][]float64, len(seqs))
	type slot struct {
		end bool
		idx int
	}
	slots := make([][]slot, len(seqs))
	for si, sq := range seqs {
		if len(sq.Source) != n || len(sq.Target) != n {
			panic(fmt.Sprintf("ot: NewInterpolator: sequence %d: poles of length %d and %d, want kernel size %d",
				si, len(sq.Source), len(sq.Target), n))
		}
		src := append([]float64(nil), sq.Source...)
		tgt := append([]float64(nil), sq.Target...)
		if err := checkHist(src); err != nil {
			return nil, fmt.Errorf("ot: NewInterpolator: sequence %d: source: %w", si, err)
		}
		if err := checkHist(tgt); err != nil {
			return nil, fmt.Errorf("ot: NewInterpolator: sequence %d: target: %w", si, err)
		}
		times := sq.Times
		if times == nil {
			if sq.Frames < 1 {
				panic(fmt.Sprintf("ot: NewInterpolator: sequence %d: no Times and Frames = %d", si, sq.Frames))
			}
			times = Linspace(sq.Frames)
		}
		if len(times) == 0 {
			panic(fmt.Sprintf("ot: NewInterpolator: sequence %d: no frame", si))
		}
		slots[si] = make([]slot, len(times))
		for j, t := range times {
			if !(t >= 0 && t <= 1) {
				return nil, fmt.Errorf("ot: NewInterpolator: sequence %d: time %d is %v, want 0 ≤ t ≤ 1", si, j, t)
			}
			l0, l1 := 1-t, t
			switch {
			case l0 == 1:
				slots[si][j] = slot{true, ip.nEnd}
				ip.endPole = append(ip.endPole, src)
				ip.endRef = append(ip.endRef, frameRef{si, j})
				ip.nEnd++
			case l1 == 1:
				slots[si][j] = slot{true, ip.nEnd}
				ip.endPole = append(ip.endPole, tgt)
				ip.endRef = append(ip.endRef, frameRef{si, j})
				ip.nEnd++
			default:
				slots[si][j] = slot{false, ip.nInt}
				ip.lam0 = append(ip.lam0, l0)
				ip.lam1 = append(ip.lam1, l1)
				ip.pole = append(ip.pole, src, tgt)
				ip.intRef = append(ip.intRef, frameRef{si, j})
				ip.nInt++
			}
		}
	}
	c := 2 * ip.nInt
	nc := n * c
	ip.ones = make([]float64, n)
	for i := range ip.ones {
		ip.ones[i] = 1
	}
	ip.k1 = make([]float64, n)
	ip.a = make([]float64, nc)
	ip.b = make([]float64, nc)
	slots1 := 1
	if ip.tape {
		slots1 = ip.iters
	}
	ip.tapeU = make([]float64, slots1*nc)
	ip.tapeV = make([]float64, slots1*nc)
	nq := n * ip.nInt
	ip.tapeQ = make([]float64, slots1*nq)
	ip.q = ip.tapeQ[(slots1-1)*nq:]
	ip.aEnd = make([]float64, n*ip.nEnd)
	ip.rEnd = make([]float64, n*ip.nEnd)
	if ip.tape {
		ip.g1 = make([]float64, n)
		ip.ab = make([]float64, nc)
		ip.vb = make([]float64, nc)
		ip.gEnd = make([]float64, n*ip.nEnd)
		ip.abEnd = make([]float64, n*ip.nEnd)
	}
	for si := range slots {
		ip.recs[si] = make([][]float64, len(slots[si]))
		for j, sl := range slots[si] {
			if sl.end {
				ip.recs[si][j] = ip.rEnd[sl.idx*n : (sl.idx+1)*n : (sl.idx+1)*n]
			} else {
				ip.recs[si][j] = ip.q[sl.idx*n : (sl.idx+1)*n : (sl.idx+1)*n]
			}
		}
	}
	return ip, nil
}

// Size returns N, the length of every histogram.
func (ip *Interpolator) Size() int { return ip.n }

// Iterations returns the number L of Sinkhorn iterations.
func (ip *Interpolator) Iterations() int { return ip.iters }

// Columns returns C = 2F, the number of columns of the interior blocks (F
// interior frames over all sequences), and E, the number of endpoint frames.
func (ip *Interpolator) Columns() (c, e int) { return 2 * ip.nInt, ip.nEnd }

// MemoryBytes returns the size of the workspace in bytes:
//
//	8·N·((2.5·L+4)·C + 4E + 3)    with the tape (the default)
//	8·N·(4.5·C + 2E + 2)          with ForwardOnly
//
// (plus the copied poles, 16·N per sequence, and small per-frame slices).
// The tape, K·b, K·a and the reconstructions q of every iteration, is the
// 2.5·L·C term.
func (ip *Interpolator) MemoryBytes() int {
	f := len(ip.k1) + len(ip.ones) + len(ip.g1) + len(ip.a) + len(ip.b) +
		len(ip.ab) + len(ip.vb) + len(ip.tapeU) + len(ip.tapeV) + len(ip.tapeQ) +
		len(ip.aEnd) + len(ip.rEnd) + len(ip.gEnd) + len(ip.abEnd)
	return 8 * f
}

// Recs returns the reconstructions, indexed [sequence][frame], as views
// into the workspace. Their contents are those of the last Forward and are
// overwritten by the next one. Forward returns the same slices.
func (ip *Interpolator) Recs() [][][]float64 { return ip.recs }

func (ip *Interpolator) col(x []float64, c int) []float64 {
	return x[c*ip.n : (c+1)*ip.n : (c+1)*ip.n]
}

// geo returns exp(λ₀·log v₀ + λ₁·log v₁), the products rounded separately
// (the explicit conversions forbid fused multiply-adds), so that every
// caller computes bitwise the same value: FastInterpolator's cold sweep
// must reproduce Interpolator.Forward exactly.
func geo(l0, l1, v0, v1 float64) float64 {
	return math.Exp(float64(l0*math.Log(v0)) + float64(l1*math.Log(v1)))
}

// Forward reconstructs every frame of every sequence with the current
// kernel and returns the reconstructions, indexed [sequence][frame] (the
// same views as Recs). With the tape on, it records what Backward needs.
//
// If a reconstruction's mass becomes NaN, infinite or zero (the kernel
// underflowed), Forward stops and returns a *NonFiniteError naming the
// sequence, frame and iteration; kernel errors are wrapped.
func (ip *Interpolator) Forward() ([][][]float64, error) {
	ip.done = false
	n := ip.n
	if err := ip.k.Apply(ip.k1, ip.ones, 1); err != nil {
		return nil, fmt.Errorf("ot: Forward: kernel: %w", err)
	}
	// Endpoint frames: K·(P / K·1), one application for all of them.
	if ip.nEnd > 0 {
		for e, p := range ip.endPole {
			ae := ip.col(ip.aEnd, e)
			for i := range ae {
				ae[i] = p[i] / ip.k1[i]
			}
		}
		if err := ip.k.Apply(ip.rEnd, ip.aEnd, ip.nEnd); err != nil {
			return nil, fmt.Errorf("ot: Forward: kernel: %w", err)
		}
		for e, r := range ip.endRef {
			if !positiveFinite(sum(ip.col(ip.rEnd, e))) {
				return nil, &NonFiniteError{Op: "forward", Sequence: r.seq, Frame: r.frame, Hint: hintUnderflow}
			}
		}
	}
	// Interior frames, all in lock-step.
	c := 2 * ip.nInt
	nc, nq := n*c, n*ip.nInt
	for it := 1; it <= ip.iters && c > 0; it++ {
		slot := 0
		if ip.tape {
			slot = it - 1
		}
		u := ip.tapeU[slot*nc : (slot+1)*nc]
		v := ip.tapeV[slot*nc : (slot+1)*nc]
		q := ip.tapeQ[slot*nq : (slot+1)*nq]
		if it == 1 {
			for j := 0; j < c; j++ {
				copy(ip.col(u, j), ip.k1)
			}
		} else if err := ip.k.Apply(u, ip.b, c); err != nil {
			return nil, fmt.Errorf("ot: Forward: kernel: %w", err)
		}
		for j := 0; j < c; j++ {
			aj, uj, pj := ip.col(ip.a, j), ip.col(u, j), ip.pole[j]
			for i := range aj {
				aj[i] = pj[i] / uj[i]
			}
		}
		if err := ip.k.Apply(v, ip.a, c); err != nil {
			return nil, fmt.Errorf("ot: Forward: kernel: %w", err)
		}
		for f := 0; f < ip.nInt; f++ {
			l0, l1 := ip.lam0[f], ip.lam1[f]
			v0, v1 := ip.col(v, 2*f), ip.col(v, 2*f+1)
			b0, b1 := ip.col(ip.b, 2*f), ip.col(ip.b, 2*f+1)
			qf := ip.col(q, f)
			var mass float64
			for i := range qf {
				qi := geo(l0, l1, v0[i], v1[i])
				qf[i] = qi
				mass += qi
				b0[i] = qi / v0[i]
				b1[i] = qi / v1[i]
			}
			if !positiveFinite(mass) {
				r := ip.intRef[f]
				return nil, &NonFiniteError{Op: "forward", Sequence: r.seq, Frame: r.frame, Iteration: it, Hint: hintUnderflow}
			}
		}
	}
	ip.done = true
	return ip.recs, nil
}

// Backward back-propagates through the last Forward. grec[s][j] (length N)
// is the gradient of a scalar objective with respect to reconstruction j of
// sequence s (the same shape as Recs); the poles are constants. The
// gradient with respect to the kernel parameters θ is ADDED to gparam
// (length NumParams() of the kernel, which must be a DiffKernel).
//
// The reverse pass runs through the L iterations backwards, recomputing
// a = P/K·b and b = q/K·a elementwise from the taped K·b, K·a and q. Per iteration
// it makes two adjoint calls on N×C blocks; the endpoint frames take one
// adjoint call on their N×E block, and the K·1 shared by the endpoint rule
// and the first iteration takes a final one-column adjoint call whose
// incoming gradient sums all of its uses. (For a mass-preserving kernel such
// as the heat kernel, K(θ)·1 = 1 for every θ and that last call adds zero in
// exact arithmetic; it is kept so that any DiffKernel is differentiated
// exactly.)
//
// The adjoint calls come in exactly the reverse order of Forward's Apply
// calls, each with a src block bitwise equal to that of its Apply, so a
// kernel that records its applications on a LIFO tape (kernel.Heat's Store
// mode) can pop them instead of recomputing.
//
// Backward panics if the kernel is not a DiffKernel, the Interpolator was
// built with ForwardOnly, no successful Forward preceded it, or a length is
// wrong. A gradient that is not finite gives a *NonFiniteError.
func (ip *Interpolator) Backward(gparam []float64, grec [][][]float64) error {
	dk, ok := ip.k.(DiffKernel)
	if !ok {
		panic("ot: Backward: the kernel is not a DiffKernel")
	}
	if !ip.tape {
		panic("ot: Backward: the Interpolator was built with ForwardOnly")
	}
	if !ip.done {
		panic("ot: Backward: no successful Forward to back-propagate through")
	}
	ip.checkGrads("Backward", dk, gparam, grec)
	n := ip.n
	clear(ip.g1)
	c := 2 * ip.nInt
	nc, nq := n*c, n*ip.nInt
	if c > 0 {
		clear(ip.b) // b̄ of the last iteration: b_L is not an output
	}
	qcur := ip.q // q of the last iteration is the reconstruction itself
	for it := ip.iters; it >= 1 && c > 0; it-- {
		u := ip.tapeU[(it-1)*nc : it*nc]
		v := ip.tapeV[(it-1)*nc : it*nc]
		// Recompute a and b of iteration it (q was recomputed by the
		// previous step); form v̄ = ∂/∂(K·a).
		for f := 0; f < ip.nInt; f++ {
			l0, l1 := ip.lam0[f], ip.lam1[f]
			c0, c1 := 2*f, 2*f+1
			u0, u1 := ip.col(u, c0), ip.col(u, c1)
			v0, v1 := ip.col(v, c0), ip.col(v, c1)
			p0, p1 := ip.pole[c0], ip.pole[c1]
			a0, a1 := ip.col(ip.a, c0), ip.col(ip.a, c1)
			bb0, bb1 := ip.col(ip.b, c0), ip.col(ip.b, c1)
			vb0, vb1 := ip.col(ip.vb, c0), ip.col(ip.vb, c1)
			qf := ip.col(qcur, f)
			var gq []float64
			if it == ip.iters {
				r := ip.intRef[f]
				gq = grec[r.seq][r.frame]
			}
			for i := 0; i < n; i++ {
				a0[i] = p0[i] / u0[i]
				a1[i] = p1[i] / u1[i]
				qi := qf[i]
				bi0, bi1 := qi/v0[i], qi/v1[i]
				qb := bb0[i]/v0[i] + bb1[i]/v1[i]
				if gq != nil {
					qb += gq[i]
				}
				vb0[i] = (qb*qi*l0 - bb0[i]*bi0) / v0[i]
				vb1[i] = (qb*qi*l1 - bb1[i]*bi1) / v1[i]
			}
		}
		// Through Ka = K·a.
		if err := dk.Adjoint(ip.ab, gparam, ip.a, ip.vb, c); err != nil {
			return fmt.Errorf("ot: Backward: kernel adjoint: %w", err)
		}
		// Through a = P / u: ū = −ā·a/u (into vb).
		for j := 0; j < c; j++ {
			abj, aj, uj, ubj := ip.col(ip.ab, j), ip.col(ip.a, j), ip.col(u, j), ip.col(ip.vb, j)
			for i := range ubj {
				ubj[i] = -abj[i] * aj[i] / uj[i]
			}
		}
		if it == 1 {
			// u = K·1 for every column: sum into the K·1 gradient.
			for j := 0; j < c; j++ {
				ubj := ip.col(ip.vb, j)
				for i := range ip.g1 {
					ip.g1[i] += ubj[i]
				}
			}
			break
		}
		// Through u = K·b_{it−1}: recompute b_{it−1} (into a) from the
		// taped q_{it−1} (used by the next step) and K·a_{it−1}.
		vp := ip.tapeV[(it-2)*nc : (it-1)*nc]
		qcur = ip.tapeQ[(it-2)*nq : (it-1)*nq]
		for f := 0; f < ip.nInt; f++ {
			v0, v1 := ip.col(vp, 2*f), ip.col(vp, 2*f+1)
			b0, b1 := ip.col(ip.a, 2*f), ip.col(ip.a, 2*f+1)
			qf := ip.col(qcur, f)
			for i := 0; i < n; i++ {
				b0[i] = qf[i] / v0[i]
				b1[i] = qf[i] / v1[i]
			}
		}
		if err := dk.Adjoint(ip.b, gparam, ip.a, ip.vb, c); err != nil {
			return fmt.Errorf("ot: Backward: kernel adjoint: %w", err)
		}
	}
	// Endpoint frames: r = K·a, a = P / K·1.
	if err := ip.endpointAdjoint(dk, gparam, grec, ip.gEnd, ip.abEnd, ip.g1); err != nil {
		return fmt.Errorf("ot: Backward: %w", err)
	}
	// Through K·1 (shared by the endpoint rule and the first iteration),
	// unless K·1 = 1 for all parameters (OnesPreserving).
	if !preservesOnes(dk) {
		if err := dk.Adjoint(nil, gparam, ip.ones, ip.g1, 1); err != nil {
			return fmt.Errorf("ot: Backward: kernel adjoint: %w", err)
		}
	}
	for _, g := range gparam {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return &NonFiniteError{Op: "backward", Sequence: -1, Frame: -1, Hint: hintGrad}
		}
	}
	return nil
}

// endpointAdjoint back-propagates through the endpoint frames r = K·a,
// a = P/K·1: it adds their parameter gradient to gparam and the gradient
// with respect to K·1 to g1. gEnd and abEnd are N×E scratch blocks.
func (ip *Interpolator) endpointAdjoint(dk DiffKernel, gparam []float64, grec [][][]float64, gEnd, abEnd, g1 []float64) error {
	if ip.nEnd == 0 {
		return nil
	}
	ip.endGrads(gEnd, grec)
	if err := dk.Adjoint(abEnd, gparam, ip.aEnd, gEnd, ip.nEnd); err != nil {
		return fmt.Errorf("kernel adjoint: %w", err)
	}
	ip.endK1Grad(g1, abEnd)
	return nil
}

// endGrads copies the loss gradients of the endpoint frames into the N×E
// block gEnd.
func (ip *Interpolator) endGrads(gEnd []float64, grec [][][]float64) {
	for e, r := range ip.endRef {
		copy(ip.col(gEnd, e), grec[r.seq][r.frame])
	}
}

// endK1Grad adds to g1 the gradient with respect to K·1 through a = P/K·1,
// given abEnd = ∂F/∂a of the endpoint frames (N×E).
func (ip *Interpolator) endK1Grad(g1, abEnd []float64) {
	for e := 0; e < ip.nEnd; e++ {
		abe, ae := ip.col(abEnd, e), ip.col(ip.aEnd, e)
		for i := range g1 {
			g1[i] -= abe[i] * ae[i] / ip.k1[i]
		}
	}
}

// checkGrads panics unless gparam has one entry per kernel parameter and grec
// one length-N gradient per reconstructed frame (op names the caller).
func (ip *Interpolator) checkGrads(op string, dk DiffKernel, gparam []float64, grec [][][]float64) {
	if len(gparam) != dk.NumParams() {
		panic(fmt.Sprintf("ot: %s: len(gparam) = %d, want NumParams() = %d", op, len(gparam), dk.NumParams()))
	}
	if len(grec) != len(ip.recs) {
		panic("ot: " + op + ": grec must have one entry per sequence")
	}
	for s := range grec {
		if len(grec[s]) != len(ip.recs[s]) {
			panic(fmt.Sprintf("ot: %s: grec[%d] has %d frames, want %d", op, s, len(grec[s]), len(ip.recs[s])))
		}
		for j := range grec[s] {
			if len(grec[s][j]) != ip.n {
				panic(fmt.Sprintf("ot: %s: grec[%d][%d] has length %d, want %d", op, s, j, len(grec[s][j]), ip.n))
			}
		}
	}
}
