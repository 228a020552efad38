package ot

import "math"

// Gauge fixing of the implicit gradient.
//
// The Sinkhorn fixed point of a frame has a gauge freedom b_k → c_k·b_k
// with Π c_k^λ_k = 1, which leaves q unchanged and gives the Jacobian of
// the iteration T the eigenvalue 1: after an only approximately converged
// forward pass the adjoint iteration would drift along it and stall at a
// relative increment of about Tol. The implicit gradient therefore
// differentiates T̃ = G∘T, G fixing the gauge (b₀·s^λ₁ and b₁·s^−λ₀,
// s = Σb₁/Σb₀, so that Σb₀ = Σb₁): T̃ has the same q and fixed points up to
// gauge, and its Jacobian sends the gauge direction to 0. Forward ends by
// moving its last iterate to that gauge (elementwise, no kernel call).

// gaugeFactors returns frame f's gauge scalings for the ratio s = Σb₁/Σb₀:
// c₀ = s^λ₁ and c₁ = s^−λ₀ (Π c_k^λ_k = 1; scaled by them, Σb₀ = Σb₁).
func (ip *Interpolator) gaugeFactors(f int, s float64) (c0, c1 float64) {
	lam := ip.sk.groups[f].lam
	return math.Pow(s, lam[1]), math.Pow(s, -lam[0])
}

// fixGauge moves the last iteration along the gauge of each frame, scaling
// b_in, u, a, v and b' alike (q is unchanged), and records s and Σb'₀ of b'
// for the adjoint of G.
func (ip *Interpolator) fixGauge() {
	sk, im := &ip.sk, ip.im
	u, v, _ := sk.blocks(1)
	for f, g := range sk.groups {
		c0, c1 := g.col, g.col+1
		s := sum(sk.col(sk.bIn, c1)) / sum(sk.col(sk.bIn, c0))
		g0, g1 := ip.gaugeFactors(f, s)
		for k, ck := range [2]float64{g0, g1} {
			col := g.col + k
			bi, uc, ac, vc, bo := sk.col(sk.bIn, col), sk.col(u, col), sk.col(sk.a, col), sk.col(v, col), sk.col(sk.bOut, col)
			for i := range bi {
				bi[i] *= ck
				uc[i] *= ck
				ac[i] /= ck
				vc[i] /= ck
				bo[i] *= ck
			}
		}
		s0 := sum(sk.col(sk.bOut, c0))
		im.gaugeS[f], im.gaugeS0[f] = sum(sk.col(sk.bOut, c1))/s0, s0
	}
}

// gaugeAdjoint writes b̄' = DGᵀ·z of frame f into (z0, z1), given the
// frame's columns (zg0, zg1) of z, at the b' recorded by fixGauge.
func (ip *Interpolator) gaugeAdjoint(f int, z0, z1, zg0, zg1 []float64) {
	sk, im := &ip.sk, ip.im
	g := sk.groups[f]
	l0, l1 := g.lam[0], g.lam[1]
	bo0, bo1 := sk.col(sk.bOut, g.col), sk.col(sk.bOut, g.col+1)
	s, s0 := im.gaugeS[f], im.gaugeS0[f]
	p0, p1 := ip.gaugeFactors(f, s)
	var d0, d1 float64
	for i := range zg0 {
		d0 += zg0[i] * bo0[i]
		d1 += zg1[i] * bo1[i]
	}
	sb := l1*p0/s*d0 - l0*p1/s*d1
	for i := range zg0 {
		z0[i] = p0*zg0[i] - sb*s/s0
		z1[i] = p1*zg1[i] + sb/s0
	}
}

// correction returns zᵀ·(T̃(b) − b), T̃ = G∘T the gauge-fixed iteration and
// b the last iteration's input (T(b) is b', both moved to the gauge by
// Forward; G scales b'₀ by s^λ₁ and b'₁ by s^−λ₀).
func (ip *Interpolator) correction() float64 {
	sk, im := &ip.sk, ip.im
	var corr float64
	for f, g := range sk.groups {
		g0, g1 := ip.gaugeFactors(f, im.gaugeS[f])
		for k, ck := range [2]float64{g0, g1} {
			col := g.col + k
			z, bi, bo := sk.col(im.z, col), sk.col(sk.bIn, col), sk.col(sk.bOut, col)
			for i, zi := range z {
				corr += zi * (ck*bo[i] - bi[i])
			}
		}
	}
	return corr
}
