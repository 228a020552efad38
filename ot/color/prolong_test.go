package color

import (
	"math"
	"slices"
	"testing"

	"github.com/gmlg/gmlg/kernel"
)

// TestProlong checks the colour metric's move to a finer cube: the side
// 2^k(n−1)+1, the values of kernel.ProlongVertexMetric, the metric itself
// for k = 0, and errors for bad sizes, levels and entries.
func TestProlong(t *testing.T) {
	const n = 3
	w := make([]float64, 3*n*n*n)
	for i := range w {
		w[i] = 1 + 0.5*math.Sin(0.3*float64(i))
	}
	for _, levels := range []int{0, 1, 2} {
		got, nHi, err := prolong(w, n, levels)
		if err != nil {
			t.Fatal(err)
		}
		if want := (n-1)<<levels + 1; nHi != want {
			t.Fatalf("levels %d: side %d, want %d", levels, nHi, want)
		}
		want := w
		if levels > 0 {
			want = kernel.ProlongVertexMetric(w, []int{n, n, n}, []int{nHi, nHi, nHi})
		}
		if !slices.Equal(got, want) {
			t.Errorf("levels %d: not kernel.ProlongVertexMetric's values", levels)
		}
	}
	bad := slices.Clone(w)
	bad[7] = math.NaN()
	for _, tc := range []struct {
		w         []float64
		n, levels int
	}{
		{w[:10], n, 1},
		{w, 1, 1},
		{w, n, -1},
		{w, n, 9},
		{bad, n, 1},
	} {
		if _, _, err := prolong(tc.w, tc.n, tc.levels); err == nil {
			t.Errorf("prolong(len %d, n=%d, levels=%d): no error", len(tc.w), tc.n, tc.levels)
		}
	}
}
