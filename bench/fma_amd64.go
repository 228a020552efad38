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

// triadVec sets a[i] = b[i] + s·c[i] for the first values of equal-length
// a, b and c in 4-wide vector instructions where the solve kernels have
// them (sparsechol.VectorWidth at least 4), and returns how many it set.
func triadVec(a, b, c []float64, s float64) int {
	k := len(a) &^ 15
	if sparsechol.VectorWidth() < 4 || k == 0 {
		return 0
	}
	triadY(&a[0], &b[0], &c[0], k, s)
	return k
}
