//go:build !cgo

package kernel

import (
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// goBackend is the "go" backend. Without cgo it runs on gonum's pure-Go
// BLAS (the zero sparsechol.Backend).
var goBackend factor.Factorizer = sparsechol.Backend{}
