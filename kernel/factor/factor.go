package factor

import (
	"errors"
	"fmt"
)

// Pattern is the sparsity structure of a symmetric N×N matrix, stored as its
// lower triangle (diagonal included) in compressed sparse column form.
//
// Column j holds the row indices RowIdx[ColPtr[j]:ColPtr[j+1]]. Within a
// column the row indices are strictly increasing and the first one is the
// diagonal j itself. Values passed to Factor.Factorize are aligned with
// RowIdx.
type Pattern struct {
	N      int
	ColPtr []int
	RowIdx []int
}

// NNZ returns the number of stored entries (lower triangle with diagonal).
func (p *Pattern) NNZ() int { return len(p.RowIdx) }

// Validate checks the structural invariants documented on Pattern.
func (p *Pattern) Validate() error {
	if p == nil {
		return errors.New("factor: nil pattern")
	}
	if p.N < 1 {
		return fmt.Errorf("factor: pattern order %d < 1", p.N)
	}
	if len(p.ColPtr) != p.N+1 {
		return fmt.Errorf("factor: len(ColPtr)=%d, want N+1=%d", len(p.ColPtr), p.N+1)
	}
	if p.ColPtr[0] != 0 || p.ColPtr[p.N] != len(p.RowIdx) {
		return fmt.Errorf("factor: ColPtr[0]=%d, ColPtr[N]=%d, len(RowIdx)=%d", p.ColPtr[0], p.ColPtr[p.N], len(p.RowIdx))
	}
	for j := 0; j < p.N; j++ {
		lo, hi := p.ColPtr[j], p.ColPtr[j+1]
		if hi <= lo {
			return fmt.Errorf("factor: column %d is empty (the diagonal must be stored)", j)
		}
		if p.RowIdx[lo] != j {
			return fmt.Errorf("factor: column %d does not start with its diagonal", j)
		}
		for k := lo + 1; k < hi; k++ {
			if p.RowIdx[k] <= p.RowIdx[k-1] || p.RowIdx[k] >= p.N {
				return fmt.Errorf("factor: column %d: row indices not strictly increasing within [j,N)", j)
			}
		}
	}
	return nil
}

// Ordering selects the fill-reducing permutation computed by Analyze.
type Ordering int

const (
	// OrderingDefault lets the backend choose its best ordering for the
	// pattern (nested dissection for grids where available, minimum degree
	// otherwise).
	OrderingDefault Ordering = iota
	// OrderingNatural keeps the given vertex order.
	OrderingNatural
	// OrderingAMD is approximate minimum degree.
	OrderingAMD
	// OrderingNestedDissection is a nested-dissection ordering (METIS or
	// NESDIS in CHOLMOD; geometric on grids in the pure-Go backend).
	OrderingNestedDissection
)

var orderingNames = [...]string{"default", "natural", "amd", "nd"}

func (o Ordering) String() string {
	if o >= 0 && int(o) < len(orderingNames) {
		return orderingNames[o]
	}
	return fmt.Sprintf("Ordering(%d)", int(o))
}

