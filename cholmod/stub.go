//go:build !cgo

package cholmod

// The package in a build without cgo, where CHOLMOD cannot be linked: the
// same exported API as the cgo files, so that importers still compile, but
// nothing can be factorised. NewCommon, Supplier.Order and every other
// method with an error result return ErrNoCgo. No Common, Sparse or Factor
// can be created, so the methods without an error result panic with
// ErrNoCgo, except Free and Close, which do nothing. TestStubAPI keeps this
// file's API equal to the cgo build's.

import "github.com/gmlg/gmlg/kernel/factor"

var _ factor.Supplier = Supplier{}

// Version is empty: no CHOLMOD library is linked.
var Version string

// Common stands for a cholmod_common; without cgo none can be created.
type Common struct{}

func NewCommon() (*Common, error) { return nil, ErrNoCgo }
func (c *Common) Close() error    { return nil }

func (c *Common) NewSparse(n int, colPtr, rowIdx []int, values []float64) (*Sparse, error) {
	return nil, ErrNoCgo
}

func (c *Common) Analyze(a *Sparse, opt *AnalyzeOptions) (*Factor, error) {
	return nil, ErrNoCgo
}

// Sparse stands for a CHOLMOD matrix; without cgo none can be created.
type Sparse struct{}

func (s *Sparse) N() int                           { panic(ErrNoCgo) }
func (s *Sparse) NNZ() int                         { panic(ErrNoCgo) }
func (s *Sparse) SetValues(values []float64) error { return ErrNoCgo }
func (s *Sparse) Values(dst []float64) []float64   { panic(ErrNoCgo) }
func (s *Sparse) Free()                            {}

// Factor stands for a CHOLMOD factor; without cgo none can be created.
type Factor struct{}

func (f *Factor) Factorize(a *Sparse) error              { return ErrNoCgo }
func (f *Factor) Solve(dst, b []float64, cols int) error { return ErrNoCgo }
func (f *Factor) ExportL() (*LFactor, error)             { return nil, ErrNoCgo }
func (f *Factor) Tree() (factor.Tree, error)             { return factor.Tree{}, ErrNoCgo }
func (f *Factor) N() int                                 { panic(ErrNoCgo) }
func (f *Factor) Info() Info                             { panic(ErrNoCgo) }
func (f *Factor) Valid() bool                            { panic(ErrNoCgo) }
func (f *Factor) Free()                                  {}

// Order returns ErrNoCgo: package kernel's "go" backend is the one to use
// in this build.
func (s Supplier) Order(p *factor.Pattern, opt *factor.Options) (perm []int, ordering string, err error) {
	return nil, "", ErrNoCgo
}

func (s Supplier) Prepare(p *factor.Pattern, lay *factor.Layout) (factor.Numeric, error) {
	return nil, ErrNoCgo
}

func blasSetThreads(n int) bool { return false }
func blasThreads() int          { return 0 }
func blasCore() string          { return "" }
func blasConfig() string        { return "" }
