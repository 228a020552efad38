//go:build !amd64 || noasm

package bench

// fmaRounds runs n rounds of the scalar chains: this build has no vector
// kernels (sparsechol.VectorWidth is 1).
func fmaRounds(w, n int) float64 { return scalarRounds(n) }
