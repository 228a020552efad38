package kernel

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gmlg/gmlg/kernel/factor"
)

// backends holds the factorisation backends by name. It is written only by
// registerBackend, from init functions of build-tag-guarded files, so it is
// read-only once the package is initialised.
var backends = map[string]factor.Factorizer{"dense": Dense{}}

// preference lists backends from most to least preferred for the default.
var preference = []string{"cholmod", "go", "dense"}

func registerBackend(f factor.Factorizer) { backends[f.Name()] = f }

// Backend returns the factorisation backend with the given name: "cholmod"
// (SuiteSparse, needs a cgo build), "go" (the pure-Go factorisation, on
// OpenBLAS in cgo builds), "go-purego" (the same on gonum's pure-Go BLAS,
// cgo builds only; without cgo "go" is that) or "dense" (gonum dense
// Cholesky, small graphs only). The empty name or "auto" gives
// DefaultBackend.
func Backend(name string) (factor.Factorizer, error) {
	if name == "" || name == "auto" {
		return DefaultBackend(), nil
	}
	if f, ok := backends[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("kernel: backend %q not available in this build (available: %s)", name, strings.Join(Backends(), ", "))
}

// Backends lists the names of the backends compiled into this binary.
func Backends() []string { return slices.Sorted(maps.Keys(backends)) }

// DefaultBackend returns CHOLMOD when the binary was built with cgo, the
// pure-Go sparse Cholesky otherwise (and the dense oracle only when neither is
// compiled in).
func DefaultBackend() factor.Factorizer {
	for _, name := range preference {
		if f, ok := backends[name]; ok {
			return f
		}
	}
	return Dense{}
}
