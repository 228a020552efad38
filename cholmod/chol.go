//go:build cgo

package cholmod

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gmlg/gmlg/kernel/factor"
)

// Factor is the Cholesky factorisation L Lᵀ = P A Pᵀ of one symmetric
// positive definite matrix with a fixed pattern. Analyze computes the
// ordering and symbolic structure once; Factorize computes (and recomputes)
// the numbers for the current values of a matrix with that pattern.
//
// Solve may be called from several goroutines at once: L is only read and
// each concurrent call borrows its own set of CHOLMOD workspaces. Factorize
// and Free must not run concurrently with any other method.
type Factor struct {
	cc      *Common
	lf      *cFactor
	n       int
	hash    uint64 // pattern fingerprint of the analysed matrix
	nnzA    int
	info    Info
	kernel  SolveKernel
	valid   bool      // holds a usable numeric factorisation
	plan    blockPlan // block kernel's split of the elimination tree, once hasPlan
	hasPlan bool
	mu      sync.Mutex
	idle    []*cCtx // solve workspaces not in use
	adjIdle []*cCtx // AdjointSteps' workspaces not in use
	allWS   []*cCtx
	closed  bool
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
	ord, err := o.Ordering.code()
	if err != nil {
		return nil, err
	}
	mode, sswitch, err := o.Mode.code()
	if err != nil {
		return nil, err
	}
	if o.Kernel != BlockKernel && o.Kernel != CHOLMODKernel {
		return nil, fmt.Errorf("cholmod: unknown solve kernel %d", int(o.Kernel))
	}
	if o.Mode == AutoSolve && o.Kernel == CHOLMODKernel {
		sswitch = AutoSolveSwitchCHOLMOD
	}
	fundamental := o.Kernel == BlockKernel && a.n <= FundamentalMaxN
	L, err := analyze(c.ctx, a.a, ord, mode, sswitch, fundamental, fmt.Sprintf("analyze (%v, %v)", o.Ordering, o.Mode))
	if err != nil {
		return nil, err
	}
	used, super, nnzL, fl, sel := factorStats(c.ctx, L)
	f := &Factor{
		cc: c, lf: L, n: a.n, hash: a.hash, nnzA: len(a.i), kernel: o.Kernel,
		info: Info{
			Requested: o.Ordering, Used: orderingName(used), Selected: sel,
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
	f.valid = false
	err := factorize(f.cc.ctx, a.a, f.lf)
	if err == nil || isWarning(err) {
		f.valid = true
	}
	return err
}

// isWarning reports a status that leaves a usable factorisation.
func isWarning(err error) bool {
	se, ok := err.(*StatusError)
	return ok && se.err == ErrDSmall
}

// Solve solves A X = B for the N×cols block b, stored column-major (column k
// is b[k*N:(k+1)*N]), and writes X into dst, with the SolveKernel chosen in
// AnalyzeOptions (gmlg's block kernel by default, or one cholmod_solve2
// call). dst and b may be the same slice. It panics if len(b) or len(dst) is not
// N*cols, and returns ErrNotFactorized when there is no valid factorisation.
//
// Solve is safe to call from several goroutines at once. Once each
// workspace in use has seen a given cols, Solve allocates nothing: the
// workspaces live in CHOLMOD memory and are reused.
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
	if f.kernel == BlockKernel {
		var plan *blockPlan
		if plan, err = f.treePlan(ws); err == nil {
			err = blockSolve(ws, f.lf, dst, b, f.n, cols, 1, false, false, 1, plan)
		}
	} else {
		err = solve(ws, f.lf, dst, b, f.n, cols)
	}
	f.putWorkspace(ws)
	return err
}

// SolveSteps applies A⁻¹ steps times to the N×cols column-major block b:
// x_0 = b, x_l = A⁻¹ x_{l−1}. Without keep, out (N·cols) receives
// x_steps; with keep, out (steps·N·cols) receives every iterate, x_l in
// block l−1, or in block steps−l when reverse. out must not overlap b,
// except out == b without keep.
//
// With the BlockKernel the block stays in the kernel's interleaved layout
// between the steps: one gather per call instead of one per step, and one
// scatter per call (per step with keep). With CHOLMODKernel it is steps
// Solve calls. Concurrency and allocation are as for Solve.
func (f *Factor) SolveSteps(out, b []float64, cols, steps int, keep, reverse bool) error {
	f.mustBeOpen("SolveSteps")
	return f.solveSteps(out, b, cols, steps, keep, reverse, 1)
}

// SolveStepsParallel is SolveSteps on two threads: with the BlockKernel and
// a factor whose elimination tree splits into two balanced subtrees below
// a top part (TreeSplits; nested-dissection orderings of grids do), a
// second thread solves one subtree while the calling one solves the other.
// Every column keeps the block's full width, unlike splitting the columns
// between two SolveSteps calls, and the factor is read once per step, not
// twice. The result is bitwise that of SolveSteps, which follows the same
// split on one thread. Otherwise it is SolveSteps.
func (f *Factor) SolveStepsParallel(out, b []float64, cols, steps int, keep, reverse bool) error {
	f.mustBeOpen("SolveStepsParallel")
	return f.solveSteps(out, b, cols, steps, keep, reverse, 2)
}

// TreeSplits reports whether SolveStepsParallel runs on two threads: the
// BlockKernel and an elimination tree that splits (see SolveStepsParallel).
// It is false until the first successful Factorize.
func (f *Factor) TreeSplits() bool {
	f.mustBeOpen("TreeSplits")
	if f.kernel != BlockKernel || !f.valid {
		return false
	}
	ws, err := f.workspace()
	if err != nil {
		return false
	}
	defer f.putWorkspace(ws)
	plan, err := f.treePlan(ws)
	return err == nil && planSplits(plan)
}

// treePlan returns the block kernel's plan of the factor, computing it with
// the workspace ws the first time: it depends only on the factor's
// structure, which Factorize keeps.
func (f *Factor) treePlan(ws *cCtx) (*blockPlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.hasPlan {
		p, err := computePlan(ws, f.lf, f.n)
		if err != nil {
			return nil, err
		}
		f.plan, f.hasPlan = p, true
	}
	return &f.plan, nil
}

func (f *Factor) solveSteps(out, b []float64, cols, steps int, keep, reverse bool, threads int) error {
	nb := f.n * cols
	want := nb
	if keep {
		want = steps * nb
	}
	if cols < 0 || steps < 1 || len(b) != nb || len(out) != want {
		panic(fmt.Sprintf("cholmod: SolveSteps: len(out)=%d, len(b)=%d, cols=%d, steps=%d, keep=%v: want len(b)=N*cols=%d*%d, len(out)=%d, steps ≥ 1",
			len(out), len(b), cols, steps, keep, f.n, cols, want))
	}
	if !f.valid {
		return fmt.Errorf("cholmod: solve: %w", ErrNotFactorized)
	}
	if cols == 0 {
		return nil
	}
	if f.kernel != BlockKernel {
		src := b
		for l := 1; l <= steps; l++ {
			dst := out
			if keep {
				blk := l - 1
				if reverse {
					blk = steps - l
				}
				dst = out[blk*nb : (blk+1)*nb]
			}
			if err := f.Solve(dst, src, cols); err != nil {
				return err
			}
			src = dst
		}
		return nil
	}
	ws, err := f.workspace()
	if err != nil {
		return err
	}
	plan, err := f.treePlan(ws)
	if err == nil {
		err = blockSolve(ws, f.lf, out, b, f.n, cols, steps, keep, reverse, threads, plan)
	}
	f.putWorkspace(ws)
	return err
}

// AdjointSteps differentiates out = A⁻ˢ·src (S = steps solves, the heat
// kernel's backward Euler chain) with respect to a weighted graph's edge
// weights. With u_l = A⁻ˡ·src and w_k = A⁻ᵏ·g, where g (N×cols, like src)
// is the gradient of out, it adds
//
//	coef · Σ_{l=1..S} Σ_cols (u_l[from[e]] − u_l[to[e]]) · (w_{S−l+1}[from[e]] − w_{S−l+1}[to[e]])
//
// to gw[e] for every edge e, and writes A⁻ˢ·g into gsrc unless gsrc is nil.
// Both chains stay in the block kernel's interleaved layout, so neither is
// scattered to column-major blocks, and each pair is summed while one of
// its two steps is in cache: only the first ⌈S/2⌉ steps of each chain are
// kept, 2·(⌈S/2⌉+1)·N·C′ floats with C′ = cols rounded up to a multiple of 4
// (at most 32, the panel width), held with a workspace for the next call.
// With threads > 1 a second thread runs chain w beside chain u; the result
// is bitwise the same.
//
// It needs the BlockKernel (AdjointSupported); concurrency is as for Solve.
func (f *Factor) AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, threads int) error {
	f.mustBeOpen("AdjointSteps")
	nb := f.n * cols
	if cols < 0 || steps < 1 || len(src) != nb || len(g) != nb || (gsrc != nil && len(gsrc) != nb) || len(from) != len(to) || len(gw) != len(from) {
		panic(fmt.Sprintf("cholmod: AdjointSteps: len(gsrc)=%d, len(gw)=%d, len(src)=%d, len(g)=%d, cols=%d, steps=%d, %d and %d endpoints: want blocks of N*cols=%d*%d, one gradient per edge, cols ≥ 0, steps ≥ 1",
			len(gsrc), len(gw), len(src), len(g), cols, steps, len(from), len(to), f.n, cols))
	}
	for e := range from {
		if from[e] < 0 || from[e] >= f.n || to[e] < 0 || to[e] >= f.n {
			panic(fmt.Sprintf("cholmod: AdjointSteps: edge %d joins %d and %d, outside 0..%d", e, from[e], to[e], f.n-1))
		}
	}
	if f.kernel != BlockKernel {
		return fmt.Errorf("cholmod: AdjointSteps needs the block kernel, the factor uses %v", f.kernel)
	}
	if !f.valid {
		return fmt.Errorf("cholmod: adjoint: %w", ErrNotFactorized)
	}
	if cols == 0 {
		return nil // as SolveSteps: nothing to solve, nothing to add
	}
	ws, err := f.adjointWorkspace()
	if err != nil {
		return err
	}
	defer f.putAdjointWorkspace(ws)
	return blockAdjoint(ws, f.lf, gsrc, gw, src, g, f.n, cols, steps, int64s(from), int64s(to), coef, threads)
}

