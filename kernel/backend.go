package kernel

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/gmlg/gmlg/kernel/factor"
)

var (
	backendsMu sync.Mutex
	backends   = map[string]factor.Factorizer{"dense": Dense{}}
	// preference lists backends from most to least preferred for the default.
	preference = []string{"cholmod", "go", "dense"}
)

// registerBackend makes a factorisation backend selectable by name. It is
// called from init functions of build-tag-guarded files.
func registerBackend(f factor.Factorizer) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	backends[f.Name()] = f
}

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
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if f, ok := backends[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("kernel: backend %q not available in this build (available: %s)", name, strings.Join(backendNamesLocked(), ", "))
}

// Backends lists the names of the backends compiled into this binary.
func Backends() []string {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	return backendNamesLocked()
}

func backendNamesLocked() []string {
	var names []string
	for name := range backends {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// DefaultBackend returns CHOLMOD when the binary was built with cgo, the
// pure-Go sparse Cholesky otherwise (and the dense oracle only when neither is
// compiled in).
func DefaultBackend() factor.Factorizer {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	for _, name := range preference {
		if f, ok := backends[name]; ok {
			return f
		}
	}
	return Dense{}
}
