package color

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
)

// ProlongedSize returns n_hi = 2^levels·(n−1)+1, the grid side after
// levels prolongations (16 → 31 → 61 → …).
func ProlongedSize(n, levels int) int {
	return (n-1)<<levels + 1
}

// prolong checks a colour metric theta of shape [3, n³] and moves it to the
// cube of side ProlongedSize(n, levels) with kernel.ProlongVertexMetric.
func prolong(theta []float64, n, levels int) ([]float64, int, error) {
	if n < 2 || levels < 0 || levels > 8 {
		return nil, 0, fmt.Errorf("prolong: n=%d, levels=%d, want n ≥ 2, 0 ≤ levels ≤ 8", n, levels)
	}
	if len(theta) != 3*n*n*n {
		return nil, 0, fmt.Errorf("prolong: metric of length %d, want 3·n³ = %d", len(theta), 3*n*n*n)
	}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("prolong: metric entry %d = %v is not finite", i, v)
		}
	}
	nHi := ProlongedSize(n, levels)
	if levels == 0 {
		return theta, n, nil
	}
	return kernel.ProlongVertexMetric(theta, []int{n, n, n}, []int{nHi, nHi, nHi}), nHi, nil
}
