//go:build !noasm

package bench

// fmaZ and fmaY are in fma_amd64.s.
func fmaZ(n int)
func fmaY(n int)

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
