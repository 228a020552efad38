package ot

import (
	"fmt"
	"slices"
)

// Backward back-propagates through the last Forward: given grec[s][j], the
// gradient of a scalar objective with respect to reconstruction j of
// sequence s (the poles are constants), it ADDS the gradient with respect
// to the kernel parameters θ to gparam. Not reaching AdjointTol in an
// implicit solve is reported by Stats, not as an error; a gradient that is
// not finite gives a *NonFiniteError. Backward panics if the kernel is not
// a DiffKernel, the Interpolator was built with ForwardOnly, no successful
// Forward preceded it, or a length is wrong.
func (ip *Interpolator) Backward(gparam []float64, grec [][][]float64) error {
	dk, ok := ip.sk.k.(DiffKernel)
	if !ok {
		panic("ot: Backward: the kernel is not a DiffKernel")
	}
	if ip.set.ForwardOnly {
		panic("ot: Backward: the Interpolator was built with ForwardOnly")
	}
	if !ip.done {
		panic("ot: Backward: no successful Forward to back-propagate through")
	}
	ip.checkGrads(dk, gparam, grec)
	backward := ip.backwardImplicit
	if ip.tape {
		backward = ip.backwardUnrolled
	}
	if err := backward(dk, gparam, grec); err != nil {
		return wrap("Backward", err)
	}
	if slices.ContainsFunc(gparam, notFinite) {
		return backwardNonFinite(0)
	}
	return nil
}

// backwardUnrolled runs through the L taped iterations backwards,
// recomputing a = P/K·b and b = q/K·a elementwise from the taped K·b, K·a and
// q: two adjoint calls on N×C blocks per iteration, one on the endpoints' N×E
// block, and one on a column for the K·1 that the endpoint rule and the first
// iteration share, unless OnesPreserving (it would add zero). The adjoint
// calls come in exactly the reverse order of Forward's Apply calls, each with
// a src block bitwise equal to its Apply's, so a kernel that records its
// applications on a LIFO tape (kernel.Heat's Store mode) can pop them.
func (ip *Interpolator) backwardUnrolled(dk DiffKernel, gparam []float64, grec [][][]float64) error {
	s := &ip.sk
	clear(ip.g1)
	c := len(s.pole)
	if c > 0 {
		clear(s.bIn) // b̄ of the last iteration: b_L is not an output
		if err := ip.unrollIterations(dk, gparam, grec); err != nil {
			return err
		}
	}
	// Endpoint frames: r = K·a, a = P / K·1.
	if ip.nEnd > 0 {
		ip.endGrads(ip.gEnd, grec)
		if err := dk.Adjoint(ip.abEnd, gparam, ip.aEnd, ip.gEnd, ip.nEnd); err != nil {
			return fmt.Errorf("kernel adjoint: %w", err)
		}
		ip.endK1Grad(ip.g1, ip.abEnd)
	}
	// Through K·1 (shared by the endpoint rule and the first iteration).
	if !preservesOnes(dk) {
		if err := dk.Adjoint(nil, gparam, s.ones, ip.g1, 1); err != nil {
			return fmt.Errorf("kernel adjoint: %w", err)
		}
	}
	return nil
}

// unrollIterations back-propagates through the interior iterations, last
// first, leaving the gradient with respect to K·1 in g1; a holds the
// sources of the adjoint calls and bIn the gradient b̄.
func (ip *Interpolator) unrollIterations(dk DiffKernel, gparam []float64, grec [][][]float64) error {
	s := &ip.sk
	c := len(s.pole)
	_, _, qcur := s.blocks(ip.set.Iterations) // q of the last iteration is the reconstruction itself
	ip.grec = grec
	defer func() { ip.grec, s.cu, s.cv, s.cq = nil, nil, nil, nil }()
	for it := ip.set.Iterations; it >= 1; it-- {
		u, v, _ := s.blocks(it)
		s.cu, s.cv, s.cq = u, v, qcur
		parallel(&s.wg, ip, phaseUnroll, s.n, 6*c)
		ip.grec = nil // the loss gradient enters at the last iteration only
		// Through Ka = K·a.
		if err := dk.Adjoint(ip.ab, gparam, s.a, ip.vb, c); err != nil {
			return fmt.Errorf("kernel adjoint: %w", err)
		}
		// Through a = P / u: ū = −ā·a/u (into vb).
		ip.scaleAdjoint(ip.vb, ip.ab, u)
		if it == 1 {
			// u = K·1 for every column: sum into the K·1 gradient.
			parallel(&s.wg, ip, phaseOnesAdjoint, s.n, c)
			return nil
		}
		// Through u = K·b_{it−1}: recompute b_{it−1} (into a) from the
		// taped q_{it−1} (used by the next step) and K·a_{it−1}.
		_, vp, qp := s.blocks(it - 1)
		qcur = qp
		s.cv, s.cq = vp, qcur
		parallel(&s.wg, ip, phaseRescale, s.n, 2*c)
		if err := dk.Adjoint(s.bIn, gparam, s.a, ip.vb, c); err != nil {
			return fmt.Errorf("kernel adjoint: %w", err)
		}
	}
	return nil
}