// AdjointSupported reports whether AdjointSteps can run: the factor uses
// the BlockKernel.
func (f *Factor) AdjointSupported() bool {
	f.mustBeOpen("AdjointSupported")
	return f.kernel == BlockKernel
}

// int64s views x as []int64 (SuiteSparse_long), copying only where int is
// narrower.
func int64s(x []int) []int64 {
	if len(x) == 0 {
		return nil
	}
	if unsafe.Sizeof(x[0]) == 8 {
		return unsafe.Slice((*int64)(unsafe.Pointer(&x[0])), len(x))
	}
	y := make([]int64, len(x))
	for i, v := range x {
		y[i] = int64(v)
	}
	return y
}

// workspace pops an idle solve workspace or starts a new one.
func (f *Factor) workspace() (*cCtx, error) { return f.takeWS(&f.idle) }

// putWorkspace returns a workspace taken with workspace to the idle list
// (which has room for every workspace, so this never allocates).
func (f *Factor) putWorkspace(ws *cCtx) { f.putWS(&f.idle, ws) }

// adjointWorkspace is workspace for AdjointSteps, from a separate pool: its
// buffer holds half of two chains (2·(⌈S/2⌉+1)·N·C′ floats), and drawn from the
// solve pool it would in time be grown in every workspace that concurrent
// solves use (two, with the heat kernel's column split), doubling the
// memory held.
func (f *Factor) adjointWorkspace() (*cCtx, error) { return f.takeWS(&f.adjIdle) }

func (f *Factor) putAdjointWorkspace(ws *cCtx) { f.putWS(&f.adjIdle, ws) }

func (f *Factor) takeWS(pool *[]*cCtx) (*cCtx, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if k := len(*pool); k > 0 {
		ws := (*pool)[k-1]
		*pool = (*pool)[:k-1]
		return ws, nil
	}
	ws := newCtx()
	if ws == nil {
		return nil, fmt.Errorf("cholmod: solve workspace: %w", ErrOutOfMemory)
	}
	f.allWS = append(f.allWS, ws)
	for _, p := range []*[]*cCtx{&f.idle, &f.adjIdle} {
		if cap(*p) < len(f.allWS) {
			// Room for every workspace, so returning one never allocates.
			grown := make([]*cCtx, len(*p), 2*len(f.allWS))
			copy(grown, *p)
			*p = grown
		}
	}
	return ws, nil
}

func (f *Factor) putWS(pool *[]*cCtx, ws *cCtx) {
	f.mu.Lock()
	*pool = append(*pool, ws)
	f.mu.Unlock()
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
	f.allWS, f.idle, f.adjIdle = nil, nil, nil
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
