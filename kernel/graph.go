package kernel

import (
	"errors"
	"fmt"
	"slices"
)

// Graph is an undirected graph with a fixed edge order. Edge e joins vertices
// i < j (Edge). Grids also know the axis of every edge.
//
// A Graph is immutable after construction and safe for concurrent use.
type Graph struct {
	n    int
	from []int
	to   []int
	axis []int // nil for general graphs
	dims []int // nil for general graphs
	// runs groups consecutive edges e, e+1, … joining i, i+1, … to
	// i+s, i+1+s, …: the hot loops over edges then run over contiguous
	// slices (a grid has a few long runs per axis).
	runs []edgeRun
}

// edgeRun is the edges e0..e0+len−1, edge e0+m joining i0+m and i0+m+stride.
type edgeRun struct{ e0, i0, len, stride int }

// buildRuns fills g.runs from the edge list.
func (g *Graph) buildRuns() {
	g.runs = g.runs[:0]
	for e := 0; e < len(g.from); {
		r := edgeRun{e0: e, i0: g.from[e], len: 1, stride: g.to[e] - g.from[e]}
		for e+r.len < len(g.from) && g.from[e+r.len] == r.i0+r.len && g.to[e+r.len]-g.from[e+r.len] == r.stride {
			r.len++
		}
		g.runs = append(g.runs, r)
		e += r.len
	}
}

// Grid returns the Cartesian grid graph with dims[p] vertices along axis p
// (2·d nearest neighbours in the interior).
//
// # Vertex order (docs/method.md, "Grid and vertex order")
//
// Axis 0 is the fastest: vertex i has coordinate (i / s_p) mod dims[p] along
// axis p, with stride s_p = dims[0]·…·dims[p-1]. For a 2-D image I[r,c]
// flattened in C order (i = r·n + c) axis 0 is the column ("horizontal"),
// axis 1 the row ("vertical"); for a 3-D colour histogram H[R,G,B] axis 0 is
// B, axis 1 is G and axis 2 is R. Row p of the reference's [d,N] metric
// arrays belongs to axis p.
//
// # Edge order
//
// Edges are grouped by axis (axis 0 first); within axis p they are listed by
// increasing lower vertex i, for every i whose coordinate along p is below
// dims[p]−1, joining i and i+s_p. This is the reference's padded [d,N] edge
// array with its zero entries removed, row by row (see PadEdges).
func Grid(dims ...int) (*Graph, error) {
	if len(dims) < 1 {
		return nil, errors.New("kernel: grid needs at least one dimension")
	}
	n := 1
	for p, m := range dims {
		if m < 2 {
			return nil, fmt.Errorf("kernel: grid extent %d along axis %d < 2", m, p)
		}
		if n > (1<<40)/m {
			return nil, fmt.Errorf("kernel: grid %v too large", dims)
		}
		n *= m
	}
	g := &Graph{n: n, dims: append([]int(nil), dims...)}
	stride := 1
	for p, m := range dims {
		for i := 0; i < n; i++ {
			if (i/stride)%m < m-1 {
				g.from = append(g.from, i)
				g.to = append(g.to, i+stride)
				g.axis = append(g.axis, p)
			}
		}
		stride *= m
	}
	g.buildRuns()
	return g, nil
}

// Cube returns the d-dimensional grid with n vertices along every axis.
func Cube(d, n int) (*Graph, error) {
	if d < 1 {
		return nil, fmt.Errorf("kernel: grid dimension %d < 1", d)
	}
	return Grid(slices.Repeat([]int{n}, d)...)
}

