package ot

import (
	"cmp"
	"math"
	"sync"
)

// gmres holds the workspace of the restarted GMRES solve of the adjoint
// system (I − L)·z = r, F(z) = L·z + r the affine adjoint map. The kernel
// images of the Krylov vectors are allocated as a solve first uses them
// (warm-started solves use a few).
type gmres struct {
	m    int         // restart length
	v    [][]float64 // Krylov basis: m+1 blocks of N×C
	abar [][]float64 // K·v̄ of each basis vector (m blocks) and of the restart point (block m)
	zs   []float64   // a basis vector unscaled (N×C)
	hess []float64   // Hessenberg matrix, (m+1)×m, column-major
	c, s []float64   // Givens rotations
	g    []float64   // the rotated right-hand side

	vecOps           // the vector operations
	k      int       // update: the basis vectors combined
	z, a0  []float64 // update: its outputs
}

// vecOps runs the adjoint's vector operations in parts; a sum over a vector
// sums each chunk of vecChunk entries, then the chunks, in order, so that
// its value does not depend on GOMAXPROCS.
type vecOps struct {
	wg        sync.WaitGroup
	x, y      []float64 // the operation's vectors
	a         float64   // its scalar
	bw        []float64 // the scaling b
	partials  []float64 // per chunk: its sum
	partials2 []float64 // per chunk: its second sum (gmL1)
}

// newVecOps returns the workspace for vectors of nc entries.
func newVecOps(nc int) vecOps {
	nch := (nc + vecChunk - 1) / vecChunk
	return vecOps{partials: make([]float64, nch), partials2: make([]float64, nch)}
}

// vecChunk is the entries of one chunk of a sum over a vector: 32 KiB of
// each vector (a grain chosen, not tuned). A variable for tests, which make
// chunks small to cut vectors into many.
var vecChunk = 4096

// The phases of the vector operations.
const (
	gmInner  = iota // partials[c] = Σ x·y over chunk c
	gmAxpy          // y += a·x
	gmScale         // x *= a
	gmUpdate        // z += V·y/b and a0 += Ā·y, entry by entry
	gmMulB          // x *= b, entry by entry
	gmSubB          // x −= y⊙b
	gmDivB          // y = x/b
	gmResid         // y = x − b⊙y
	gmL1            // partials[c] = Σ|x−y|·b, partials2[c] = Σ|x|·b over chunk c
)

