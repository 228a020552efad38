package sparsechol

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gmlg/gmlg/kernel/factor"
)

// testMatrix is M = I + c·L_w for a weighted graph, as a lower-triangular
// CSC pattern with aligned values.
type testMatrix struct {
	pat  *factor.Pattern
	val  []float64
	grid []int
}

type edge struct {
	i, j int
	w    float64
}

// gridEdges lists the edges of the Cartesian grid with the given extents
// (axis 0 fastest) with weights drawn from rng in [0.5, 2).
func gridEdges(rng *rand.Rand, dims ...int) (int, []edge) {
	n := 1
	for _, m := range dims {
		n *= m
	}
	var es []edge
	stride := 1
	for _, m := range dims {
		for i := 0; i < n; i++ {
			if (i/stride)%m < m-1 {
				es = append(es, edge{i, i + stride, 0.5 + 1.5*rng.Float64()})
			}
		}
		stride *= m
	}
	return n, es
}

// randomEdges is a random graph on n vertices with about deg·n/2 edges.
func randomEdges(rng *rand.Rand, n int, deg float64) []edge {
	seen := map[[2]int]bool{}
	var es []edge
	m := int(deg * float64(n) / 2)
	for len(es) < m {
		i, j := rng.IntN(n), rng.IntN(n)
		if i == j {
			continue
		}
		i, j = min(i, j), max(i, j)
		if seen[[2]int{i, j}] {
			continue
		}
		seen[[2]int{i, j}] = true
		es = append(es, edge{i, j, 0.1 + rng.Float64()})
	}
	return es
}

// heatMatrix assembles M = I + c·L_w.
func heatMatrix(n int, es []edge, c float64) *testMatrix {
	nb := make([][]edge, n)
	diag := make([]float64, n)
	for v := range diag {
		diag[v] = 1
	}
	for _, e := range es {
		i, j := min(e.i, e.j), max(e.i, e.j)
		nb[i] = append(nb[i], edge{j, i, -c * e.w})
		diag[i] += c * e.w
		diag[j] += c * e.w
	}
	p := &factor.Pattern{N: n, ColPtr: make([]int, n+1)}
	var val []float64
	for j := 0; j < n; j++ {
		slices.SortFunc(nb[j], func(a, b edge) int { return a.i - b.i })
		p.RowIdx = append(p.RowIdx, j)
		val = append(val, diag[j])
		for _, e := range nb[j] {
			p.RowIdx = append(p.RowIdx, e.i)
			val = append(val, e.w)
		}
		p.ColPtr[j+1] = len(p.RowIdx)
	}
	return &testMatrix{pat: p, val: val}
}

// mulTo computes y = M x for column-major N×cols blocks.
func (m *testMatrix) mulTo(y, x []float64, cols int) {
	n := m.pat.N
	clear(y)
	for k := 0; k < cols; k++ {
		xk, yk := x[k*n:(k+1)*n], y[k*n:(k+1)*n]
		for j := 0; j < n; j++ {
			for q := m.pat.ColPtr[j]; q < m.pat.ColPtr[j+1]; q++ {
				i, v := m.pat.RowIdx[q], m.val[q]
				yk[i] += v * xk[j]
				if i != j {
					yk[j] += v * xk[i]
				}
			}
		}
	}
}

// relResidual returns ‖M x − b‖/‖b‖ (Frobenius norms).
func (m *testMatrix) relResidual(x, b []float64, cols int) float64 {
	y := make([]float64, len(b))
	m.mulTo(y, x, cols)
	var num, den float64
	for k := range y {
		num += (y[k] - b[k]) * (y[k] - b[k])
		den += b[k] * b[k]
	}
	return math.Sqrt(num / den)
}

func randomBlock(rng *rand.Rand, n int) []float64 {
	b := make([]float64, n)
	for k := range b {
		b[k] = rng.NormFloat64()
	}
	return b
}

// maxDiff returns the largest |got[k] − want[k]| and the largest |want[k]|.
func maxDiff(got, want []float64) (diff, scale float64) {
	for k, v := range want {
		scale = max(scale, math.Abs(v))
		diff = max(diff, math.Abs(got[k]-v))
	}
	return diff, scale
}

// relDiff returns ‖got − want‖₂ / ‖want‖₂.
func relDiff(got, want []float64) float64 {
	var num, den float64
	for k := range want {
		d := got[k] - want[k]
		num += d * d
		den += want[k] * want[k]
	}
	return math.Sqrt(num / den)
}

// noKernels is why a test of the vector kernels, or of their AVX-512
// paths (wide), cannot run here.
func noKernels(wide bool) string {
	switch {
	case !asmBuilt:
		return "no vector kernels in this build (not amd64, or the noasm tag)"
	case wide:
		return "no AVX-512 on this processor"
	}
	return "no vector kernels on this processor"
}
