package cholmod

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gmlg/gmlg/kernel/factor"
)

// Errors for CHOLMOD's status codes. A *StatusError wraps exactly one of
// them, so errors.Is(err, ErrOutOfMemory) and friends work on every error the
// package returns.
var (
	// ErrNotInstalled is CHOLMOD_NOT_INSTALLED: the requested method (for
	// example METIS or the Supernodal module) is not in the library.
	ErrNotInstalled = errors.New("cholmod: method not installed")
	// ErrOutOfMemory is CHOLMOD_OUT_OF_MEMORY.
	ErrOutOfMemory = errors.New("cholmod: out of memory")
	// ErrTooLarge is CHOLMOD_TOO_LARGE: an integer overflow in a size.
	ErrTooLarge = errors.New("cholmod: problem too large")
	// ErrInvalid is CHOLMOD_INVALID: CHOLMOD rejected its input.
	ErrInvalid = errors.New("cholmod: invalid input")
	// ErrGPUProblem is CHOLMOD_GPU_PROBLEM; the package never enables the GPU.
	ErrGPUProblem = errors.New("cholmod: GPU problem")
	// ErrDSmall is the warning CHOLMOD_DSMALL: a diagonal entry of L is tiny,
	// the matrix close to singular. The factorisation is complete and usable.
	ErrDSmall = errors.New("cholmod: tiny diagonal entry in the factor (warning)")
	// ErrUnknownStatus is any status code this package does not know.
	ErrUnknownStatus = errors.New("cholmod: unknown status")

	// ErrNotPosDef is factor.ErrNotPosDef, re-exported: every
	// not-positive-definite error of the package is a
	// *factor.NotPosDefError with Backend "cholmod" and matches it.
	ErrNotPosDef = factor.ErrNotPosDef

	// ErrNonFinite is wrapped by the error for a NaN or infinite matrix
	// value; the message names the offending index of values.
	ErrNonFinite = errors.New("non-finite matrix value")

	// ErrNotFactorized is returned by Solve when the factor holds no valid
	// numeric factorisation (Factorize was never called or last failed).
	ErrNotFactorized = errors.New("cholmod: no valid numeric factorisation")
	// ErrPatternMismatch is returned by Factorize for a matrix whose
	// sparsity pattern differs from the analysed one.
	ErrPatternMismatch = errors.New("cholmod: pattern differs from the analysed one")

	// ErrNoCgo is returned by NewCommon, Supplier.Order and every other
	// method that returns an error in a build without cgo, where CHOLMOD
	// is not linked (see stub.go). A cgo build never returns it.
	ErrNoCgo = errors.New("cholmod: built without cgo (CGO_ENABLED=0); the pure-Go backend is used instead")
)

// StatusError is a failure reported by CHOLMOD through Common->status.
type StatusError struct {
	Op      string // the operation, e.g. "analyze", "solve"
	Status  int    // CHOLMOD's status code
	Message string // CHOLMOD's own message, when it gave one
	err     error
}

func (e *StatusError) Error() string {
	what := strings.TrimPrefix(e.err.Error(), "cholmod: ")
	if e.Message == "" {
		return fmt.Sprintf("cholmod: %s: %s (status %d)", e.Op, what, e.Status)
	}
	return fmt.Sprintf("cholmod: %s: %s: %s", e.Op, what, e.Message)
}

// Unwrap returns the exported error value for the status (ErrInvalid, ...).
func (e *StatusError) Unwrap() error { return e.err }
