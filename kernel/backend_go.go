package kernel

import "github.com/gmlg/gmlg/kernel/sparsechol"

// The pure-Go sparse Cholesky is always compiled in; it is the default when
// cgo is off.
func init() { registerBackend(sparsechol.Backend{}) }
