package ot

import (
	"cmp"
	"fmt"
	"math"
)

// implicitWork is the workspace of an Interpolator whose iteration keeps
// its input: the warm start and the implicit gradient's blocks.
type implicitWork struct {
	src2    []float64 // N×(2C+E): a | b_in | the endpoints' a (one Adjoint call on all)
	g2      []float64 // N×(2C+E): v̄ | ū | the endpoints' loss gradients
	vb, ub  []float64 // views into g2
	gsrc    []float64 // N×(2C+E): K·g2 (its last E columns are used)
	g1      []float64 // N
	z, zNew []float64 // N×C: the adjoint vector and its next iterate
	gaugeS  []float64 // per frame: s = Σb'₁/Σb'₀ of the last iteration
	gaugeS0 []float64 // per frame: Σb'₀
	warm    WarmStart // the stored scalings (its z is z itself)
	gm      *gmres    // allocated by the first GMRES solve
	vo      vecOps    // the fixed-point iteration's residual
	aa      *anderson // allocated by the first Forward with Anderson mixing

	zCur []float64 // the argument of the adjoint map's phase in progress
}

// WarmStart is a snapshot of an Interpolator's warm-start state (scalings
// and adjoint vector); the zero value is the cold state.
type WarmStart struct {
	b, z       []float64
	hasB, hasZ bool
}

// allocImplicit allocates the layout that keeps each iteration's input: b_in
// next to a, u next to the endpoint reconstructions, one block of u, v, q.
func (ip *Interpolator) allocImplicit() {
	s := &ip.sk
	s.alloc(1)
	n, c := s.n, len(s.pole)
	nc, ne := n*c, n*ip.nEnd
	im := &implicitWork{}
	ip.im = im
	im.src2 = make([]float64, 2*nc+ne)
	s.a, s.bIn = im.src2[:nc:nc], im.src2[nc:2*nc:2*nc]
	s.tapeU = make([]float64, nc+ne)
	s.tapeV = make([]float64, nc)
	s.bOut = make([]float64, nc)
	im.gaugeS = make([]float64, len(s.groups))
	im.gaugeS0 = make([]float64, len(s.groups))
	im.warm.b = make([]float64, nc)
	if ip.set.ForwardOnly {
		return
	}
	im.z = make([]float64, nc)
	im.zNew = make([]float64, nc)
	im.vo = newVecOps(nc)
	im.g2 = make([]float64, 2*nc+ne)
	im.vb, im.ub = im.g2[:nc:nc], im.g2[nc:2*nc:2*nc]
	if ne > 0 {
		im.gsrc = make([]float64, 2*nc+ne)
	}
	im.g1 = make([]float64, n)
}

// fusedFirst computes a warm Forward's first u = K·b_in and the endpoint
// reconstructions K·a_end in one application on [b_in | a_end].
func (ip *Interpolator) fusedFirst() error {
	s := &ip.sk
	nc := s.n * len(s.pole)
	copy(ip.im.src2[2*nc:], ip.aEnd)
	if err := s.apply(s.tapeU, ip.im.src2[nc:], len(s.pole)+ip.nEnd); err != nil {
		return err
	}
	copy(ip.rEnd, s.tapeU[nc:])
	return ip.checkEnd()
}

// SaveWarm copies the warm-start state (scalings and adjoint vector) into
// w, reusing its buffers. With a fixed L there is none: w becomes cold.
func (ip *Interpolator) SaveWarm(w *WarmStart) {
	if ip.im == nil {
		*w = WarmStart{b: w.b[:0], z: w.z[:0]}
		return
	}
	w.hasB, w.hasZ = ip.im.warm.hasB, ip.im.warm.hasZ
	w.b = append(w.b[:0], ip.im.warm.b...)
	w.z = append(w.z[:0], ip.im.z...)
}

// LoadWarm restores a state SaveWarm saved from this Interpolator (the zero
// WarmStart: the cold start); it panics for one of another size.
func (ip *Interpolator) LoadWarm(w *WarmStart) {
	im := ip.im
	if im == nil {
		if w.hasB || w.hasZ {
			panic("ot: LoadWarm: state of another interpolator")
		}
		return
	}
	if w.hasB && len(w.b) != len(im.warm.b) || w.hasZ && len(w.z) != len(im.z) {
		panic("ot: LoadWarm: state of another interpolator")
	}
	im.warm.hasB, im.warm.hasZ = w.hasB, w.hasZ
	if w.hasB {
		copy(im.warm.b, w.b)
	}
	if w.hasZ {
		copy(im.z, w.z)
	} else {
		clear(im.z)
	}
}

