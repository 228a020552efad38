package kernel

import "fmt"

// Metric maps a parameter vector θ to the graph's edge weights w. Both
// parameterisations (docs/method.md, "Metric parameterisations") are linear
// maps; WeightsAdjoint applies the transpose.
type Metric interface {
	// NumParams returns the length of θ.
	NumParams() int
	// Weights writes w(θ) (length Graph.NumEdges) into w.
	Weights(w, theta []float64)
	// WeightsAdjoint adds (∂w/∂θ)ᵀ·gw to gtheta.
	WeightsAdjoint(gtheta, gw []float64)
}

// EdgeMetric is the paper's parameterisation: one free weight per edge, θ = w,
// in the graph's edge order.
type EdgeMetric struct{ G *Graph }

// NumParams returns the number of edges.
func (m EdgeMetric) NumParams() int { return m.G.NumEdges() }

// Weights copies θ into w.
func (m EdgeMetric) Weights(w, theta []float64) {
	checkLen("EdgeMetric.Weights", len(w), m.G.NumEdges(), len(theta), m.G.NumEdges())
	copy(w, theta)
}

// WeightsAdjoint adds gw to gtheta.
func (m EdgeMetric) WeightsAdjoint(gtheta, gw []float64) {
	checkLen("EdgeMetric.WeightsAdjoint", len(gtheta), m.G.NumEdges(), len(gw), m.G.NumEdges())
	for e, v := range gw {
		gtheta[e] += v
	}
}

// VertexMetric is the reference's default parameterisation
// (grid_vertices_tensor_diag; docs/method.md, "Vertex metric"): a positive
// diagonal tensor per vertex, stored as the [d,N] row-major array θ[p*N+i]
// (row p = axis p). The weight of the edge between i and i+s_p along axis p
// is the average (θ[p][i] + θ[p][i+s_p])/2 of the component matching the
// edge's axis. It needs a grid graph.
type VertexMetric struct{ G *Graph }

// NumParams returns d·N.
func (m VertexMetric) NumParams() int {
	m.G.mustGrid("VertexMetric")
	return len(m.G.dims) * m.G.n
}

// Weights averages the vertex values onto the edges.
func (m VertexMetric) Weights(w, theta []float64) {
	g := m.G
	checkLen("VertexMetric.Weights", len(w), g.NumEdges(), len(theta), m.NumParams())
	for e, p := range g.axis {
		row := theta[p*g.n : (p+1)*g.n]
		w[e] = (row[g.from[e]] + row[g.to[e]]) / 2
	}
}

// WeightsAdjoint spreads each edge gradient half to each endpoint's component.
func (m VertexMetric) WeightsAdjoint(gtheta, gw []float64) {
	g := m.G
	checkLen("VertexMetric.WeightsAdjoint", len(gtheta), m.NumParams(), len(gw), g.NumEdges())
	for e, p := range g.axis {
		row := gtheta[p*g.n : (p+1)*g.n]
		h := gw[e] / 2
		row[g.from[e]] += h
		row[g.to[e]] += h
	}
}

func checkLen(op string, a, wantA, b, wantB int) {
	if a != wantA || b != wantB {
		panic(fmt.Sprintf("kernel: %s: lengths %d and %d, want %d and %d", op, a, b, wantA, wantB))
	}
}