// FromEdges returns the general undirected graph on n vertices with the given
// edges, in the given order. Each edge {i, j} is stored with From < To.
// Indices must lie in [0, n); self-loops and duplicate edges (in either
// direction) are rejected.
//
// A disconnected graph is allowed: its heat kernel is block diagonal, so mass
// never crosses between components. Sinkhorn barycenters between histograms
// whose masses sit in different components then have no feasible coupling and
// fail with a non-finite error rather than returning a wrong answer.
func FromEdges(n int, edges [][2]int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("kernel: graph needs at least one vertex, got %d", n)
	}
	g := &Graph{n: n, from: make([]int, len(edges)), to: make([]int, len(edges))}
	seen := make(map[[2]int]int, len(edges))
	for e, ed := range edges {
		i, j := ed[0], ed[1]
		if i < 0 || i >= n || j < 0 || j >= n {
			return nil, fmt.Errorf("kernel: edge %d = {%d,%d}: vertex index out of range [0,%d)", e, i, j, n)
		}
		if i == j {
			return nil, fmt.Errorf("kernel: edge %d = {%d,%d} is a self-loop", e, i, j)
		}
		if i > j {
			i, j = j, i
		}
		if prev, dup := seen[[2]int{i, j}]; dup {
			return nil, fmt.Errorf("kernel: edge %d = {%d,%d} duplicates edge %d", e, ed[0], ed[1], prev)
		}
		seen[[2]int{i, j}] = e
		g.from[e], g.to[e] = i, j
	}
	g.buildRuns()
	return g, nil
}

// N returns the number of vertices.
func (g *Graph) N() int { return g.n }

// NumEdges returns the number of edges.
func (g *Graph) NumEdges() int { return len(g.from) }

// Edge returns the endpoints i < j of edge e.
func (g *Graph) Edge(e int) (i, j int) { return g.from[e], g.to[e] }

// Axis returns the axis of edge e on a grid, or −1 on a general graph.
func (g *Graph) Axis(e int) int {
	if g.axis == nil {
		return -1
	}
	return g.axis[e]
}

// Dims returns a copy of the grid extents (axis 0 first), or nil for a
// general graph.
func (g *Graph) Dims() []int { return append([]int(nil), g.dims...) }

// IsGrid reports whether g was built by Grid or Cube.
func (g *Graph) IsGrid() bool { return g.dims != nil }

// Components returns the number of connected components.
func (g *Graph) Components() int {
	parent := make([]int, g.n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	c := g.n
	for e := range g.from {
		a, b := find(g.from[e]), find(g.to[e])
		if a != b {
			parent[a] = b
			c--
		}
	}
	return c
}

// PadEdges converts edge weights w (length NumEdges, graph edge order) of a
// grid into the reference's padded layout: a [d,N] array, row-major, where
// padded[p*N+i] is the weight of the edge between i and i+s_p, and 0 where
// that edge does not exist (docs/method.md, "Edge metric"). dst must have
// length d·N.
func (g *Graph) PadEdges(dst, w []float64) {
	g.mustGrid("PadEdges")
	checkLen("PadEdges", len(dst), len(g.dims)*g.n, len(w), len(g.from))
	clear(dst)
	for e, p := range g.axis {
		dst[p*g.n+g.from[e]] = w[e]
	}
}

// UnpadEdges is the inverse of PadEdges: it reads the edge weights from a
// padded [d,N] array, ignoring the padding positions.
func (g *Graph) UnpadEdges(dst, padded []float64) {
	g.mustGrid("UnpadEdges")
	checkLen("UnpadEdges", len(dst), len(g.from), len(padded), len(g.dims)*g.n)
	for e, p := range g.axis {
		dst[e] = padded[p*g.n+g.from[e]]
	}
}

func (g *Graph) mustGrid(op string) {
	if g.dims == nil {
		panic("kernel: " + op + " needs a grid graph")
	}
}

// GridAlpha returns the Laplacian scale α = 1/h² with h = 1/(n−1), computed in
// floating point exactly as the reference does (Python's 1/(1/(n−1))**2, where
// ** binds first): 49.00000000000001 for n=8, 2401.0000000000005 for n=50
// (docs/method.md, "Heat kernel").
func GridAlpha(n int) float64 {
	h := 1 / float64(n-1)
	return 1 / (h * h)
}
