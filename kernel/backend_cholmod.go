//go:build cgo

package kernel

import "github.com/gmlg/gmlg/cholmod"

// In cgo builds CHOLMOD is compiled in and is the default backend.
func init() { registerBackend(cholmod.Backend{}) }
