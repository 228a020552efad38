//go:build cgo

package kernel

import "github.com/gmlg/gmlg/cholmod"

// In cgo builds CHOLMOD is compiled in and is the default backend, with
// gmlg's block solve kernel. AutoSolve picks a simplicial factor where its
// solves are as fast (2-D grids) and a supernodal one beyond (measured in
// cholmod's benchmarks).
func init() { registerBackend(cholmod.Backend{Mode: cholmod.AutoSolve}) }
