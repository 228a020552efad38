//go:build cgo

package kernel

import (
	"github.com/gmlg/gmlg/kernel/sparsechol"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// goBLAS is the dense BLAS of the "go" backend. In cgo builds it is
// OpenBLAS through gonum's netlib bindings (package cholmod's link flags
// bring in libopenblas; this package's cgo files import cholmod). It is
// passed to the backend explicitly rather than installed with blas64.Use,
// so no other gonum BLAS call of the process changes.
var goBLAS blas.Float64 = netlib.Implementation{}

// In cgo builds, where "go" runs on OpenBLAS, the pure-Go factorisation on
// gonum's pure-Go BLAS is registered too, as "go-purego", so the two can be
// compared side by side. Without cgo "go" itself is that configuration.
func init() { registerBackend(sparsechol.Backend{Label: "go-purego"}) }
