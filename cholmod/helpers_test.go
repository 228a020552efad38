//go:build cgo

package cholmod

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// edge is an undirected weighted edge u–v.
type edge struct {
	u, v int
	w    float64
}

// gridEdges returns the edges of a d-dimensional grid with n vertices per
// axis (axis 0 has stride 1), weights drawn uniformly from [0.5, 1.5).
func gridEdges(d, n int, rng *rand.Rand) (int, []edge) {
	size := 1
	for range d {
		size *= n
	}
	var es []edge
	stride := 1
	for range d {
		for v := 0; v < size; v++ {
			if (v/stride)%n < n-1 {
				es = append(es, edge{v, v + stride, 0.5 + rng.Float64()})
			}
		}
		stride *= n
	}
	return size, es
}

// randomEdges returns m random distinct edges on n vertices (no loops).
func randomEdges(n, m int, rng *rand.Rand) []edge {
	seen := map[[2]int]bool{}
	var es []edge
	for len(es) < m {
		u, v := rng.IntN(n), rng.IntN(n)
		if u == v {
			continue
		}
		if u > v {
			u, v = v, u
		}
		if seen[[2]int{u, v}] {
			continue
		}
		seen[[2]int{u, v}] = true
		es = append(es, edge{u, v, 0.5 + rng.Float64()})
	}
	return es
}

// appendGrid appends the edges of a side×side 2-D grid on the vertices
// off, off+1, ... to es.
func appendGrid(es []edge, off, side int, rng *rand.Rand) []edge {
	_, eg := gridEdges(2, side, rng)
	for _, e := range eg {
		es = append(es, edge{e.u + off, e.v + off, e.w})
	}
	return es
}

// matrix is the lower triangle of A = I + c·L_w in CSC form.
type matrix struct {
	n              int
	colPtr, rowIdx []int
	values         []float64
}

// laplacianSystem builds A = I + c·L_w, L_w the weighted Laplacian of es.
func laplacianSystem(n int, es []edge, c float64) matrix {
	cols := make([]map[int]float64, n)
	for j := range cols {
		cols[j] = map[int]float64{j: 1}
	}
	for _, e := range es {
		lo, hi := min(e.u, e.v), max(e.u, e.v)
		cols[lo][lo] += c * e.w
		cols[hi][hi] += c * e.w
		cols[lo][hi] -= c * e.w
	}
	m := matrix{n: n, colPtr: make([]int, n+1)}
	for j := range n {
		rows := make([]int, 0, len(cols[j]))
		for r := range cols[j] {
			rows = append(rows, r)
		}
		slices.Sort(rows)
		for _, r := range rows {
			m.rowIdx = append(m.rowIdx, r)
			m.values = append(m.values, cols[j][r])
		}
		m.colPtr[j+1] = len(m.rowIdx)
	}
	return m
}

// mul computes y = A x for the n×cols block x, A symmetric given by m.
func (m matrix) mul(y, x []float64, cols int) {
	clear(y)
	n := m.n
	for k := range cols {
		xk, yk := x[k*n:(k+1)*n], y[k*n:(k+1)*n]
		for j := range n {
			for p := m.colPtr[j]; p < m.colPtr[j+1]; p++ {
				i, a := m.rowIdx[p], m.values[p]
				yk[i] += a * xk[j]
				if i != j {
					yk[j] += a * xk[i]
				}
			}
		}
	}
}

// diagIndex returns the position of A[j][j] in m.values.
func (m matrix) diagIndex(j int) int { return m.colPtr[j] }

// relResidual returns ‖A X − B‖_F / ‖B‖_F.
func (m matrix) relResidual(x, b []float64, cols int) float64 {
	ax := make([]float64, len(b))
	m.mul(ax, x, cols)
	var num, den float64
	for i := range b {
		num += (ax[i] - b[i]) * (ax[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

func randomBlock(n, cols int, rng *rand.Rand) []float64 {
	b := make([]float64, n*cols)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return b
}

// testMatrices are the systems of the correctness tests.
func testMatrices() []struct {
	name string
	m    matrix
} {
	rng := rand.New(rand.NewPCG(1, 1))
	n2, e2 := gridEdges(2, 12, rng)
	n3, e3 := gridEdges(3, 6, rng)
	// A disconnected graph: a random graph on 0..79, a 5×5 grid on
	// 80..104, and isolated vertices 105..109.
	ed := appendGrid(randomEdges(80, 200, rng), 80, 5, rng)
	return []struct {
		name string
		m    matrix
	}{
		{"grid2d-12", laplacianSystem(n2, e2, 3)},
		{"grid3d-6", laplacianSystem(n3, e3, 2.5)},
		{"random-200", laplacianSystem(200, randomEdges(200, 900, rng), 4)},
		{"disconnected", laplacianSystem(110, ed, 5)},
	}
}

// mustSparse builds a Sparse from m or fails the test.
func mustSparse(t testing.TB, cc *Common, m matrix) *Sparse {
	t.Helper()
	a, err := cc.NewSparse(m.n, m.colPtr, m.rowIdx, m.values)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mustPanic runs f and checks that it panics with a "cholmod: " message.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", what)
			return
		}
		s, ok := r.(string)
		if !ok || len(s) < 9 || s[:9] != "cholmod: " {
			t.Errorf("%s: panic %v, want a \"cholmod: ...\" message", what, r)
		}
	}()
	f()
}

// eachMatrix runs body as a subtest for every test matrix, with a Common
// and the matrix copied into it.
func eachMatrix(t *testing.T, body func(t *testing.T, m matrix, cc *Common, a *Sparse)) {
	for _, tc := range testMatrices() {
		t.Run(tc.name, func(t *testing.T) {
			cc, err := NewCommon()
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			body(t, tc.m, cc, mustSparse(t, cc, tc.m))
		})
	}
}
