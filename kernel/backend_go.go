package kernel

// The pure-Go sparse Cholesky is always compiled in; it is the default when
// cgo is off. goBackend, chosen by the build-tagged files
// backend_blas_cgo.go and backend_blas_nocgo.go, decides which BLAS its
// dense supernode updates run on.
func init() { registerBackend(goBackend) }
