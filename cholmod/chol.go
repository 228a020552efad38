//go:build cgo

package cholmod

import (
	"fmt"
	"sync"

	"github.com/gmlg/gmlg/kernel/factor"
)

// Factor is the Cholesky factorisation L Lᵀ = P A Pᵀ of one symmetric
// positive definite matrix with a fixed pattern. Analyze computes the
// ordering and symbolic structure once; Factorize computes (and recomputes)
// the numbers for the current values of a matrix with that pattern.
// Factorize and Free must not run concurrently with any other method.
type Factor struct {
	cc     *Common
	lf     *cFactor
	n      int
	hash   uint64 // pattern fingerprint of the analysed matrix
	nnzA   int
	info   Info
	valid  bool // holds a usable numeric factorisation
	mu     sync.Mutex
	idle   []*cCtx // solve workspaces not in use
	allWS  []*cCtx
	closed bool
}

// Analyze chooses the ordering and computes the symbolic factorisation of a
// (cholmod_l_analyze). Only a's pattern is used. opt may be nil.
func (c *Common) Analyze(a *Sparse, opt *AnalyzeOptions) (*Factor, error) {
	c.mustBeOpen("Analyze")
	a.mustBeOpen("Analyze")
	if a.cc != c {
		panic("cholmod: Analyze: the matrix belongs to another Common")
	}
	var o AnalyzeOptions
	if opt != nil {
		o = *opt
	}
	ord := o.Ordering
	if ord == OrderDefault {
		ord = DefaultOrdering
	}
	m, ok := methods[ord]
	if !ok {
		return nil, fmt.Errorf("cholmod: unknown ordering %d", int(o.Ordering))
	}
	var perm []int64
	if o.Perm != nil {
		if o.Ordering != OrderDefault {
			return nil, fmt.Errorf("cholmod: analyze: a given Perm and the ordering %v", o.Ordering)
		}
		if err := checkPerm(o.Perm, a.n); err != nil {
			return nil, fmt.Errorf("cholmod: analyze: %w", err)
		}
		m, perm = givenMethod, make([]int64, a.n)
		for i, v := range o.Perm {
			perm[i] = int64(v)
		}
	}
	mode, ok := modes[o.Mode]
	if !ok {
		return nil, fmt.Errorf("cholmod: unknown mode %d", int(o.Mode))
	}
	L, err := analyze(c.ctx, a.a, m, mode, perm, fmt.Sprintf("analyze (%v, %v)", o.Ordering, o.Mode))
	if err != nil {
		return nil, err
	}
	used, super, nnzL, fl, sel := factorStats(c.ctx, L)
	f := &Factor{
		cc: c, lf: L, n: a.n, hash: a.hash, nnzA: len(a.i),
		info: Info{
			Requested: o.Ordering, Used: used, Selected: sel,
			NNZL: nnzL, Flops: fl, Supernodal: super,
		},
	}
	c.objs[f] = struct{}{}
	return f, nil
}

// Factorize computes the numeric factorisation of a, which must have the
// analysed pattern (it may be the analysed matrix itself after SetValues, or
// another Sparse with an identical pattern). It reuses the symbolic analysis
// and replaces any previous factorisation.
//
// A matrix that is not positive definite gives a *factor.NotPosDefError
// (matching ErrNotPosDef) whose Column is in the original numbering; the
// factor then holds no usable factorisation until the next successful call.
func (f *Factor) Factorize(a *Sparse) error {
	f.mustBeOpen("Factorize")
	a.mustBeOpen("Factorize")
	if a.cc != f.cc {
		panic("cholmod: Factorize: the matrix belongs to another Common")
	}
	if a.n != f.n || len(a.i) != f.nnzA || a.hash != f.hash {
		return fmt.Errorf("cholmod: factorize: %w (n=%d nnz=%d, analysed n=%d nnz=%d)", ErrPatternMismatch, a.n, len(a.i), f.n, f.nnzA)
	}
	err := factorize(f.cc.ctx, a.a, f.lf)
	f.valid = err == nil || isWarning(err)
	return err
}

// isWarning reports a status that leaves a usable factorisation.
func isWarning(err error) bool {
	se, ok := err.(*StatusError)
	return ok && se.err == ErrDSmall
}

