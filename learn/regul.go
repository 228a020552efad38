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

var smoothNames = []string{SmoothNorm: "norm", SmoothSquared: "squared"}

func (s Smoothness) String() string { return enumString(s, smoothNames, "Smoothness") }

// ParseSmoothness is the inverse of Smoothness.String.
func ParseSmoothness(s string) (Smoothness, error) {
	return parseEnum[Smoothness](s, smoothNames, "smoothness")
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
	adj     [][]int // the parameter graph's neighbours of each parameter
	lap     []float64
}

// NewRegularizer builds the regulariser of metric m on graph g (m must be a
// kernel.VertexMetric or kernel.EdgeMetric of g).
func NewRegularizer(g *kernel.Graph, m kernel.Metric, lambdaC, lambdaS float64, smooth Smoothness) (*Regularizer, error) {
	if !(lambdaC >= 0) || !(lambdaS >= 0) || math.IsInf(lambdaC, 0) || math.IsInf(lambdaS, 0) {
		return nil, fmt.Errorf("learn: regularisation weights λ_c=%v, λ_s=%v must be finite and ≥ 0", lambdaC, lambdaS)
	}
	r := &Regularizer{LambdaC: lambdaC, LambdaS: lambdaS, Smooth: smooth}
	link := func(a, b int) {
		r.adj[a] = append(r.adj[a], b)
		r.adj[b] = append(r.adj[b], a)
	}
	switch m.(type) {
	case kernel.VertexMetric:
		if !g.IsGrid() {
			return nil, fmt.Errorf("learn: the vertex metric needs a grid graph")
		}
		n, d := g.N(), len(g.Dims())
		r.nMetric, r.adj = n, make([][]int, d*n)
		for p := range d {
			for e := range g.NumEdges() {
				i, j := g.Edge(e)
				link(p*n+i, p*n+j)
			}
		}
	case kernel.EdgeMetric:
		r.nMetric, r.adj = g.NumEdges(), make([][]int, g.NumEdges())
		if g.IsGrid() {
			gridEdgePairs(g, link)
		} else {
			lineGraphPairs(g, link)
		}
	default:
		return nil, fmt.Errorf("learn: unsupported metric type %T", m)
	}
	r.lap = make([]float64, len(r.adj))
	return r, nil
}

// gridEdgePairs links two edges of the same axis whose lower vertices are
// grid neighbours (along any axis).
func gridEdgePairs(g *kernel.Graph, link func(a, b int)) {
	dims := g.Dims()
	n := g.N()
	strides := make([]int, len(dims))
	s := 1
	for q := range dims {
		strides[q] = s
		s *= dims[q]
	}
	idx := map[[2]int]int{} // {axis, lower vertex} → edge
	for e := range g.NumEdges() {
		i, _ := g.Edge(e)
		idx[[2]int{g.Axis(e), i}] = e
	}
	for e := range g.NumEdges() {
		i, _ := g.Edge(e)
		p := g.Axis(e)
		for q := range dims {
			j := i + strides[q]
			if j >= n || (i/strides[q])%dims[q] == dims[q]-1 {
				continue
			}
			if f, ok := idx[[2]int{p, j}]; ok {
				link(e, f)
			}
		}
	}
}

// lineGraphPairs links edges that share a vertex.
func lineGraphPairs(g *kernel.Graph, link func(a, b int)) {
	inc := make([][]int, g.N())
	for e := 0; e < g.NumEdges(); e++ {
		i, j := g.Edge(e)
		inc[i] = append(inc[i], e)
		inc[j] = append(inc[j], e)
	}
	for _, es := range inc {
		for a := range es {
			for b := a + 1; b < len(es); b++ {
				link(es[a], es[b])
			}
		}
	}
}

// Terms returns f_c and f_s (without the λ factors) at θ.
func (r *Regularizer) Terms(theta []float64) (fc, fs float64) {
	fc = sumSqDev(theta) / float64(r.nMetric)
	fs = r.laplacian(theta)
	if r.Smooth == SmoothSquared {
		return fc, fs * fs
	}
	return fc, fs
}

// sumSqDev returns Σ_i (θ_i − 1)².
func sumSqDev(theta []float64) float64 {
	var s float64
	for _, v := range theta {
		s += (v - 1) * (v - 1)
	}
	return s
}

// lapAt returns entry i of Lap(x).
func (r *Regularizer) lapAt(x []float64, i int) float64 {
	nb := r.adj[i]
	v := float64(len(nb)) * x[i]
	for _, j := range nb {
		v -= x[j]
	}
	return v
}

// laplacian fills r.lap with Lap(θ) and returns its norm.
func (r *Regularizer) laplacian(theta []float64) float64 {
	var ss float64
	for i := range theta {
		r.lap[i] = r.lapAt(theta, i)
		ss += r.lap[i] * r.lap[i]
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
		f += r.LambdaC * sumSqDev(theta) / float64(r.nMetric)
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
				grad[i] += scale * r.lapAt(r.lap, i)
			}
		}
	}
	return f
}