// ParseOrdering is the inverse of Ordering.String.
func ParseOrdering(s string) (Ordering, error) {
	for o := OrderingDefault; o <= OrderingNestedDissection; o++ {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("factor: unknown ordering %q (want default, natural, amd or nd)", s)
}

// Options configures Analyze. A nil *Options means all defaults.
type Options struct {
	// Ordering is the fill-reducing ordering; zero is OrderingDefault.
	Ordering Ordering
	// Grid, when non-nil, says the pattern is a Cartesian grid graph with
	// Grid[p] vertices along axis p, axis 0 being the fastest (stride 1),
	// axis p having stride Grid[0]·…·Grid[p-1]. Backends may use it for a
	// geometric nested dissection. nil means a general graph.
	Grid []int
	// Threads bounds the goroutines a backend may use; zero means the
	// backend default (GOMAXPROCS for package sparsechol's engine, which
	// solves for both "go" and "cholmod"). A backend's results must not
	// depend on it. It does not set a BLAS's own threads (package kernel
	// keeps OpenBLAS on one).
	Threads int
}

// Info describes an analysed factor.
type Info struct {
	Backend    string // e.g. "cholmod", "go", "dense"
	Ordering   string // the ordering actually used, e.g. "metis", "amd", "nd-geometric"
	NNZL       int    // entries of the Cholesky factor L (lower triangle, diagonal included)
	Supernodal bool
	// Kernels names the solve kernels, for a backend whose results depend
	// on them at rounding level (package sparsechol's engine:
	// "avx512-fma", "avx2-fma" or "scalar"); empty otherwise.
	Kernels string
}

// Factorizer analyses a sparsity pattern once and returns a Factor that can be
// numerically factorised many times with different values. The heat kernel
// (package kernel) takes a Factorizer whose factors are StepSolvers.
type Factorizer interface {
	// Name is a short backend name ("cholmod", "go", "dense").
	Name() string
	// Analyze performs the ordering and symbolic analysis of p.
	Analyze(p *Pattern, opt *Options) (Factor, error)
}

// Factor is the Cholesky factorisation of one symmetric positive definite
// matrix with a fixed pattern.
//
// Concurrency: Solve only reads the factorisation and must be safe to call
// from several goroutines at once; backends give each concurrent call its
// own workspace. Factorize and Close must not run concurrently with any other
// method.
type Factor interface {
	// Factorize computes the numeric factorisation for values aligned with
	// the pattern's RowIdx (lower triangle). It may be called repeatedly;
	// each call replaces the previous factorisation. A matrix that is not
	// positive definite gives an error matching ErrNotPosDef.
	Factorize(values []float64) error
	// Solve solves A X = B for a dense N×cols block stored column-major
	// (column k is b[k*N:(k+1)*N]) and writes X into dst. dst and b may be
	// the same slice. It panics if the lengths are not N*cols.
	Solve(dst, b []float64, cols int) error
	// Info reports the backend, ordering and fill.
	Info() Info
	// Close releases the factor's resources. Using the factor after Close
	// panics. Close is idempotent.
	Close() error
}

// StepSolver is a Factor that runs the heat kernel's backward Euler chains
// and their adjoint itself, in its own layout and on its own workers. It
// is the contract of the heat kernel (package kernel), which solves
// through no other: package sparsechol's engine implements it for every
// sparse backend, and package kernel's dense oracle serially. Its methods
// are safe for concurrent use, as Solve.
//
// SolveSteps applies A⁻¹ steps times to the N×cols column-major block b,
// x_0 = b, x_l = A⁻¹ x_{l−1}. Without keep, out (N·cols) receives x_steps;
// with keep, out (steps·N·cols) receives every iterate, x_l in block l−1,
// or in block steps−l when reverse. out must not overlap b, except
// out == b without keep.
//
// AdjointSteps differentiates the chain out = A⁻ˢ·src for the edge weights
// of a graph whose edge e joins from[e] and to[e]. With u_l = A⁻ˡ·src and
// w_k = A⁻ᵏ·g (g, N×cols like src, the gradient of out) it adds
//
//	coef · Σ_{l=1..S} Σ_cols (u_l[from[e]] − u_l[to[e]]) · (w_{S−l+1}[from[e]] − w_{S−l+1}[to[e]])
//
// to gw[e] and writes A⁻ˢ·g into gsrc unless gsrc is nil. With parallel it
// may run the two chains side by side (the result does not depend on it).
//
// Workers is the number of workers each call may run on
// (Options.Threads). Results do not depend on it.
type StepSolver interface {
	Factor
	SolveSteps(out, b []float64, cols, steps int, keep, reverse bool) error
	AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error
	Workers() int
}

// ErrNotPosDef is matched (errors.Is) by every not-positive-definite error.
var ErrNotPosDef = errors.New("matrix not positive definite")

// NotPosDefError reports the column at which the factorisation met a
// non-positive pivot. Column is in the original (unpermuted) numbering when
// the backend can tell, -1 otherwise.
type NotPosDefError struct {
	Backend string
	Column  int
}

func (e *NotPosDefError) Error() string {
	return fmt.Sprintf("%s: matrix not positive definite (non-positive pivot at column %d)", e.Backend, e.Column)
}

// Is makes errors.Is(err, ErrNotPosDef) true.
func (e *NotPosDefError) Is(target error) bool { return target == ErrNotPosDef }

// ErrClosed is returned (or panicked with) when a closed factor is used.
var ErrClosed = errors.New("factor used after Close")
