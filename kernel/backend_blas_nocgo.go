//go:build !cgo

package kernel

import "gonum.org/v1/gonum/blas"

// goBLAS is the dense BLAS of the "go" backend. Without cgo it is nil,
// which sparsechol.Backend takes as gonum's pure-Go BLAS.
var goBLAS blas.Float64
