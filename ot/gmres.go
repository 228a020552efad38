package ot

import "math"

// gmres holds the workspace of the restarted GMRES solve of the implicit
// gradient's adjoint system (I − L)·z = r, F(z) = L·z + r the affine
// adjoint map. It is allocated by the first solve; the kernel images of the
// Krylov vectors are allocated one block at a time, the first time a solve
// uses that many (warm-started solves use a few).
type gmres struct {
	m    int         // restart length
	v    [][]float64 // Krylov basis: m+1 blocks of N×C
	abar [][]float64 // K·v̄ of each basis vector (m blocks) and of the restart point (block m)
	zs   []float64   // a basis vector unscaled (N×C)
	hess []float64   // Hessenberg matrix, (m+1)×m, column-major
	c, s []float64   // Givens rotations
	g    []float64   // the rotated right-hand side
}

func newGMRES(m, nc int) *gmres {
	gm := &gmres{m: m, v: make([][]float64, m+1), abar: make([][]float64, m+1), zs: make([]float64, nc),
		hess: make([]float64, (m+1)*m), c: make([]float64, m), s: make([]float64, m), g: make([]float64, m+1)}
	for i := range gm.v {
		gm.v[i] = make([]float64, nc)
	}
	return gm
}

// image returns the block for the kernel image of basis vector j (m: of
// the restart point), allocating it on first use.
func (gm *gmres) image(j int) []float64 {
	if gm.abar[j] == nil {
		gm.abar[j] = make([]float64, len(gm.zs))
	}
	return gm.abar[j]
}

func (gm *gmres) h(i, j int) *float64 { return &gm.hess[j*(gm.m+1)+i] }

// adjointGMRES solves (I − L)·z = r by restarted GMRES from the stored z,
// in the variable b⊙z, and leaves v̄ and ū at the solution for the weight
// gradient. Both are affine in z, and the map's first kernel application
// gives ā = K·v̄ for every Krylov vector: kept (one block per vector), they
// give ū at the solution by the same linear combination as z, without the
// kernel application that evaluating it there would cost. AdjointTol
// bounds the 2-norm of the residual b⊙(F(z) − z) relative to that of
// b⊙F(z) at the last restart; AdjointIterations counts evaluations of the
// map, one more per restart for the residual.
func (ip *Interpolator) adjointGMRES(grec [][][]float64) error {
	im := ip.im
	if im.gm == nil {
		im.gm = newGMRES(ip.set.AdjointRestart, len(im.z))
	}
	gm, bw := im.gm, ip.sk.bOut
	maps := 0
	// Whether v̄ and ū are those of the current z (after a residual
	// evaluation) or must be rebuilt from the Krylov combination.
	current := false
	for maps < ip.set.AdjointMaxIterations {
		// Residual r = F(z) − z, scaled by b.
		a0 := gm.image(gm.m)
		if err := ip.adjointStep(gm.v[0], im.z, grec, a0); err != nil {
			return err
		}
		maps++
		current = true
		for i, w := range bw {
			gm.v[0][i] *= w
		}
		fz := norm2(gm.v[0])
		for i, zi := range im.z {
			gm.v[0][i] -= zi * bw[i]
		}
		beta := norm2(gm.v[0])
		if math.IsNaN(beta) || math.IsInf(beta, 0) {
			return gmresNonFinite(maps)
		}
		if fz == 0 {
			fz = 1
		}
		ip.stats.AdjointResidual = beta / fz
		if beta/fz <= ip.set.AdjointTol {
			// Already within the tolerance (a warm start at a close
			// point): the gradient takes v̄ and ū at this z, which stays
			// as it is (see "Warm start").
			ip.stats.AdjointConverged = true
			break
		}
		scale(gm.v[0], 1/beta)
		clear(gm.g)
		gm.g[0] = beta
		k, err := ip.arnoldi(&maps, fz)
		if err != nil {
			return err
		}
		gm.update(im.z, a0, bw, k)
		current = false
		if ip.stats.AdjointResidual <= ip.set.AdjointTol {
			ip.stats.AdjointConverged = true
			break
		}
	}
	ip.stats.AdjointIterations = maps
	if !current {
		// v̄ and ū at the solution: v̄ elementwise, ū from ā.
		ip.adjointVb(im.z, grec)
		ip.adjointUb(gm.image(gm.m))
	}
	return nil
}

