package sparsechol

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gmlg/gmlg/kernel/factor"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Backend is the engine's factor.Factorizer. Its zero value is ready to
// use: the pure-Go sparse Cholesky, named "go", whose dense kernels run on
// gonum's pure-Go BLAS.
type Backend struct {
	// BLAS runs the dense products of the supernode updates (Dsyrk, Dgemm
	// and Dtrsm on row-major blocks). Nil means gonum's pure-Go
	// implementation (gonum.org/v1/gonum/blas/gonum). The choice is per
	// Backend, so programs can hold variants with different BLAS side by
	// side without a process-wide setting.
	BLAS blas.Float64
	// Label is the name the backend reports (Name, Info, errors); empty
	// means the Supplier's name, or "go" without one. Variants registered
	// side by side need distinct labels.
	Label string
	// Supplier, when non-nil, computes L's values in place of the pure-Go
	// factorisation (BLAS is then not used), and orders the pattern unless
	// factor.Options.Grid is set: grids take the engine's own ordering,
	// whose geometric nested dissection fills less than CHOLMOD's (Order).
	// The analysis, the layout of L, the solves and their adjoint stay the
	// engine's. The cgo build's "cholmod" backend is this engine with
	// CHOLMOD as its supplier.
	Supplier factor.Supplier
}

var _ factor.Factorizer = Backend{}

// Name returns Label, or when it is empty the Supplier's name, or "go".
func (b Backend) Name() string {
	switch {
	case b.Label != "":
		return b.Label
	case b.Supplier != nil:
		return b.Supplier.Name()
	}
	return "go"
}

// impl returns the BLAS implementation the factorisation calls.
func (b Backend) impl() blas.Float64 {
	if b.BLAS == nil {
		return gonum.Implementation{}
	}
	return b.BLAS
}

// Analyze orders p (see Order; the Supplier's order for a general graph),
// computes the elimination tree, the column counts and the supernodal
// structure of L and cuts the tree into groups for opt.Threads workers
// (default GOMAXPROCS), whose count changes no result. It copies p.
func (b Backend) Analyze(p *factor.Pattern, opt *factor.Options) (factor.Factor, error) {
	order := Order
	if b.Supplier != nil && (opt == nil || opt.Grid == nil) {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("%s: analyze: %w", b.Name(), err)
		}
		order = b.Supplier.Order
	}
	perm, name, err := order(p, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: analyze: %w", b.Name(), err)
	}
	nw := runtime.GOMAXPROCS(0)
	if opt != nil && opt.Threads > 0 {
		nw = opt.Threads
	}
	sym := analyze(p, perm)
	c := &chol{
		sym:      sym,
		name:     b.Name(),
		ordering: name,
		nnz:      p.NNZ(),
		rowIdx:   append([]int(nil), p.RowIdx...),
		colPtr:   append([]int(nil), p.ColPtr...),
		pinv:     inverse(sym.perm),
	}
	c.threads = max(nw, 1)
	c.helpers.Store(int32(c.threads - 1))
	c.fits = (sym.lsize+sym.n*stripCols)*8 <= coreCache
	c.teamSizes()
	if b.Supplier == nil {
		c.num = newNumeric(sym, b.impl(), c.threads)
		return c, nil
	}
	c.num = &numeric{lx: make([]float64, sym.lsize), dinv: make([]float64, sym.n)}
	// The supplier reads the copies, which live as long as the factor.
	pc := &factor.Pattern{N: p.N, ColPtr: c.colPtr, RowIdx: c.rowIdx}
	lay := &factor.Layout{Perm: sym.perm, First: sym.first, RowPtr: sym.rowPtr, Rows: sym.rows, Off: sym.off}
	if c.supplied, err = b.Supplier.Prepare(pc, lay); err != nil {
		return nil, fmt.Errorf("%s: analyze: %w", b.Name(), err)
	}
	return c, nil
}

// chol is the engine's factor.Factor.
type chol struct {
	sym      *symbolic
	num      *numeric
	name     string // the backend's Name
	ordering string
	nnz      int
	rowIdx   []int
	colPtr   []int
	pinv     []int          // pinv[v] = pivot of vertex v
	supplied factor.Numeric // the Supplier's factorisation; nil for the engine's own
	threads  int            // the workers of a solve
	team     []int          // team[p]: the workers a team of p takes (teamSize)
	tree     []float64      // tree[p]: the tree schedule's modelled time on p workers (treeTime)
	fits     bool           // L and a strip's rows fit in a core's caches (split)
	helpers  atomic.Int32   // helpers not taken by a running solve: threads−1 when idle
	valid    bool           // a successful Factorize has happened
	closed   bool
	mu       sync.Mutex   // guards free
	free     []*solveWork // idle Solve workspaces
}

func (c *chol) check() {
	if c.closed {
		panic("sparsechol: " + factor.ErrClosed.Error())
	}
}

