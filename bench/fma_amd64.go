//go:build !noasm

package bench

import "github.com/gmlg/gmlg/kernel/sparsechol"

// fmaZ, fmaY and triadY are in fma_amd64.s.
func fmaZ(n int)
func fmaY(n int)

//go:noescape
func triadY(a, b, c *float64, n int, s float64)

// fmaRounds runs n rounds of independent multiply-add chains w lanes wide
// (8: AVX-512, 4: AVX2, else scalar Go) and returns the flops of a round.
func fmaRounds(w, n int) float64 {
	switch w {
	case 8:
		fmaZ(n)
	case 4:
		fmaY(n)
	default:
		return scalarRounds(n)
	}
	return 12 * 2 * float64(w)
}

// triadRange sets a[i] = b[i] + s·c[i] for every i: in 4-wide vector
// instructions where the solve kernels have them (sparsechol.VectorWidth
// at least 4), the last values and other processors' in Go.
func triadRange(a, b, c []float64, s float64) {
	b, c = b[:len(a)], c[:len(a)]
	k := 0
	if sparsechol.VectorWidth() >= 4 {
		if k = len(a) &^ 15; k > 0 {
			triadY(&a[0], &b[0], &c[0], k, s)
		}
	}
	for i := k; i < len(a); i++ {
		a[i] = b[i] + s*c[i]
	}
}
