package bench

import (
	"math"
	"testing"

	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// TestRoofline checks the roofline model's arithmetic, the triad and that
// the multiply-add chains of the kernels' vector width run.
func TestRoofline(t *testing.T) {
	// 2·1000·10 flops per pass over 12·1000 + 16·100·10 bytes.
	if got, want := SolveIntensity(1000, 100, 10), 20000.0/28000; math.Abs(got-want) > 1e-15 {
		t.Errorf("SolveIntensity = %v, want %v", got, want)
	}
	rl := Roofline{Threads: 2, PeakGFlops: 100, Bands: []Band{{1 << 20, 80}, {1 << 30, 20}}}
	for _, c := range []struct{ ai, bytes, want float64 }{{0.5, 1e9, 10}, {2, 1e9, 40}, {5, 1e9, 100}, {50, 1e9, 100},
		{0.5, 1e5, 40}, {2, 1 << 20, 100}, {0.5, 1e12, 10}} {
		if got := rl.Bound(c.ai, c.bytes); got != c.want {
			t.Errorf("Bound(%v, %v) = %v, want %v", c.ai, c.bytes, got, c.want)
		}
	}
	// The triad, vector part and tail: integers, so every path is exact.
	for _, n := range []int{0, 5, 16, 37} {
		a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range b {
			b[i], c[i] = float64(i), float64(2*i+1)
		}
		triadRange(a, b, c, 3)
		for i := range a {
			if want := float64(i + 3*(2*i+1)); a[i] != want {
				t.Errorf("triadRange over %d: a[%d] = %v, want %v", n, i, a[i], want)
			}
		}
	}
	// A round is 12 chains of w lanes (2 flops each), or 8 scalar chains.
	want := map[int]float64{8: 192, 4: 96, 1: 16}
	for _, w := range []int{sparsechol.VectorWidth(), 1} {
		if got := fmaRounds(w, 3); got != want[w] {
			t.Errorf("fmaRounds(%d) = %v flops a round, want %v", w, got, want[w])
		}
	}
}
