//go:build !cgo

package kernel

import "github.com/gmlg/gmlg/kernel/sparsechol"

// Without cgo the "go" backend, the pure-Go sparse Cholesky on gonum's
// pure-Go BLAS (the zero sparsechol.Backend), is the default, and no BLAS
// has threads of its own.
func init() { registerBackend(sparsechol.Backend{}) }
