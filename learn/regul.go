package learn

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
)

// Smoothness selects the form of the smoothness regulariser f_s.
type Smoothness int

const (
	// SmoothNorm (default, the reference's metric_regul5): f_s = ‖Lap(w)‖_F,
	// the Frobenius norm (not squared). It is not differentiable where
	// Lap(w) = 0 (e.g. at a constant metric, the default start), where its
	// gradient is taken as 0 like torch's subgradient.
	SmoothNorm Smoothness = iota
	// SmoothSquared is the paper's f_s = Σ_e (Σ_{e'∈N∥(e)} (w_e − w_e'))²
	// = ‖Lap(w)‖², smooth everywhere.
	SmoothSquared
)

func (s Smoothness) String() string {
	switch s {
	case SmoothNorm:
		return "norm"
	case SmoothSquared:
		return "squared"
	}
	return fmt.Sprintf("Smoothness(%d)", int(s))
}

// ParseSmoothness is the inverse of Smoothness.String.
func ParseSmoothness(s string) (Smoothness, error) {
	switch s {
	case "norm":
		return SmoothNorm, nil
	case "squared":
		return SmoothSquared, nil
	}
	return 0, fmt.Errorf("learn: unknown smoothness %q (want norm or squared)", s)
}

// Regularizer evaluates λ_c·f_c(θ) + λ_s·f_s(θ) on the metric parameters θ
// (the metric itself, w = exp(x), not its logarithm; docs/method.md,
// "Regularisers"):
//
//	f_c = Σ_i (θ_i − 1)² / N_metric
//	f_s = ‖Lap(θ)‖_F   (or its square with SmoothSquared)
//
// N_metric is the number of vertices for the vertex metric (not d·N, as in
// the reference) and the number of edges for the edge metric. Lap is the
// unit-weight graph Laplacian, with free boundary, of a "parameter graph":
//
//   - vertex metric: each component θ[p] as an array on the grid, neighbours
//     along all axes;
//   - edge metric on a grid: the edges of one axis as their own grid (extent
//     n−1 along that axis, n along the others), neighbours along all axes;
//   - edge metric on a general graph: two edges are neighbours when they
//     share a vertex (the line graph).
type Regularizer struct {
	LambdaC, LambdaS float64
	Smooth           Smoothness

	nMetric int
	// Parameter graph in CSR form: neighbours of parameter i are
	// adj[ptr[i]:ptr[i+1]].
	ptr, adj []int
	lap      []float64
}

// NewRegularizer builds the regulariser of metric m on graph g (m must be a
// kernel.VertexMetric or kernel.EdgeMetric of g).
func NewRegularizer(g *kernel.Graph, m kernel.Metric, lambdaC, lambdaS float64, smooth Smoothness) (*Regularizer, error) {
	if !(lambdaC >= 0) || !(lambdaS >= 0) || math.IsInf(lambdaC, 0) || math.IsInf(lambdaS, 0) {
		return nil, fmt.Errorf("learn: regularisation weights λ_c=%v, λ_s=%v must be finite and ≥ 0", lambdaC, lambdaS)
	}
	r := &Regularizer{LambdaC: lambdaC, LambdaS: lambdaS, Smooth: smooth}
	var pairs [][2]int
	switch m.(type) {
	case kernel.VertexMetric:
		if !g.IsGrid() {
			return nil, fmt.Errorf("learn: the vertex metric needs a grid graph")
		}
		n, d := g.N(), len(g.Dims())
		r.nMetric = n
		for p := 0; p < d; p++ {
			for e := 0; e < g.NumEdges(); e++ {
				i, j := g.Edge(e)
				pairs = append(pairs, [2]int{p*n + i, p*n + j})
			}
		}
	case kernel.EdgeMetric:
		r.nMetric = g.NumEdges()
		if g.IsGrid() {
			pairs = gridEdgePairs(g)
		} else {
			pairs = lineGraphPairs(g)
		}
	default:
		return nil, fmt.Errorf("learn: unsupported metric type %T", m)
	}
	np := m.NumParams()
	deg := make([]int, np+1)
	for _, pr := range pairs {
		deg[pr[0]+1]++
		deg[pr[1]+1]++
	}
	for i := 0; i < np; i++ {
		deg[i+1] += deg[i]
	}
	r.ptr = deg
	r.adj = make([]int, deg[np])
	next := append([]int(nil), deg[:np]...)
	for _, pr := range pairs {
		r.adj[next[pr[0]]] = pr[1]
		next[pr[0]]++
		r.adj[next[pr[1]]] = pr[0]
		next[pr[1]]++
	}
	r.lap = make([]float64, np)
	return r, nil
}

