package ot

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Test kernels. None of them allocates in Apply or Adjoint.

// gibbs is a fixed dense Gibbs kernel K_ij = exp(−‖x_i − x_j‖²/ε) on a set
// of points.
type gibbs struct {
	n int
	k []float64 // row-major N×N, symmetric
}

// newGibbsGrid returns the Gibbs kernel of a d-dimensional grid of side n
// with nodes at {0, 1/(n−1), …, 1}^d (row-major flattening).
func newGibbsGrid(n, d int, eps float64) *gibbs {
	N := 1
	for range d {
		N *= n
	}
	coord := func(i, p int) float64 {
		for range p {
			i /= n
		}
		return float64(i%n) / float64(n-1)
	}
	g := &gibbs{n: N, k: make([]float64, N*N)}
	for i := 0; i < N; i++ {
		for j := 0; j < N; j++ {
			var d2 float64
			for p := 0; p < d; p++ {
				dx := coord(i, p) - coord(j, p)
				d2 += dx * dx
			}
			g.k[i*N+j] = math.Exp(-d2 / eps)
		}
	}
	return g
}

func (g *gibbs) Size() int { return g.n }

func (g *gibbs) Apply(dst, src []float64, cols int) error {
	denseApply(g.k, g.n, dst, src, cols)
	return nil
}

func denseApply(k []float64, n int, dst, src []float64, cols int) {
	if len(dst) != n*cols || len(src) != n*cols {
		panic("test kernel: length mismatch")
	}
	for c := 0; c < cols; c++ {
		s, d := src[c*n:(c+1)*n], dst[c*n:(c+1)*n]
		for i := 0; i < n; i++ {
			row := k[i*n : (i+1)*n]
			var acc float64
			for j, v := range s {
				acc += row[j] * v
			}
			d[i] = acc
		}
	}
}

// chainGibbs is a parameterised Gibbs kernel that is not mass-preserving:
// points on a line at x_i = Σ_{e<i} θ_e, K_ij = exp(−(x_i−x_j)²/ε). It has
// N−1 parameters (the spacings).
type chainGibbs struct {
	n        int
	eps      float64
	theta, x []float64
	k        []float64
	row, col []float64 // Adjoint scratch
}

func newChainGibbs(theta []float64, eps float64) *chainGibbs {
	n := len(theta) + 1
	c := &chainGibbs{n: n, eps: eps, x: make([]float64, n), k: make([]float64, n*n),
		row: make([]float64, n), col: make([]float64, n)}
	c.setParams(theta)
	return c
}

func (c *chainGibbs) setParams(theta []float64) {
	c.theta = append(c.theta[:0], theta...)
	for i := 1; i < c.n; i++ {
		c.x[i] = c.x[i-1] + theta[i-1]
	}
	for i := 0; i < c.n; i++ {
		for j := 0; j < c.n; j++ {
			d := c.x[i] - c.x[j]
			c.k[i*c.n+j] = math.Exp(-d * d / c.eps)
		}
	}
}

func (c *chainGibbs) Size() int      { return c.n }
func (c *chainGibbs) NumParams() int { return c.n - 1 }
func (c *chainGibbs) Apply(dst, src []float64, cols int) error {
	denseApply(c.k, c.n, dst, src, cols)
	return nil
}

// Adjoint: with D_ij = g_i s_j K_ij (−2(x_i−x_j)/ε) and
// ∂(x_i−x_j)/∂θ_e = [e<i] − [e<j], ∂φ/∂θ_e = Σ_{i>e} (Σ_j D_ij − Σ_j D_ji).
func (c *chainGibbs) Adjoint(gsrc, gparam, src, gdst []float64, cols int) error {
	n := c.n
	if gsrc != nil {
		denseApply(c.k, n, gsrc, gdst, cols)
	}
	for cc := 0; cc < cols; cc++ {
		s, g := src[cc*n:(cc+1)*n], gdst[cc*n:(cc+1)*n]
		clear(c.row)
		clear(c.col)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				d := g[i] * s[j] * c.k[i*n+j] * (-2 * (c.x[i] - c.x[j]) / c.eps)
				c.row[i] += d
				c.col[j] += d
			}
		}
		var acc float64
		for e := n - 2; e >= 0; e-- {
			acc += c.row[e+1] - c.col[e+1]
			gparam[e] += acc
		}
	}
	return nil
}

// heatGraph is the dense heat kernel (I + τ·L_θ)^{−S} of a small graph with
// edge weights θ; K·1 = 1 for every θ. Its adjoint follows Proposition 1
// with the sign of docs/method.md, "Kernel gradient".
type heatGraph struct {
	n, steps int
	tau      float64
	edges    [][2]int
	minv     []float64   // row-major dense M^{-1}
	u, v     [][]float64 // Adjoint scratch, S+1 vectors each
}

// gridEdges returns the 4-neighbour edges of an nx×ny grid.
func gridEdges(nx, ny int) [][2]int {
	var e [][2]int
	for r := 0; r < ny; r++ {
		for c := 0; c < nx; c++ {
			i := r*nx + c
			if c+1 < nx {
				e = append(e, [2]int{i, i + 1})
			}
			if r+1 < ny {
				e = append(e, [2]int{i, i + nx})
			}
		}
	}
	return e
}