// ResetWarm returns to the cold start: the next Forward starts from b = 1
// and the next implicit Backward from z = 0.
func (ip *Interpolator) ResetWarm() {
	if ip.im != nil {
		ip.im.warm.hasB, ip.im.warm.hasZ = false, false
		clear(ip.im.z)
	}
}

// SetTol changes the marginal and adjoint tolerances of tolerance mode (0
// leaves one unchanged), e.g. to tighten them as an optimisation converges.
// It panics with a fixed L or for a negative or NaN tolerance.
func (ip *Interpolator) SetTol(tol, adjointTol float64) {
	if !ip.set.tolMode() {
		panic("ot: SetTol: the Interpolator runs a fixed number of iterations")
	}
	if !(tol >= 0) || !(adjointTol >= 0) {
		panic("ot: SetTol: negative or NaN tolerance")
	}
	ip.set.Tol = cmp.Or(tol, ip.set.Tol)
	ip.set.AdjointTol = cmp.Or(adjointTol, ip.set.AdjointTol)
}

// backwardImplicit writes the implicit gradient into gparam: it solves for
// the adjoint vector z (fixed-point iteration or GMRES), records the
// correction, and accumulates the parameter gradient in one Adjoint call
// on [a | b | a_end] (plus one for K·1 unless OnesPreserving).
func (ip *Interpolator) backwardImplicit(dk DiffKernel, gparam []float64, grec [][][]float64) error {
	s, im := &ip.sk, ip.im
	c, n := len(s.pole), s.n
	ip.stats.AdjointIterations, ip.stats.AdjointResidual, ip.stats.Correction = 0, 0, 0
	ip.stats.AdjointConverged = c == 0
	if c > 0 {
		if !ip.set.tolMode() || ip.set.Cold || !im.warm.hasZ {
			clear(im.z)
		}
		solve := ip.adjointFixedPoint
		if ip.set.Gradient == ImplicitGMRES {
			solve = ip.adjointGMRES
		}
		if err := solve(grec); err != nil {
			return err
		}
		im.warm.hasZ = true
		ip.stats.Correction = ip.correction()
	}
	// The weight gradient, once per kernel input, in one call on
	// [a | b | a_end]: v = K·a with v̄, u = K·b with ū, and the endpoint
	// reconstructions K·a_end with their loss gradients (one call instead
	// of two: applications of a few columns cost nearly as much as many).
	cols, nc := 2*c, 2*c*n
	var gsrc []float64
	if ip.nEnd > 0 {
		copy(im.src2[nc:], ip.aEnd)
		ip.endGrads(im.g2[nc:], grec)
		cols += ip.nEnd
		gsrc = im.gsrc[:cols*n]
	}
	if err := dk.Adjoint(gsrc, gparam, im.src2[:cols*n], im.g2[:cols*n], cols); err != nil {
		return fmt.Errorf("kernel adjoint: %w", err)
	}
	if ip.nEnd > 0 && !preservesOnes(dk) {
		// a_end = P/K·1: the gradient reaches K·1 (input 1) through it.
		clear(im.g1)
		ip.endK1Grad(im.g1, gsrc[nc:])
		if err := dk.Adjoint(nil, gparam, s.ones, im.g1, 1); err != nil {
			return fmt.Errorf("kernel adjoint: %w", err)
		}
	}
	return nil
}

// adjointStep evaluates the adjoint map at z: it sets v̄ and ū from z and
// the loss gradient grec (nil: the map's linear part), keeps ā = K·v̄ in
// abar (nil: in the scratch zNew) and, unless dst is nil, writes the next
// iterate Kᵀ·ū into dst (which may be zNew but not z).
func (ip *Interpolator) adjointStep(dst, z []float64, grec [][][]float64, abar []float64) error {
	im, c := ip.im, len(ip.sk.pole)
	ip.adjointVb(z, grec)
	if abar == nil {
		abar = im.zNew
	}
	if err := ip.sk.apply(abar, im.vb, c); err != nil {
		return err
	}
	ip.adjointUb(abar)
	if dst == nil {
		return nil
	}
	return ip.sk.apply(dst, im.ub, c)
}

