package ot

// The adjoint of the converged Sinkhorn fixed point: the fixed-point
// iteration and GMRES that solve it, and their vector helpers.

import (
	"fmt"
	"math"
)

// adjointStep evaluates the adjoint map at z: it sets v̄ (vb) and ū (ub)
// from z and the loss gradient grec (nil: without it, the map's linear
// part), keeps ā = K·v̄ in abar (nil: in zNew, the scratch) and, unless dst
// is nil, writes the next iterate Kᵀ·ū into dst (which may be zNew but
// not z).
func (fi *FastInterpolator) adjointStep(dst, z []float64, grec [][][]float64, abar []float64) error {
	fi.adjointVb(z, grec)
	if abar == nil {
		abar = fi.zNew
	}
	if err := fi.k.Apply(abar, fi.vb, 2*fi.base.nInt); err != nil {
		return fmt.Errorf("ot: FastInterpolator.Backward: kernel: %w", err)
	}
	fi.adjointUb(abar)
	if dst == nil {
		return nil
	}
	// The next iterate Kᵀ·ū.
	if err := fi.k.Apply(dst, fi.ub, 2*fi.base.nInt); err != nil {
		return fmt.Errorf("ot: FastInterpolator.Backward: kernel: %w", err)
	}
	return nil
}

// adjointUb sets ū = −ā⊙a/u from ā = K·v̄.
func (fi *FastInterpolator) adjointUb(abar []float64) {
	for i, ab := range abar {
		fi.ub[i] = -ab * fi.a[i] / fi.u[i]
	}
}