func newHeatGraph(n int, edges [][2]int, tau float64, steps int, theta []float64) *heatGraph {
	h := &heatGraph{n: n, steps: steps, tau: tau, edges: edges, minv: make([]float64, n*n)}
	for range steps + 1 {
		h.u = append(h.u, make([]float64, n))
		h.v = append(h.v, make([]float64, n))
	}
	h.setParams(theta)
	return h
}

func (h *heatGraph) setParams(theta []float64) {
	m := mat.NewDense(h.n, h.n, nil)
	for i := 0; i < h.n; i++ {
		m.Set(i, i, 1)
	}
	for e, ij := range h.edges {
		w := h.tau * theta[e]
		i, j := ij[0], ij[1]
		m.Set(i, i, m.At(i, i)+w)
		m.Set(j, j, m.At(j, j)+w)
		m.Set(i, j, m.At(i, j)-w)
		m.Set(j, i, m.At(j, i)-w)
	}
	var inv mat.Dense
	if err := inv.Inverse(m); err != nil {
		panic(fmt.Sprintf("heatGraph: %v", err))
	}
	for i := 0; i < h.n; i++ {
		for j := 0; j < h.n; j++ {
			h.minv[i*h.n+j] = inv.At(i, j)
		}
	}
}

// PreservesOnes: K·1 = 1 for every θ (ot.OnesPreserving), so that the
// gradient tests of heatGraph cover the interpolators' skipped K·1 adjoint
// (chainGibbs covers the other path).
func (h *heatGraph) PreservesOnes() bool { return true }

func (h *heatGraph) Size() int      { return h.n }
func (h *heatGraph) NumParams() int { return len(h.edges) }

func (h *heatGraph) Apply(dst, src []float64, cols int) error {
	n := h.n
	for c := 0; c < cols; c++ {
		copy(h.u[0], src[c*n:(c+1)*n])
		for l := 1; l <= h.steps; l++ {
			denseApply(h.minv, n, h.u[l], h.u[l-1], 1)
		}
		copy(dst[c*n:(c+1)*n], h.u[h.steps])
	}
	return nil
}

func (h *heatGraph) Adjoint(gsrc, gparam, src, gdst []float64, cols int) error {
	n, S := h.n, h.steps
	for c := 0; c < cols; c++ {
		copy(h.u[0], src[c*n:(c+1)*n])
		for l := 1; l <= S; l++ {
			denseApply(h.minv, n, h.u[l], h.u[l-1], 1)
		}
		copy(h.v[S], gdst[c*n:(c+1)*n])
		for l := S; l >= 1; l-- {
			denseApply(h.minv, n, h.v[l-1], h.v[l], 1)
		}
		if gsrc != nil {
			copy(gsrc[c*n:(c+1)*n], h.v[0])
		}
		for e, ij := range h.edges {
			i, j := ij[0], ij[1]
			var acc float64
			for l := 1; l <= S; l++ {
				acc += (h.u[l][i] - h.u[l][j]) * (h.v[l-1][i] - h.v[l-1][j])
			}
			gparam[e] -= h.tau * acc
		}
	}
	return nil
}

// chainStep is a cheap (O(N) per column) mass-preserving DiffKernel for
// benchmarks: one explicit diffusion step K = I − τ·L_θ on a chain, which
// is entrywise positive when τ·(θ_{i−1}+θ_i) < 1.
type chainStep struct {
	n     int
	tau   float64
	theta []float64
}

func (k *chainStep) Size() int      { return k.n }
func (k *chainStep) NumParams() int { return k.n - 1 }

func (k *chainStep) Apply(dst, src []float64, cols int) error {
	n := k.n
	for c := 0; c < cols; c++ {
		s, d := src[c*n:(c+1)*n], dst[c*n:(c+1)*n]
		copy(d, s)
		for e, w := range k.theta {
			f := k.tau * w * (s[e+1] - s[e])
			d[e] += f
			d[e+1] -= f
		}
	}
	return nil
}

func (k *chainStep) Adjoint(gsrc, gparam, src, gdst []float64, cols int) error {
	n := k.n
	if gsrc != nil {
		if err := k.Apply(gsrc, gdst, cols); err != nil {
			return err
		}
	}
	for c := 0; c < cols; c++ {
		s, g := src[c*n:(c+1)*n], gdst[c*n:(c+1)*n]
		for e := range k.theta {
			gparam[e] -= k.tau * (s[e+1] - s[e]) * (g[e+1] - g[e])
		}
	}
	return nil
}

// counting wraps a DiffKernel and records the column counts of its calls.
type counting struct {
	DiffKernel
	applies, adjoints []int
}

func (c *counting) Apply(dst, src []float64, cols int) error {
	c.applies = append(c.applies, cols)
	return c.DiffKernel.Apply(dst, src, cols)
}

func (c *counting) Adjoint(gsrc, gparam, src, gdst []float64, cols int) error {
	c.adjoints = append(c.adjoints, cols)
	return c.DiffKernel.Adjoint(gsrc, gparam, src, gdst, cols)
}
