package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMetricAdjointAndPadding checks the padded [d,N] layout of edge
// weights (a round trip, zeros where no edge exists), the axis of every
// grid edge, and VertexMetric's adjoint against its weights.
func TestMetricAdjointAndPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dims := range [][]int{{4, 4}, {3, 4, 5}} {
		g, _ := Grid(dims...)
		// PadEdges/UnpadEdges round trip and zero padding where no edge exists.
		w := randWeights(rng, g.NumEdges(), 0.5, 2)
		padded := make([]float64, len(dims)*g.N())
		g.PadEdges(padded, w)
		back := make([]float64, g.NumEdges())
		g.UnpadEdges(back, padded)
		for e := range w {
			if back[e] != w[e] {
				t.Fatalf("%v: round trip changed edge %d", dims, e)
			}
		}
		nz := 0
		for _, v := range padded {
			if v != 0 {
				nz++
			}
		}
		if nz != g.NumEdges() {
			t.Errorf("%v: padded array has %d non-zeros, want %d edges", dims, nz, g.NumEdges())
		}
		// Every edge joins i and i+stride of its axis.
		stride := []int{1, dims[0], dims[0] * dims[1]}
		for e := 0; e < g.NumEdges(); e++ {
			i, j := g.Edge(e)
			if j-i != stride[g.Axis(e)] {
				t.Fatalf("%v: edge %d = {%d,%d} on axis %d", dims, e, i, j, g.Axis(e))
			}
		}
		// VertexMetric: ⟨J θ, gw⟩ = ⟨θ, Jᵀ gw⟩.
		vm := VertexMetric{G: g}
		theta := randBlock(rng, vm.NumParams())
		gw := randBlock(rng, g.NumEdges())
		jt := make([]float64, vm.NumParams())
		vm.Weights(w, theta)
		vm.WeightsAdjoint(jt, gw)
		var a, b float64
		for e := range w {
			a += w[e] * gw[e]
		}
		for i := range theta {
			b += theta[i] * jt[i]
		}
		if math.Abs(a-b) > 1e-12*math.Abs(a) {
			t.Errorf("%v: VertexMetric adjoint mismatch %.17g vs %.17g", dims, a, b)
		}
	}
}

// TestFromEdgesValidation checks that FromEdges refuses bad edge lists and
// counts the components of a good one.
func TestFromEdgesValidation(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int
		edges [][2]int
	}{
		{"out of range", 3, [][2]int{{0, 3}}},
		{"negative", 3, [][2]int{{-1, 2}}},
		{"self-loop", 3, [][2]int{{1, 1}}},
		{"duplicate", 3, [][2]int{{0, 1}, {1, 0}}},
		{"no vertices", 0, nil},
	} {
		if _, err := FromEdges(c.n, c.edges); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	g, err := FromEdges(5, [][2]int{{0, 1}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if c := g.Components(); c != 3 {
		t.Errorf("Components = %d, want 3", c)
	}
}
