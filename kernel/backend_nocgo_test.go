//go:build !cgo

package kernel

import (
	"testing"

	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// TestGoBackendNoCgo checks that without cgo "go" is the default and runs
// on gonum's pure-Go BLAS, with no separate pure-Go variant registered.
func TestGoBackendNoCgo(t *testing.T) {
	if got := DefaultBackend().Name(); got != "go" {
		t.Errorf("DefaultBackend() = %q, want go", got)
	}
	f, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	if sb, ok := f.(sparsechol.Backend); !ok || sb.BLAS != nil {
		t.Errorf("Backend(\"go\") = %#v, want a sparsechol.Backend with nil BLAS", f)
	}
	if _, err := Backend("go-purego"); err == nil {
		t.Error(`Backend("go-purego") succeeded without cgo, want an error`)
	}
	if OnBLAS("go") || BLAS() != (BLASInfo{}) {
		t.Errorf("OnBLAS(go) = %v, BLAS() = %+v without cgo, want false and nothing", OnBLAS("go"), BLAS())
	}
}