// The elementwise phases of the reverse passes, run by runPart: those of
// unrollIterations and scaleAdjoint over rows, adjointVb over frames.
const (
	phaseUnroll       = iota // a, b and v̄ of the iteration (unrollBarycenter)
	phaseScaleAdjoint        // ū = −ā·a/u
	phaseOnesAdjoint         // g1 += Σ_columns ū
	phaseRescale             // b = q/v of the iteration before, into a
	phaseAdjointVb           // the implicit adjoint map's v̄, by frames
)

// runPart runs rows (or frames) lo..hi−1 of a phase of a reverse pass.
func (ip *Interpolator) runPart(phase, lo, hi int) {
	s := &ip.sk
	switch phase {
	case phaseAdjointVb:
		ip.adjointVbFrames(lo, hi)
	case phaseUnroll:
		ip.unrollBarycenter(lo, hi)
	case phaseScaleAdjoint:
		for j := range s.pole {
			dst, ab, a, u := s.col(ip.sdst, j)[lo:hi], s.col(ip.sab, j)[lo:hi], s.col(s.a, j)[lo:hi], s.col(ip.su, j)[lo:hi]
			for i, abi := range ab {
				dst[i] = -abi * a[i] / u[i]
			}
		}
	case phaseOnesAdjoint:
		g1 := ip.g1[lo:hi]
		for j := range s.pole {
			for i, v := range s.col(ip.vb, j)[lo:hi] {
				g1[i] += v
			}
		}
	case phaseRescale:
		for gi, g := range s.groups {
			qf := s.col(s.cq, gi)[lo:hi]
			for k := range g.lam {
				vk, bk := s.col(s.cv, g.col+k)[lo:hi], s.col(s.a, g.col+k)[lo:hi]
				for i, qi := range qf {
					bk[i] = qi / vk[i]
				}
			}
		}
	}
}

// scaleAdjoint sets dst = −ab⊙a/u, the gradient with respect to u via a = P/u.
func (ip *Interpolator) scaleAdjoint(dst, ab, u []float64) {
	ip.sdst, ip.sab, ip.su = dst, ab, u
	parallel(&ip.sk.wg, ip, phaseScaleAdjoint, ip.sk.n, 2*len(ip.sk.pole))
	ip.sdst, ip.sab, ip.su = nil, nil, nil
}

// unrollBarycenter recomputes rows lo..hi−1 of a and b of the iteration
// being unrolled from the taped u, v and q, and forms v̄ = ∂/∂(K·a) into vb
// from b̄ (in bIn) and, at the last iteration, the loss gradient.
func (ip *Interpolator) unrollBarycenter(lo, hi int) {
	s := &ip.sk
	for f, g := range s.groups {
		l0, l1 := g.lam[0], g.lam[1]
		c0, c1 := g.col, g.col+1
		u0, u1 := s.col(s.cu, c0)[lo:hi], s.col(s.cu, c1)[lo:hi]
		v0, v1 := s.col(s.cv, c0)[lo:hi], s.col(s.cv, c1)[lo:hi]
		p0, p1 := s.pole[c0][lo:hi], s.pole[c1][lo:hi]
		a0, a1 := s.col(s.a, c0)[lo:hi], s.col(s.a, c1)[lo:hi]
		bb0, bb1 := s.col(s.bIn, c0)[lo:hi], s.col(s.bIn, c1)[lo:hi]
		vb0, vb1 := s.col(ip.vb, c0)[lo:hi], s.col(ip.vb, c1)[lo:hi]
		qf := s.col(s.cq, f)[lo:hi]
		var gq []float64
		if ip.grec != nil {
			gq = ip.grec[g.seq][g.frame][lo:hi]
		}
		for i := range qf {
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
}

// endGrads copies the endpoint frames' loss gradients into the N×E gEnd.
func (ip *Interpolator) endGrads(gEnd []float64, grec [][][]float64) {
	for e, r := range ip.endRef {
		copy(ip.sk.col(gEnd, e), grec[r.seq][r.frame])
	}
}

// endK1Grad adds to g1 the gradient with respect to K·1 through a = P/K·1,
// given abEnd = ∂F/∂a of the endpoint frames (N×E).
func (ip *Interpolator) endK1Grad(g1, abEnd []float64) {
	s := &ip.sk
	for e := 0; e < ip.nEnd; e++ {
		abe, ae := s.col(abEnd, e), s.col(ip.aEnd, e)
		for i := range g1 {
			g1[i] -= abe[i] * ae[i] / s.k1[i]
		}
	}
}

// checkGrads panics unless gparam has one entry per kernel parameter and
// grec one length-N gradient per reconstructed frame.
func (ip *Interpolator) checkGrads(dk DiffKernel, gparam []float64, grec [][][]float64) {
	if len(gparam) != dk.NumParams() {
		panic(fmt.Sprintf("ot: Backward: len(gparam) = %d, want NumParams() = %d", len(gparam), dk.NumParams()))
	}
	if len(grec) != len(ip.recs) {
		panic("ot: Backward: grec must have one entry per sequence")
	}
	for s := range grec {
		if len(grec[s]) != len(ip.recs[s]) {
			panic(fmt.Sprintf("ot: Backward: grec[%d] has %d frames, want %d", s, len(grec[s]), len(ip.recs[s])))
		}
		for j := range grec[s] {
			if len(grec[s][j]) != ip.sk.n {
				panic(fmt.Sprintf("ot: Backward: grec[%d][%d] has length %d, want %d", s, j, len(grec[s][j]), ip.sk.n))
			}
		}
	}
}