// Solve solves A X = B for the N×cols block b, stored column-major (column k
// is b[k*N:(k+1)*N]), and writes X into dst, with one cholmod_solve2 call.
// dst and b may be the same slice. It panics if len(b) or len(dst) is not
// N*cols, and returns ErrNotFactorized when there is no valid factorisation.
//
// Solve is safe to call from several goroutines at once: L is only read and
// each concurrent call borrows its own set of CHOLMOD workspaces. Once each
// workspace in use has seen a given cols, Solve allocates nothing.
func (f *Factor) Solve(dst, b []float64, cols int) error {
	f.mustBeOpen("Solve")
	if cols < 0 || len(b) != f.n*cols || len(dst) != f.n*cols {
		panic(fmt.Sprintf("cholmod: Solve: len(dst)=%d, len(b)=%d, want N*cols=%d*%d", len(dst), len(b), f.n, cols))
	}
	if !f.valid {
		return fmt.Errorf("cholmod: solve: %w", ErrNotFactorized)
	}
	if cols == 0 {
		return nil
	}
	ws, err := f.workspace()
	if err != nil {
		return err
	}
	err = solve(ws, f.lf, dst, b, f.n, cols)
	f.mu.Lock()
	f.idle = append(f.idle, ws)
	f.mu.Unlock()
	return err
}

// checkPerm reports whether perm is a permutation of 0..n−1.
func checkPerm(perm []int, n int) error {
	if len(perm) != n {
		return fmt.Errorf("permutation of %d entries for order %d", len(perm), n)
	}
	seen := make([]bool, n)
	for k, v := range perm {
		if v < 0 || v >= n || seen[v] {
			return fmt.Errorf("perm[%d] = %d: not a permutation of 0..%d", k, v, n-1)
		}
		seen[v] = true
	}
	return nil
}

// workspace pops an idle solve workspace or starts a new one.
func (f *Factor) workspace() (*cCtx, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if k := len(f.idle); k > 0 {
		ws := f.idle[k-1]
		f.idle = f.idle[:k-1]
		return ws, nil
	}
	ws := newCtx()
	if ws == nil {
		return nil, fmt.Errorf("cholmod: solve workspace: %w", ErrOutOfMemory)
	}
	f.allWS = append(f.allWS, ws)
	if cap(f.idle) < len(f.allWS) {
		// Room for every workspace, so Solve never allocates to return one.
		f.idle = append(make([]*cCtx, 0, 2*len(f.allWS)), f.idle...)
	}
	return ws, nil
}

// N is the order of the factorised matrix.
func (f *Factor) N() int { f.mustBeOpen("N"); return f.n }

// Info reports the ordering used, nnz(L) and the factorisation kind.
func (f *Factor) Info() Info { f.mustBeOpen("Info"); return f.info }

// Valid reports whether the factor holds a usable numeric factorisation.
func (f *Factor) Valid() bool { f.mustBeOpen("Valid"); return f.valid }

// Free releases the factor and its solve workspaces. It is idempotent; other
// methods panic afterwards.
func (f *Factor) Free() {
	if f == nil || f.closed {
		return
	}
	delete(f.cc.objs, f)
	f.release()
}

func (f *Factor) release() {
	for _, ws := range f.allWS {
		freeCtx(ws)
	}
	f.allWS, f.idle = nil, nil
	freeFactor(f.cc.ctx, f.lf)
	f.lf = nil
	f.valid = false
	f.closed = true
}

func (f *Factor) mustBeOpen(op string) {
	if f == nil || f.closed {
		panic("cholmod: " + op + " on a freed Factor")
	}
}

// Tree returns the factor's supernodal tree (factor.TreeReporter): CHOLMOD's
// supernodes for a supernodal factor, available after Analyze; for a
// simplicial one the fundamental supernodes of its columns, available once
// it is factorised.
func (f *Factor) Tree() (factor.Tree, error) {
	f.mustBeOpen("Tree")
	return factorTree(f.lf, f.valid)
}

// ExportL returns a copy of the numeric factor as a simplicial LL'
// CSC matrix plus permutation, so that another solver can run on CHOLMOD's
// factorisation. The factor itself is unchanged.
func (f *Factor) ExportL() (*LFactor, error) {
	f.mustBeOpen("ExportL")
	if !f.valid {
		return nil, fmt.Errorf("cholmod: export: %w", ErrNotFactorized)
	}
	cp, ri, v, perm, err := exportSimplicial(f.cc.ctx, f.lf)
	if err != nil {
		return nil, err
	}
	return &LFactor{N: f.n, ColPtr: cp, RowIdx: ri, Values: v, Perm: perm}, nil
}
