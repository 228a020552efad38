//go:build cgo

package kernel

import "github.com/gmlg/gmlg/cholmod"

// In cgo builds CHOLMOD is compiled in and is the default backend, with
// gmlg's block solve kernel. AutoSolve picks a simplicial factor where its
// solves are as fast (2-D grids) and a supernodal one beyond (measured in
// cholmod's benchmarks). Without cgo package cholmod still builds, as a
// stub whose Analyze returns cholmod.ErrNoCgo, so this build tag, not a
// run-time test, keeps it out of the backends offered there.
func init() { registerBackend(cholmod.Backend{Mode: cholmod.AutoSolve}) }