// Factorize computes L for values aligned with the pattern's RowIdx. It
// returns an error wrapping a *factor.NotPosDefError (with the column in the
// original numbering) when the matrix is not positive definite, and an error
// naming the entry when a value is not finite.
func (c *chol) Factorize(values []float64) error {
	c.check()
	if len(values) != c.nnz {
		panic(fmt.Sprintf("sparsechol: Factorize: len(values)=%d, want %d", len(values), c.nnz))
	}
	c.valid = false
	for k, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			j := 0
			for c.colPtr[j+1] <= k {
				j++
			}
			return fmt.Errorf("sparsechol: factorize: value %d (row %d, column %d) is %v", k, c.rowIdx[k], j, v)
		}
	}
	if c.supplied != nil {
		if err := c.supplied.Fill(c.num.lx, values); err != nil {
			return fmt.Errorf("%s: factorize: %w", c.name, err)
		}
		if col := c.num.invertDiagonal(c.sym); col >= 0 {
			return fmt.Errorf("%s: factorize: the supplied L has a diagonal entry that is not positive and finite in column %d", c.name, c.sym.perm[col])
		}
		c.valid = true
		return nil
	}
	if col := c.num.factorize(c.sym, values, &c.helpers); col >= 0 {
		return fmt.Errorf("sparsechol: factorize: %w", &factor.NotPosDefError{Backend: c.name, Column: c.sym.perm[col]})
	}
	c.valid = true
	return nil
}

// Solve solves A X = B for the column-major N×cols block b, writing X to dst
// (which may alias b). It returns an error when the solution contains NaN or
// Inf (which, after a successful Factorize, means b did). It is safe for
// concurrent use and does not allocate in steady state.
func (c *chol) Solve(dst, b []float64, cols int) error {
	c.check()
	n := c.sym.n
	if cols < 0 || len(b) != n*cols || len(dst) != n*cols {
		panic(fmt.Sprintf("sparsechol: Solve: len(dst)=%d, len(b)=%d, want N*cols=%d*%d", len(dst), len(b), n, cols))
	}
	return c.SolveSteps(dst, b, cols, 1, false, false)
}

var _ factor.StepSolver = (*chol)(nil)

// SolveSteps applies A⁻¹ steps times to the column-major N×cols block b
// (factor.StepSolver): with keep, out (steps·N·cols) receives every
// iterate, x_l in block l−1, or in block steps−l when reverse; without, out
// (N·cols, which may be b) receives the last. The block stays in the
// solve's vertex-major layout between the steps. It returns an error when a
// value written is not finite, and is safe for concurrent use, as Solve.
func (c *chol) SolveSteps(out, b []float64, cols, steps int, keep, reverse bool) error {
	c.check()
	n := c.sym.n
	want := n * cols
	if keep {
		want *= steps
	}
	if cols < 0 || steps < 1 || len(b) != n*cols || len(out) != want {
		panic(fmt.Sprintf("sparsechol: SolveSteps: len(out)=%d, len(b)=%d, cols=%d, steps=%d, N=%d", len(out), len(b), cols, steps, n))
	}
	if !c.valid {
		return fmt.Errorf("sparsechol: solve: no valid factorisation (Factorize failed or was not called)")
	}
	if cols == 0 {
		return nil
	}
	finite := true
	if sw := stripWidth(cols); sw > 0 && !keep {
		// Strips of whole columns: contiguous in the column-major blocks.
		for k0 := 0; k0 < cols; k0 += sw {
			k1 := min(k0+sw, cols)
			finite = c.solveSteps(out[k0*n:k1*n], b[k0*n:k1*n], k1-k0, steps, false, reverse) && finite
		}
	} else {
		finite = c.solveSteps(out, b, cols, steps, keep, reverse)
	}
	if !finite {
		return errors.New("sparsechol: solve: solution is not finite (check the right-hand side b for NaN/Inf)")
	}
	return nil
}

// Workers is the number of workers a solve runs on (factor.StepSolver):
// Threads.
func (c *chol) Workers() int {
	c.check()
	return c.threads
}

// Tree returns the factor's supernodal tree (factor.TreeReporter).
func (c *chol) Tree() (factor.Tree, error) {
	c.check()
	sym := c.sym
	t := factor.Tree{Parent: make([]int, sym.ns), Cols: make([]int, sym.ns), Rows: make([]int, sym.ns)}
	for s := range sym.ns {
		t.Parent[s] = sym.parent[s]
		t.Cols[s] = sym.first[s+1] - sym.first[s]
		t.Rows[s] = sym.rowPtr[s+1] - sym.rowPtr[s]
	}
	return t, t.Validate()
}

// Info reports the backend's name, the ordering, nnz(L) (exact, without the
// explicit zeros of relaxed supernodes), whether supernodes wider than one
// column exist, and the solve kernels (SolveKernels).
func (c *chol) Info() factor.Info {
	c.check()
	return factor.Info{Backend: c.name, Ordering: c.ordering, NNZL: c.sym.nnzL, Supernodal: c.sym.maxW > 1, Kernels: SolveKernels()}
}

// Close releases the factor's memory. It is idempotent.
func (c *chol) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.num = nil
	c.valid = false
	c.free = nil
	if c.supplied != nil {
		err := c.supplied.Close()
		c.supplied = nil
		return err
	}
	return nil
}
