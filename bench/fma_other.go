//go:build !amd64 || noasm

package bench

// fmaRounds runs n rounds of the scalar chains: this build has no vector
// kernels (sparsechol.VectorWidth is 1).
func fmaRounds(w, n int) float64 { return scalarRounds(n) }

// triadRange sets a[i] = b[i] + s·c[i] for every i, in Go.
func triadRange(a, b, c []float64, s float64) {
	b, c = b[:len(a)], c[:len(a)]
	for i := range a {
		a[i] = b[i] + s*c[i]
	}
}