func newGMRES(m, nc int) *gmres {
	gm := &gmres{m: m, v: make([][]float64, m+1), abar: make([][]float64, m+1), zs: make([]float64, nc),
		hess: make([]float64, (m+1)*m), c: make([]float64, m), s: make([]float64, m), g: make([]float64, m+1),
		vecOps: newVecOps(nc)}
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
// gradient. Both are affine in z, so the kept ā = K·v̄ of the Krylov
// vectors give ū at the solution by the same combination as z, sparing a
// kernel application. AdjointTol bounds ‖b⊙(F(z) − z)‖₂ relative to
// ‖b⊙F(z)‖₂ at the last restart; AdjointIterations counts evaluations of
// the map, one more per restart for the residual.
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
		gm.entrywise(gmMulB, gm.v[0], nil, bw, 0)
		fz := cmp.Or(gm.norm2(gm.v[0]), 1)
		gm.entrywise(gmSubB, gm.v[0], im.z, bw, 0)
		beta := gm.norm2(gm.v[0])
		if notFinite(beta) {
			return backwardNonFinite(maps)
		}
		ip.stats.AdjointResidual = beta / fz
		if beta/fz <= ip.set.AdjointTol {
			// Already within the tolerance (a warm start at a close
			// point): the gradient takes v̄ and ū at this z, which stays
			// as it is (see "Warm start").
			ip.stats.AdjointConverged = true
			break
		}
		gm.entrywise(gmScale, gm.v[0], nil, nil, 1/beta)
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

// backwardNonFinite reports a gradient that is not finite at adjoint
// iteration it (0: not tied to one).
func backwardNonFinite(it int) error {
	return &NonFiniteError{Op: "backward", Sequence: -1, Frame: -1, Iteration: it, Hint: hintGrad}
}

// arnoldi builds up to m Krylov vectors of I − L from v[0], within
// AdjointMaxIterations map evaluations (counted in maps), with the Givens
// rotations, and returns how many; fz scales the residual in Stats.
func (ip *Interpolator) arnoldi(maps *int, fz float64) (int, error) {
	gm, bw := ip.im.gm, ip.sk.bOut
	k := 0
	for j := 0; j < gm.m && *maps < ip.set.AdjointMaxIterations; j++ {
		// w = (I − L)·v[j], L the map without the loss gradient.
		w := gm.v[j+1]
		gm.entrywise(gmDivB, gm.v[j], gm.zs, bw, 0)
		if err := ip.adjointStep(w, gm.zs, nil, gm.image(j)); err != nil {
			return 0, err
		}
		*maps++
		gm.entrywise(gmResid, gm.v[j], w, bw, 0)
		for i := 0; i <= j; i++ { // modified Gram–Schmidt
			d, _ := gm.sums(gmInner, w, gm.v[i], nil)
			*gm.h(i, j) = d
			gm.entrywise(gmAxpy, gm.v[i], w, nil, -d) // w −= d·v[i]
		}
		hn := gm.norm2(w)
		*gm.h(j+1, j) = hn
		if notFinite(hn) {
			return 0, backwardNonFinite(*maps)
		}
		if hn > 0 {
			gm.entrywise(gmScale, w, nil, nil, 1/hn)
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
	r := cmp.Or(math.Hypot(a, b), 1)
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
	gm.k, gm.z, gm.a0, gm.bw = k, z, a0, bw
	parallel(&gm.wg, gm, gmUpdate, len(bw), 2*k+2)
	gm.z, gm.a0, gm.bw = nil, nil, nil
}

// runPart runs entries lo..hi−1 of the update in progress (gmUpdate), or
// those of a vector operation.
func (gm *gmres) runPart(phase, lo, hi int) {
	if phase != gmUpdate {
		gm.vecOps.runPart(phase, lo, hi)
		return
	}
	y := gm.g[:gm.k]
	for l := lo; l < hi; l++ {
		var d, da float64
		for i, yi := range y {
			d += yi * gm.v[i][l]
			da += yi * gm.abar[i][l]
		}
		gm.z[l] += d / gm.bw[l]
		gm.a0[l] += da
	}
}

// runPart runs entries (chunks, for gmInner and gmL1) lo..hi−1 of the
// operation in progress.
func (vo *vecOps) runPart(phase, lo, hi int) {
	// Locals and subslices keep the loops in registers, free of bounds checks.
	x, y, bw, a := vo.x, vo.y, vo.bw, vo.a
	if phase == gmInner || phase == gmL1 {
		for c := lo; c < hi; c++ {
			i0, i1 := c*vecChunk, min((c+1)*vecChunk, len(x))
			xs, ys := x[i0:i1], y[i0:i1]
			if phase == gmInner {
				var s float64
				for i, xi := range xs {
					s += xi * ys[i]
				}
				vo.partials[c] = s
				continue
			}
			bs := bw[i0:i1]
			var diff, norm float64
			for i, xi := range xs {
				diff += math.Abs(xi-ys[i]) * bs[i]
				norm += math.Abs(xi) * bs[i]
			}
			vo.partials[c], vo.partials2[c] = diff, norm
		}
		return
	}
	x = x[lo:hi]
	switch phase {
	case gmAxpy:
		y = y[lo:hi]
		for i, xi := range x {
			y[i] += a * xi
		}
	case gmScale:
		for i := range x {
			x[i] *= a
		}
	case gmMulB:
		bw = bw[lo:hi]
		for i := range x {
			x[i] *= bw[i]
		}
	case gmSubB:
		y, bw = y[lo:hi], bw[lo:hi]
		for i := range x {
			x[i] -= y[i] * bw[i]
		}
	case gmDivB:
		y, bw = y[lo:hi], bw[lo:hi]
		for i, xi := range x {
			y[i] = xi / bw[i]
		}
	case gmResid:
		y, bw = y[lo:hi], bw[lo:hi]
		for i, xi := range x {
			y[i] = xi - bw[i]*y[i]
		}
	}
}

// sums runs the sum phase gmInner (x·y) or gmL1 (Σ|x−y|·b and Σ|x|·b)
// chunk by chunk (see vecOps) and returns its sums (s2 is 0 for gmInner).
func (vo *vecOps) sums(phase int, x, y, b []float64) (s, s2 float64) {
	vo.x, vo.y, vo.bw = x, y, b
	n := (len(x) + vecChunk - 1) / vecChunk
	parallel(&vo.wg, vo, phase, n, 3*vecChunk)
	vo.x, vo.y, vo.bw = nil, nil, nil
	for c := range n {
		s += vo.partials[c]
		if phase == gmL1 {
			s2 += vo.partials2[c]
		}
	}
	return s, s2
}

func (vo *vecOps) norm2(x []float64) float64 {
	s, _ := vo.sums(gmInner, x, x, nil)
	return math.Sqrt(s)
}

// entrywise runs an entrywise phase (all but gmInner, gmL1 and gmUpdate)
// on x, y, the scaling b and the scalar a, in parts: each entry is its
// own, so the parts change nothing.
func (vo *vecOps) entrywise(phase int, x, y, b []float64, a float64) {
	vo.x, vo.y, vo.bw, vo.a = x, y, b, a
	parallel(&vo.wg, vo, phase, len(x), 2)
	vo.x, vo.y, vo.bw = nil, nil, nil
}
