//go:build !amd64 || noasm

package bench

// fmaRounds runs n rounds of the scalar chains: this build has no vector
// kernels (sparsechol.VectorWidth is 1).
func fmaRounds(w, n int) float64 { return scalarRounds(n) }

// triadVec sets none of a: this build has no vector kernels.
func triadVec(a, b, c []float64, s float64) int { return 0 }
