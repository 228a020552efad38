//go:build cgo

package kernel

import (
	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// In cgo builds CHOLMOD is compiled in and is the default backend: it
// computes the numeric factorisation (and orders general graphs, NESDIS;
// grids take the engine's geometric nested dissection), and package
// sparsechol's engine solves with its factor, as it does with the pure-Go
// one. Without cgo package cholmod still builds, as a stub whose
// Supplier returns cholmod.ErrNoCgo, so this build tag, not a run-time
// test, keeps it out of the backends offered there.
func init() { registerBackend(sparsechol.Backend{Supplier: cholmod.Supplier{}}) }
