package kernel

import "github.com/gmlg/gmlg/kernel/sparsechol"

// The pure-Go sparse Cholesky is always compiled in; it is the default when
// cgo is off. Its dense supernode updates run on goBLAS, which the
// build-tagged files backend_blas_cgo.go and backend_blas_nocgo.go choose.
func init() { registerBackend(sparsechol.Backend{BLAS: goBLAS}) }