// gridEdgePairs links two edges of the same axis whose lower vertices are
// grid neighbours (along any axis).
func gridEdgePairs(g *kernel.Graph) [][2]int {
	dims := g.Dims()
	n := g.N()
	strides := make([]int, len(dims))
	s := 1
	for q := range dims {
		strides[q] = s
		s *= dims[q]
	}
	idx := make([]map[int]int, len(dims)) // axis → lower vertex → edge
	for q := range idx {
		idx[q] = make(map[int]int)
	}
	for e := 0; e < g.NumEdges(); e++ {
		i, _ := g.Edge(e)
		idx[g.Axis(e)][i] = e
	}
	var pairs [][2]int
	for e := 0; e < g.NumEdges(); e++ {
		i, _ := g.Edge(e)
		p := g.Axis(e)
		for q := range dims {
			j := i + strides[q]
			if j >= n || (i/strides[q])%dims[q] == dims[q]-1 {
				continue
			}
			if f, ok := idx[p][j]; ok {
				pairs = append(pairs, [2]int{e, f})
			}
		}
	}
	return pairs
}

// lineGraphPairs links edges that share a vertex.
func lineGraphPairs(g *kernel.Graph) [][2]int {
	inc := make([][]int, g.N())
	for e := 0; e < g.NumEdges(); e++ {
		i, j := g.Edge(e)
		inc[i] = append(inc[i], e)
		inc[j] = append(inc[j], e)
	}
	var pairs [][2]int
	for _, es := range inc {
		for a := 0; a < len(es); a++ {
			for b := a + 1; b < len(es); b++ {
				pairs = append(pairs, [2]int{es[a], es[b]})
			}
		}
	}
	return pairs
}

// Terms returns f_c and f_s (without the λ factors) at θ.
func (r *Regularizer) Terms(theta []float64) (fc, fs float64) {
	for _, v := range theta {
		d := v - 1
		fc += d * d
	}
	fc /= float64(r.nMetric)
	fs = r.laplacian(theta)
	if r.Smooth == SmoothSquared {
		return fc, fs * fs
	}
	return fc, fs
}

// laplacian fills r.lap with Lap(θ) and returns its norm.
func (r *Regularizer) laplacian(theta []float64) float64 {
	var ss float64
	for i := range theta {
		nb := r.adj[r.ptr[i]:r.ptr[i+1]]
		v := float64(len(nb)) * theta[i]
		for _, j := range nb {
			v -= theta[j]
		}
		r.lap[i] = v
		ss += v * v
	}
	return math.Sqrt(ss)
}

// Eval returns λ_c·f_c + λ_s·f_s at θ and adds its gradient with respect to
// θ into grad (unless grad is nil).
func (r *Regularizer) Eval(grad, theta []float64) float64 {
	if len(theta) != len(r.lap) || (grad != nil && len(grad) != len(theta)) {
		panic("learn: Regularizer.Eval: length mismatch")
	}
	var f float64
	if r.LambdaC != 0 {
		var fc float64
		for _, v := range theta {
			d := v - 1
			fc += d * d
		}
		f += r.LambdaC * fc / float64(r.nMetric)
		if grad != nil {
			s := 2 * r.LambdaC / float64(r.nMetric)
			for i, v := range theta {
				grad[i] += s * (v - 1)
			}
		}
	}
	if r.LambdaS != 0 {
		norm := r.laplacian(theta)
		var scale float64
		switch r.Smooth {
		case SmoothSquared:
			f += r.LambdaS * norm * norm
			scale = 2 * r.LambdaS
		default:
			f += r.LambdaS * norm
			if norm > 0 {
				scale = r.LambdaS / norm
			}
		}
		if grad != nil && scale != 0 {
			// ∇ = scale · Lapᵀ·Lap(θ); Lap is symmetric.
			for i := range theta {
				nb := r.adj[r.ptr[i]:r.ptr[i+1]]
				v := float64(len(nb)) * r.lap[i]
				for _, j := range nb {
					v -= r.lap[j]
				}
				grad[i] += scale * v
			}
		}
	}
	return f
}