func gmresNonFinite(maps int) error {
	return &NonFiniteError{Op: "backward", Sequence: -1, Frame: -1, Iteration: maps, Hint: hintGrad}
}

// arnoldi builds up to m Krylov vectors of I − L from v[0] (counting map
// evaluations in maps, within AdjointMaxIterations), with the Givens
// rotations that keep the least-squares residual, and returns how many it
// built. fz scales the residual recorded in Stats.
func (ip *Interpolator) arnoldi(maps *int, fz float64) (int, error) {
	gm, bw := ip.im.gm, ip.sk.bOut
	k := 0
	for j := 0; j < gm.m && *maps < ip.set.AdjointMaxIterations; j++ {
		// w = (I − L)·v[j], L the map without the loss gradient.
		w := gm.v[j+1]
		for i, vi := range gm.v[j] {
			gm.zs[i] = vi / bw[i]
		}
		if err := ip.adjointStep(w, gm.zs, nil, gm.image(j)); err != nil {
			return 0, err
		}
		*maps++
		for i, vi := range gm.v[j] {
			w[i] = vi - bw[i]*w[i]
		}
		for i := 0; i <= j; i++ { // modified Gram–Schmidt
			d := inner(w, gm.v[i])
			*gm.h(i, j) = d
			axpy(w, -d, gm.v[i])
		}
		hn := norm2(w)
		*gm.h(j+1, j) = hn
		if math.IsNaN(hn) || math.IsInf(hn, 0) {
			return 0, gmresNonFinite(*maps)
		}
		if hn > 0 {
			scale(w, 1/hn)
		}
		gm.rotate(j)
		k = j + 1
		ip.stats.AdjointResidual = math.Abs(gm.g[j+1]) / fz
		if ip.stats.AdjointResidual <= ip.set.AdjointTol || hn == 0 {
			break
		}
	}
	return k, nil
}

// rotate applies the previous Givens rotations to column j of the
// Hessenberg matrix, then a new one that zeroes h(j+1, j), and rotates the
// right-hand side alike.
func (gm *gmres) rotate(j int) {
	for i := 0; i < j; i++ {
		a, b := *gm.h(i, j), *gm.h(i+1, j)
		*gm.h(i, j) = gm.c[i]*a + gm.s[i]*b
		*gm.h(i+1, j) = -gm.s[i]*a + gm.c[i]*b
	}
	a, b := *gm.h(j, j), *gm.h(j+1, j)
	r := math.Hypot(a, b)
	if r == 0 {
		r = 1
	}
	gm.c[j], gm.s[j] = a/r, b/r
	*gm.h(j, j), *gm.h(j+1, j) = r, 0
	gm.g[j+1] = -gm.s[j] * gm.g[j]
	gm.g[j] *= gm.c[j]
}

// update sets z += V·y/b with H[:k,:k]·y = g[:k] (upper triangular), and
// likewise ā(z) = ā(z_restart) + Σ y_j·ā_j into a0.
func (gm *gmres) update(z, a0, bw []float64, k int) {
	y := gm.g[:k]
	for i := k - 1; i >= 0; i-- {
		for l := i + 1; l < k; l++ {
			y[i] -= *gm.h(i, l) * y[l]
		}
		y[i] /= *gm.h(i, i)
	}
	for l, w := range bw {
		var d, da float64
		for i := 0; i < k; i++ {
			d += y[i] * gm.v[i][l]
			da += y[i] * gm.abar[i][l]
		}
		z[l] += d / w
		a0[l] += da
	}
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
