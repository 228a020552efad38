//go:build cgo

package kernel

import (
	"gonum.org/v1/netlib/blas/netlib"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// In cgo builds "cholmod" is the default backend; "go" runs its supernode
// updates on OpenBLAS (linked by package cholmod's flags) and "go-purego"
// on gonum's BLAS. Without cgo package cholmod is a stub whose Supplier
// returns cholmod.ErrNoCgo, so this build tag, not a run-time test, keeps
// it out of the backends offered there (backend_nocgo.go).
func init() {
	registerBackend(oneBLASThread{sparsechol.Backend{Supplier: cholmod.Supplier{}}})
	registerBackend(oneBLASThread{sparsechol.Backend{BLAS: netlib.Implementation{}}})
	registerBackend(sparsechol.Backend{Label: "go-purego"})
}

// oneBLASThread is a backend whose factorisation calls OpenBLAS. Its
// Analyze sets OpenBLAS to one thread, process-wide, which is the package's
// whole BLAS thread policy (doc.go, "Threads"): the factor is then the same
// bits for any thread count, and OpenBLAS threads inside the engine's
// workers would oversubscribe the cores.
type oneBLASThread struct{ sparsechol.Backend }

func (b oneBLASThread) Analyze(p *factor.Pattern, opt *factor.Options) (factor.Factor, error) {
	cholmod.SetBLASThreads(1)
	return b.Backend.Analyze(p, opt)
}

// blasCore and blasConfig are OpenBLAS's name for its kernels and its
// build options (BLAS).
func blasCore() string   { return cholmod.BLASCore() }
func blasConfig() string { return cholmod.BLASConfig() }

// onBLAS reports whether f factorises on OpenBLAS (OnBLAS).
func onBLAS(f factor.Factorizer) bool {
	_, ok := f.(oneBLASThread)
	return ok
}