// adjointVb sets v̄ (vb) from z and the loss gradient grec (nil: the map's
// linear part), the elementwise first half of the adjoint map; zNew is its
// scratch.
func (fi *FastInterpolator) adjointVb(z []float64, grec [][][]float64) {
	b := fi.base
	n := fi.n
	for f := 0; f < b.nInt; f++ {
		l0, l1 := b.lam0[f], b.lam1[f]
		c0, c1 := 2*f, 2*f+1
		v0, v1 := b.col(fi.v, c0), b.col(fi.v, c1)
		bo0, bo1 := b.col(fi.bOut, c0), b.col(fi.bOut, c1)
		// Through the gauge map G: b̄' = DGᵀ·z (into zNew).
		zg0, zg1 := b.col(z, c0), b.col(z, c1)
		z0, z1 := b.col(fi.zNew, c0), b.col(fi.zNew, c1)
		s, s0 := fi.gaugeS[f], fi.gaugeS0[f]
		p0, p1 := fi.gaugeFactors(f, s)
		var d0, d1 float64
		for i := 0; i < n; i++ {
			d0 += zg0[i] * bo0[i]
			d1 += zg1[i] * bo1[i]
		}
		sb := l1*p0/s*d0 - l0*p1/s*d1
		for i := 0; i < n; i++ {
			z0[i] = p0*zg0[i] - sb*s/s0
			z1[i] = p1*zg1[i] + sb/s0
		}
		// v̄ from b̄' and ḡ = q̄.
		vb0, vb1 := b.col(fi.vb, c0), b.col(fi.vb, c1)
		qf := b.col(b.q, f)
		var gq []float64
		if grec != nil {
			r := b.intRef[f]
			gq = grec[r.seq][r.frame]
		}
		for i := 0; i < n; i++ {
			qi := qf[i]
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

// adjointDiverge is the growth of the relative increment, over the
// smallest one so far, at which the adjoint fixed-point iteration is
// deemed to diverge (an increment 100 times the best one: the iteration
// contracts at the forward one's rate when it works, and the case seen
// grew 1.2× per iteration from 1e-3 to 0.19).
const adjointDiverge = 100

// adjointFixedPoint solves for z by the fixed-point iteration z ← F(z),
// until the relative L1 increment is at most AdjointTol. v̄ and ū are those
// of the last evaluation of F, and z its input when it converged.
func (fi *FastInterpolator) adjointFixedPoint(grec [][][]float64) error {
	best := math.Inf(1)
	for m := 1; m <= fi.set.AdjointMaxIterations; m++ {
		fi.stats.AdjointIterations = m
		if err := fi.adjointStep(fi.zNew, fi.z, grec, nil); err != nil {
			return err
		}
		var diff, norm float64
		for i, zn := range fi.zNew {
			w := fi.bOut[i]
			diff += math.Abs(zn-fi.z[i]) * w
			norm += math.Abs(zn) * w
		}
		if math.IsNaN(diff) || math.IsInf(diff, 0) {
			return &NonFiniteError{Op: "backward", Sequence: -1, Frame: -1, Iteration: m, Hint: hintGrad}
		}
		res := 0.0
		if norm > 0 {
			res = diff / norm
		}
		fi.stats.AdjointResidual = res
		if res <= fi.set.AdjointTol {
			// z stays the input of this last map, at which v̄ and ū
			// were evaluated (see "Warm start").
			fi.stats.AdjointConverged = true
			break
		}
		copy(fi.z, fi.zNew)
		// Diverging (seen once, at 32³, when the forward pass ended on an
		// Anderson mix): stop rather than run to AdjointMaxIterations;
		// Stats reports it as not converged.
		// Not before iteration 10 (not tuned: so that the smallest
		// increment is not just one of the first few).
		best = math.Min(best, res)
		if m >= 10 && res > adjointDiverge*best {
			break
		}
	}
	return nil
}

// adjointGMRES solves (I − L)·z = r for the affine adjoint map F(z) = L·z + r
// by restarted GMRES from the stored z, and leaves v̄ and ū at the solution
// for the weight gradient. Both are affine in z, and the map's first kernel
// application gives ā = K·v̄ for every Krylov vector: kept (one block per
// vector), they give ū at the solution by the same linear combination as z,
// without the kernel application that evaluating it there would cost.
func (fi *FastInterpolator) adjointGMRES(grec [][][]float64) error {
	m := fi.set.AdjointRestart
	if fi.krylov == nil {
		fi.krylov = make([][]float64, m+1)
		fi.abar = make([][]float64, m+1)
		for i := range fi.krylov {
			fi.krylov[i] = make([]float64, len(fi.z))
		}
		fi.zs = make([]float64, len(fi.z))
		fi.hess = make([]float64, (m+1)*m)
		fi.givC, fi.givS, fi.givG = make([]float64, m), make([]float64, m), make([]float64, m+1)
	}
	// abar[m] holds ā at the restart point, abar[j] that of the map's
	// linear part at Krylov vector j (allocated when first used: warm
	// solves use a few).
	abar := func(j int) []float64 {
		if fi.abar[j] == nil {
			fi.abar[j] = make([]float64, len(fi.z))
		}
		return fi.abar[j]
	}
	V, H, bw := fi.krylov, fi.hess, fi.bOut
	h := func(i, j int) *float64 { return &H[j*(m+1)+i] }
	maps := 0
	nonFinite := func() error {
		return &NonFiniteError{Op: "backward", Sequence: -1, Frame: -1, Iteration: maps, Hint: hintGrad}
	}
	// Whether v̄ and ū are those of the current z (after a residual
	// evaluation) or must be rebuilt from the Krylov combination.
	current := false
	for maps < fi.set.AdjointMaxIterations {
		// Residual r = F(z) − z.
		a0 := abar(m)
		if err := fi.adjointStep(V[0], fi.z, grec, a0); err != nil {
			return err
		}
		maps++
		current = true
		for i, w := range bw {
			V[0][i] *= w
		}
		fz := norm2(V[0])
		for i, zi := range fi.z {
			V[0][i] -= zi * bw[i]
		}
		beta := norm2(V[0])
		if math.IsNaN(beta) || math.IsInf(beta, 0) {
			return nonFinite()
		}
		if fz == 0 {
			fz = 1
		}
		fi.stats.AdjointResidual = beta / fz
		if beta/fz <= fi.set.AdjointTol {
			// Already within the tolerance (a warm start at a close
			// point): the gradient takes v̄ and ū at this z, which stays
			// as it is (see "Warm start").
			fi.stats.AdjointConverged = true
			break
		}
		scale(V[0], 1/beta)
		clear(fi.givG)
		fi.givG[0] = beta
		k := 0
		for j := 0; j < m && maps < fi.set.AdjointMaxIterations; j++ {
			// w = (I − L)·V[j], L the map without the loss gradient.
			w := V[j+1]
			for i, vi := range V[j] {
				fi.zs[i] = vi / bw[i]
			}
			if err := fi.adjointStep(w, fi.zs, nil, abar(j)); err != nil {
				return err
			}
			maps++
			for i, vi := range V[j] {
				w[i] = vi - bw[i]*w[i]
			}
			for i := 0; i <= j; i++ { // modified Gram–Schmidt
				d := inner(w, V[i])
				*h(i, j) = d
				axpy(w, -d, V[i])
			}
			hn := norm2(w)
			*h(j+1, j) = hn
			if math.IsNaN(hn) || math.IsInf(hn, 0) {
				return nonFinite()
			}
			if hn > 0 {
				scale(w, 1/hn)
			}
			// Apply the previous rotations to column j, then a new one
			// that zeroes h(j+1, j).
			for i := 0; i < j; i++ {
				a, b := *h(i, j), *h(i+1, j)
				*h(i, j) = fi.givC[i]*a + fi.givS[i]*b
				*h(i+1, j) = -fi.givS[i]*a + fi.givC[i]*b
			}
			a, b := *h(j, j), *h(j+1, j)
			r := math.Hypot(a, b)
			if r == 0 {
				r = 1
			}
			fi.givC[j], fi.givS[j] = a/r, b/r
			*h(j, j), *h(j+1, j) = r, 0
			fi.givG[j+1] = -fi.givS[j] * fi.givG[j]
			fi.givG[j] *= fi.givC[j]
			k = j + 1
			fi.stats.AdjointResidual = math.Abs(fi.givG[j+1]) / fz
			if fi.stats.AdjointResidual <= fi.set.AdjointTol || hn == 0 {
				break
			}
		}
		// z += V·y, H[:k,:k]·y = g[:k] (upper triangular), and likewise
		// ā(z) = ā(z_restart) + Σ y_j·ā_j (into a0).
		y := fi.givG[:k]
		for i := k - 1; i >= 0; i-- {
			for l := i + 1; l < k; l++ {
				y[i] -= *h(i, l) * y[l]
			}
			y[i] /= *h(i, i)
		}
		for l, w := range bw {
			var d, da float64
			for i := 0; i < k; i++ {
				d += y[i] * V[i][l]
				da += y[i] * fi.abar[i][l]
			}
			fi.z[l] += d / w
			a0[l] += da
		}
		current = false
		if fi.stats.AdjointResidual <= fi.set.AdjointTol {
			fi.stats.AdjointConverged = true
			break
		}
	}
	fi.stats.AdjointIterations = maps
	if !current {
		// v̄ and ū at the solution: v̄ elementwise, ū from ā.
		fi.adjointVb(fi.z, grec)
		fi.adjointUb(abar(m))
	}
	return nil
}

func inner(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		s += xi * y[i]
	}
	return s
}

func norm2(x []float64) float64 { return math.Sqrt(inner(x, x)) }

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}

// axpy sets y += a·x.
func axpy(y []float64, a float64, x []float64) {
	for i, xi := range x {
		y[i] += a * xi
	}
}
