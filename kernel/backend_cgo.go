//go:build cgo

package kernel

import (
	"gonum.org/v1/netlib/blas/netlib"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// In cgo builds CHOLMOD is compiled in and is the default backend: it
// computes the numeric factorisation (and orders general graphs, NESDIS;
// grids take the engine's geometric nested dissection), and package
// sparsechol's engine solves with its factor, as it does with the pure-Go
// one. The "go" backend's dense supernode updates run on OpenBLAS through
// gonum's netlib bindings (package cholmod's link flags bring in
// libopenblas), passed to the backend explicitly rather than installed with
// blas64.Use, so no other gonum BLAS call of the process changes. The same
// factorisation on gonum's pure-Go BLAS is registered too, as "go-purego",
// so the two can be compared side by side.
//
// Without cgo package cholmod still builds, as a stub whose Supplier
// returns cholmod.ErrNoCgo, so this build tag, not a run-time test, keeps
// it out of the backends offered there (backend_nocgo.go).
func init() {
	registerBackend(oneBLASThread{sparsechol.Backend{Supplier: cholmod.Supplier{}}})
	registerBackend(oneBLASThread{sparsechol.Backend{BLAS: netlib.Implementation{}}})
	registerBackend(sparsechol.Backend{Label: "go-purego"})
}

// oneBLASThread is a backend whose factorisation calls OpenBLAS: CHOLMOD's
// supernodal kernels, or the "go" backend's supernode updates. Its Analyze
// sets OpenBLAS to one thread, process-wide (cholmod.SetBLASThreads), and
// this is the package's whole BLAS thread policy (doc.go, "Threads"):
// threaded OpenBLAS products round differently for each thread count, so
// one thread keeps the factor the same bits for any count, and the
// engine's own workers keep the cores (OpenBLAS threads inside each
// worker's calls would oversubscribe them).
type oneBLASThread struct{ sparsechol.Backend }

// Analyze sets OpenBLAS's thread count to 1 and analyses p with the
// embedded backend.
func (b oneBLASThread) Analyze(p *factor.Pattern, opt *factor.Options) (factor.Factor, error) {
	cholmod.SetBLASThreads(1)
	return b.Backend.Analyze(p, opt)
}
