//go:build !cgo

package kernel

import (
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// Without cgo the "go" backend, the pure-Go sparse Cholesky on gonum's
// pure-Go BLAS (the zero sparsechol.Backend), is the default, and no BLAS
// has threads of its own.
func init() { registerBackend(sparsechol.Backend{}) }

// blasCore and blasConfig are "": without cgo no OpenBLAS is linked (BLAS).
func blasCore() string   { return "" }
func blasConfig() string { return "" }

// onBLAS is false: every backend of this build runs on gonum's BLAS (OnBLAS).
func onBLAS(factor.Factorizer) bool { return false }