// adjointUb sets ū = −ā⊙a/u from ā = K·v̄.
func (ip *Interpolator) adjointUb(abar []float64) { ip.scaleAdjoint(ip.im.ub, abar, ip.sk.tapeU) }

// adjointVb sets v̄ from z and the loss gradient grec (nil: the map's linear
// part), the elementwise first half of the adjoint map, in parts of frames;
// zNew is its scratch.
func (ip *Interpolator) adjointVb(z []float64, grec [][][]float64) {
	s := &ip.sk
	ip.im.zCur, ip.grec = z, grec
	parallel(&s.wg, ip, phaseAdjointVb, len(s.groups), 8*s.n*len(s.pole)/max(len(s.groups), 1))
	ip.im.zCur, ip.grec = nil, nil
}

// adjointVbFrames is frames f0..f1−1 of adjointVb.
func (ip *Interpolator) adjointVbFrames(f0, f1 int) {
	s, im := &ip.sk, ip.im
	z, grec := im.zCur, ip.grec
	for f := f0; f < f1; f++ {
		g := s.groups[f]
		l0, l1 := g.lam[0], g.lam[1]
		c0, c1 := g.col, g.col+1
		v0, v1 := s.col(s.tapeV, c0), s.col(s.tapeV, c1)
		bo0, bo1 := s.col(s.bOut, c0), s.col(s.bOut, c1)
		// Through the gauge map G: b̄' = DGᵀ·z (into zNew).
		z0, z1 := s.col(im.zNew, c0), s.col(im.zNew, c1)
		ip.gaugeAdjoint(f, z0, z1, s.col(z, c0), s.col(z, c1))
		// v̄ from b̄' and ḡ = q̄.
		vb0, vb1 := s.col(im.vb, c0), s.col(im.vb, c1)
		qf := s.col(s.tapeQ, f)
		var gq []float64
		if grec != nil {
			gq = grec[g.seq][g.frame]
		}
		for i, qi := range qf {
			var qb float64
			if gq != nil {
				qb = gq[i] + z0[i]/v0[i] + z1[i]/v1[i]
			} else {
				qb = z0[i]/v0[i] + z1[i]/v1[i]
			}
			vb0[i] = (qb*qi*l0 - z0[i]*bo0[i]) / v0[i]
			vb1[i] = (qb*qi*l1 - z1[i]*bo1[i]) / v1[i]
		}
	}
}

// adjointDiverge is the growth of the relative increment over the smallest
// so far at which the adjoint fixed-point iteration, which contracts at
// the forward one's rate when it works, is deemed to diverge.
const adjointDiverge = 100

// adjointFixedPoint solves for z by the fixed-point iteration z ← F(z),
// until the relative L1 increment is at most AdjointTol. v̄ and ū are those
// of the last evaluation of F, and z its input when it converged.
func (ip *Interpolator) adjointFixedPoint(grec [][][]float64) error {
	im, bw := ip.im, ip.sk.bOut
	best := math.Inf(1)
	for m := 1; m <= ip.set.AdjointMaxIterations; m++ {
		ip.stats.AdjointIterations = m
		if err := ip.adjointStep(im.zNew, im.z, grec, nil); err != nil {
			return err
		}
		diff, norm := im.vo.sums(gmL1, im.zNew, im.z, bw)
		if notFinite(diff) {
			return backwardNonFinite(m)
		}
		res := 0.0
		if norm > 0 {
			res = diff / norm
		}
		ip.stats.AdjointResidual = res
		if res <= ip.set.AdjointTol {
			// z stays the input of this last map, at which v̄ and ū
			// were evaluated (see "Warm start").
			ip.stats.AdjointConverged = true
			break
		}
		copy(im.z, im.zNew)
		// Diverging (possible when the forward pass ended far from the
		// fixed point): stop rather than run to AdjointMaxIterations;
		// Stats reports it as not converged. Not before iteration 10, so
		// that the smallest increment is not just one of the first few.
		best = math.Min(best, res)
		if m >= 10 && res > adjointDiverge*best {
			break
		}
	}
	return nil
}
