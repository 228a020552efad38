//go:build cgo

package kernel

import (
	"gonum.org/v1/netlib/blas/netlib"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// goBackend is the "go" backend. In cgo builds its dense supernode updates
// run on OpenBLAS through gonum's netlib bindings (package cholmod's link
// flags bring in libopenblas). The implementation is passed to the backend
// explicitly rather than installed with blas64.Use, so no other gonum BLAS
// call of the process changes.
var goBackend factor.Factorizer = openBLASBackend{sparsechol.Backend{BLAS: netlib.Implementation{}}}

// In cgo builds, where "go" runs on OpenBLAS, the pure-Go factorisation on
// gonum's pure-Go BLAS is registered too, as "go-purego", so the two can be
// compared side by side. Without cgo "go" itself is that configuration.
func init() { registerBackend(sparsechol.Backend{Label: "go-purego"}) }

// openBLASBackend is a sparsechol.Backend whose BLAS is OpenBLAS. Its
// Analyze sets OpenBLAS to one thread, process-wide, as cholmod.Supplier
// does: the factorisation already runs one worker per thread, and OpenBLAS
// starting threads of its own inside every worker's calls oversubscribes
// the cores and slows the factorisation down.
type openBLASBackend struct{ sparsechol.Backend }

// Analyze sets OpenBLAS's thread count to 1 (cholmod.SetBLASThreads) and
// analyses p with the embedded backend.
func (b openBLASBackend) Analyze(p *factor.Pattern, opt *factor.Options) (factor.Factor, error) {
	cholmod.SetBLASThreads(1)
	return b.Backend.Analyze(p, opt)
}
