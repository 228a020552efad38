//go:build !cgo

package cholmod

// This file is the package in a build without cgo, where CHOLMOD cannot be
// linked. It declares the same exported API as the cgo files, so that code
// importing the package still compiles, but nothing can be factorised:
// NewCommon and Supplier.Order return ErrNoCgo, and so does every other
// method with an error result. No Common, Sparse or Factor can be created,
// so the methods without an error result panic with ErrNoCgo, except Free
// and Close, which do nothing. TestStubAPI keeps this file's API equal to the
// cgo build's.

import "github.com/gmlg/gmlg/kernel/factor"

var _ factor.Supplier = Supplier{}

// Version is empty: no CHOLMOD library is linked.
var Version string

// Common stands for a cholmod_common; without cgo none can be created.
type Common struct{}

// NewCommon returns ErrNoCgo.
func NewCommon() (*Common, error) { return nil, ErrNoCgo }

// Close does nothing.
func (c *Common) Close() error { return nil }

// NewSparse returns ErrNoCgo.
func (c *Common) NewSparse(n int, colPtr, rowIdx []int, values []float64) (*Sparse, error) {
	return nil, ErrNoCgo
}

// Analyze returns ErrNoCgo.
func (c *Common) Analyze(a *Sparse, opt *AnalyzeOptions) (*Factor, error) {
	return nil, ErrNoCgo
}

// Sparse stands for a CHOLMOD matrix; without cgo none can be created.
type Sparse struct{}

// N panics with ErrNoCgo.
func (s *Sparse) N() int { panic(ErrNoCgo) }

// NNZ panics with ErrNoCgo.
func (s *Sparse) NNZ() int { panic(ErrNoCgo) }

// SetValues returns ErrNoCgo.
func (s *Sparse) SetValues(values []float64) error { return ErrNoCgo }

// Values panics with ErrNoCgo.
func (s *Sparse) Values(dst []float64) []float64 { panic(ErrNoCgo) }

// Free does nothing.
func (s *Sparse) Free() {}

// Factor stands for a CHOLMOD factor; without cgo none can be created.
type Factor struct{}

// Factorize returns ErrNoCgo.
func (f *Factor) Factorize(a *Sparse) error { return ErrNoCgo }

// Solve returns ErrNoCgo.
func (f *Factor) Solve(dst, b []float64, cols int) error { return ErrNoCgo }

// ExportL returns ErrNoCgo.
func (f *Factor) ExportL() (*LFactor, error) { return nil, ErrNoCgo }

// Tree returns ErrNoCgo.
func (f *Factor) Tree() (factor.Tree, error) { return factor.Tree{}, ErrNoCgo }

// N panics with ErrNoCgo.
func (f *Factor) N() int { panic(ErrNoCgo) }

// Info panics with ErrNoCgo.
func (f *Factor) Info() Info { panic(ErrNoCgo) }

// Valid panics with ErrNoCgo.
func (f *Factor) Valid() bool { panic(ErrNoCgo) }

// Free does nothing.
func (f *Factor) Free() {}

// Order returns ErrNoCgo: the "go" backend of package kernel is the one to
// use in this build.
func (s Supplier) Order(p *factor.Pattern, opt *factor.Options) (perm []int, ordering string, err error) {
	return nil, "", ErrNoCgo
}

// Prepare returns ErrNoCgo.
func (s Supplier) Prepare(p *factor.Pattern, lay *factor.Layout) (factor.Numeric, error) {
	return nil, ErrNoCgo
}

// blasSetThreads reports that OpenBLAS is not linked.
func blasSetThreads(n int) bool { return false }

// blasThreads reports that OpenBLAS is not linked.
func blasThreads() int { return 0 }
