package kernel

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gmlg/gmlg/kernel/factor"
)

// Scheme is the time discretisation of the heat equation.
type Scheme int

const (
	// BackwardEuler (the reference default): M = I + (t/S)·α·L and each
	// sub-step solves M u_l = u_{l−1}.
	BackwardEuler Scheme = iota
	// CrankNicolson: M = I + (t/(2S))·α·L, Mcn = 2I − M and each sub-step is
	// u_l = M⁻¹·Mcn·u_{l−1}.
	CrankNicolson
)

var schemeNames = [...]string{"backward-euler", "crank-nicolson"}

func (s Scheme) String() string {
	if s >= 0 && int(s) < len(schemeNames) {
		return schemeNames[s]
	}
	return fmt.Sprintf("Scheme(%d)", int(s))
}

// ParseScheme is the inverse of Scheme.String; it also accepts "be" and "cn".
func ParseScheme(s string) (Scheme, error) {
	switch s {
	case "backward-euler", "be", "backward_euler":
		return BackwardEuler, nil
	case "crank-nicolson", "cn", "crank_nicolson":
		return CrankNicolson, nil
	}
	return 0, fmt.Errorf("kernel: unknown scheme %q (want backward-euler or crank-nicolson)", s)
}

// Memory selects what the adjoint keeps.
type Memory int

const (
	// Recompute (default) keeps nothing per application: Adjoint recomputes
	// the forward chain of the application it differentiates, in
	// O(Steps·N·cols) buffers that the next call reuses. Apply+Adjoint
	// costs 3·Steps solves.
	Recompute Memory = iota
	// Store records the forward chain of every Apply on a LIFO tape (cleared
	// by SetWeights); Adjoint pops it when it is called in reverse order on
	// the same input, saving Steps solves per application at the price of
	// (Steps+1)·N·cols floats per recorded application (the reference's
	// strategy). Out-of-order calls fall back to recomputation.
	Store
)

// HeatOptions configures NewHeat. A nil *HeatOptions means all defaults.
type HeatOptions struct {
	// T is the diffusion time t (the reference's t_heat = ε/4). Default 1e-2.
	T float64
	// Steps is the number of implicit sub-steps S (the reference's k_heat).
	// Default 20.
	Steps int
	// Alpha scales the Laplacian. Zero means the reference's 1/h² with
	// h = 1/(n−1) on grids with n vertices per axis (see GridAlpha), and 1 on
	// general graphs and on grids with unequal extents.
	Alpha float64
	// Scheme is BackwardEuler (zero value) or CrankNicolson.
	Scheme Scheme
	// Backend factorises M and solves with it; its factors must be
	// factor.StepSolvers (every backend of Backends is). nil means
	// DefaultBackend().
	Backend factor.Factorizer
	// Ordering is passed to the backend's Analyze. Zero lets it choose.
	Ordering factor.Ordering
	// Memory is the adjoint's memory strategy; zero is Recompute.
	Memory Memory
	// Threads bounds the workers of the backend's solves (and of the
	// pure-Go factorisation); zero means GOMAXPROCS. CHOLMOD factorises on
	// one BLAS thread whatever it says. Results do not depend on it.
	Threads int
	// Serial makes the Recompute adjoint run its forward and adjoint
	// chains one after the other, each on all of the backend's workers.
	// By default, when GOMAXPROCS > 1, the backend runs them side by side,
	// each on half of its workers (factor.StepSolver's AdjointSteps).
	// Results do not depend on it.
	Serial bool
}

// Heat applies the heat kernel K = M^−S of a weighted graph to blocks of
// vectors, and back-propagates through it (docs/method.md, "Heat kernel"
// and "Kernel gradient": the paper's Proposition 1 with the reference's
// sign).
//
// With backward Euler, M = I + (t/S)·α·L_w where L_w = diag(W·1) − W is the
// positive semi-definite weighted Laplacian of the edge weights w. M is
// symmetric positive definite, so K is symmetric, entrywise positive on each
// connected component, K·1 = 1 and 1ᵀK·v = 1ᵀv.
//
// The symbolic analysis of M happens once in NewHeat; SetWeights only
// refactorises. A Heat is not safe for concurrent use.
type Heat struct {
	g      *Graph
	opt    HeatOptions
	c      float64 // coefficient of L in M: α·t/S (BE) or α·t/(2S) (CN)
	pat    factor.Pattern
	diag   []int // index in values of the diagonal of vertex i
	off    []int // index in values of edge e's entry
	values []float64
	w      []float64
	fac    factor.StepSolver
	ready  bool
	closed bool

	// Work buffers, grown on demand and then reused.
	chainU, chainV, tmp []float64
	tape                []tapeEntry
	spare               [][]float64
}

// tapeEntry is the recorded forward chain of one Apply in Store mode:
// u_0..u_S, (S+1)·N·cols floats.
type tapeEntry struct {
	cols  int
	chain []float64
}

// NewHeat analyses the heat system of g. Call SetWeights before Apply.
func NewHeat(g *Graph, opt *HeatOptions) (*Heat, error) {
	h := &Heat{g: g}
	if opt != nil {
		h.opt = *opt
	}
	o := &h.opt
	if o.T == 0 {
		o.T = 1e-2
	}
	if o.Steps == 0 {
		o.Steps = 20
	}
	if !(o.T > 0) || math.IsInf(o.T, 0) {
		return nil, fmt.Errorf("kernel: diffusion time t=%v must be positive and finite", o.T)
	}
	if o.Steps < 1 {
		return nil, fmt.Errorf("kernel: steps=%d must be at least 1", o.Steps)
	}
	if o.Alpha == 0 {
		o.Alpha = defaultAlpha(g)
	}
	if !(o.Alpha > 0) || math.IsInf(o.Alpha, 0) {
		return nil, fmt.Errorf("kernel: alpha=%v must be positive and finite", o.Alpha)
	}
	if o.Scheme != BackwardEuler && o.Scheme != CrankNicolson {
		return nil, fmt.Errorf("kernel: unknown scheme %d", o.Scheme)
	}
	if o.Backend == nil {
		o.Backend = DefaultBackend()
	}
	h.c = o.Alpha * o.T / float64(o.Steps)
	if o.Scheme == CrankNicolson {
		h.c /= 2
	}
	h.buildPattern()
	if o.Threads < 0 {
		return nil, fmt.Errorf("kernel: threads=%d must be ≥ 0", o.Threads)
	}
	fopt := &factor.Options{Ordering: o.Ordering, Threads: o.Threads, Grid: g.Dims()} // Grid nil off grids
	fac, err := o.Backend.Analyze(&h.pat, fopt)
	if err != nil {
		return nil, fmt.Errorf("kernel: analyse heat system (%s backend): %w", o.Backend.Name(), err)
	}
	ss, ok := fac.(factor.StepSolver)
	if !ok {
		fac.Close()
		return nil, fmt.Errorf("kernel: the %s backend's factor is a %T, not a factor.StepSolver", o.Backend.Name(), fac)
	}
	h.fac = ss
	h.w = make([]float64, g.NumEdges())
	return h, nil
}

// defaultAlpha is GridAlpha on a grid of equal extents, else 1.
func defaultAlpha(g *Graph) float64 {
	if !g.IsGrid() || slices.Min(g.dims) != slices.Max(g.dims) {
		return 1
	}
	return GridAlpha(g.dims[0])
}

// buildPattern lays out the lower triangle of M: column j holds the diagonal
// then the rows i > j adjacent to j, increasing.
func (h *Heat) buildPattern() {
	g := h.g
	n := g.n
	cp := make([]int, n+1)
	for _, j := range g.from {
		cp[j+1]++ // entry (to, from) lives in column from
	}
	for j := range n {
		cp[j+1] += cp[j] + 1
	}
	h.pat = factor.Pattern{N: n, ColPtr: cp, RowIdx: make([]int, cp[n])}
	h.diag, h.off = slices.Clone(cp[:n]), make([]int, len(g.from))
	for j := range n {
		h.pat.RowIdx[cp[j]] = j
	}
	// The edges by column, then row, each after the last one placed in its
	// column.
	order := make([]int, len(g.from))
	for e := range order {
		order[e] = e
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(g.from[a], g.from[b]), cmp.Compare(g.to[a], g.to[b]))
	})
	next := slices.Clone(h.diag)
	for _, e := range order {
		j := g.from[e]
		next[j]++
		h.pat.RowIdx[next[j]] = g.to[e]
		h.off[e] = next[j]
	}
	h.values = make([]float64, cp[n])
}

// Graph returns the graph.
func (h *Heat) Graph() *Graph { return h.g }

// Options returns the options in effect, defaults filled in.
func (h *Heat) Options() HeatOptions { return h.opt }

// Size returns N, the number of vertices.
func (h *Heat) Size() int { return h.g.n }

// NumParams returns the number of edge weights.
func (h *Heat) NumParams() int { return h.g.NumEdges() }

// PreservesOnes reports that K·1 = 1 for every weight vector (both schemes:
// L_w·1 = 0, so M·1 = 1 and Mcn·1 = 1), so that the weight gradient through
// an application to the constant vector is zero (ot.OnesPreserving).
func (h *Heat) PreservesOnes() bool { return true }

// Info reports the factorisation backend, ordering and fill.
func (h *Heat) Info() factor.Info {
	h.check()
	return h.fac.Info()
}

// Weights returns the current edge weights (read-only view).
func (h *Heat) Weights() []float64 { return h.w }

// ErrBadWeight is matched by SetWeights errors about non-positive or
// non-finite weights.
var ErrBadWeight = errors.New("edge weight must be positive and finite")

// SetWeights sets the edge weights (graph edge order, all > 0 and finite) and
// refactorises M. The symbolic analysis is reused.
func (h *Heat) SetWeights(w []float64) error {
	h.check()
	if len(w) != h.g.NumEdges() {
		panic(fmt.Sprintf("kernel: SetWeights: len(w)=%d, want %d edges", len(w), h.g.NumEdges()))
	}
	for e, v := range w {
		if !(v > 0) || math.IsInf(v, 0) {
			i, j := h.g.Edge(e)
			return fmt.Errorf("kernel: weight of edge %d {%d,%d} is %v: %w", e, i, j, v, ErrBadWeight)
		}
	}
	copy(h.w, w)
	for i := range h.diag {
		h.values[h.diag[i]] = 1
	}
	for e, v := range w {
		cv := h.c * v
		h.values[h.diag[h.g.from[e]]] += cv
		h.values[h.diag[h.g.to[e]]] += cv
		h.values[h.off[e]] = -cv
	}
	h.ready = false
	h.releaseTape()
	if err := h.fac.Factorize(h.values); err != nil {
		return fmt.Errorf("kernel: factorise heat system: %w", err)
	}
	h.ready = true
	return nil
}

// Close releases the factorisation. It is idempotent.
func (h *Heat) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	h.tape, h.spare, h.chainU, h.chainV, h.tmp = nil, nil, nil, nil, nil
	return h.fac.Close()
}

func (h *Heat) check() {
	if h.closed {
		panic("kernel: Heat used after Close")
	}
}

func (h *Heat) checkReady(op string) {
	h.check()
	if !h.ready {
		panic("kernel: " + op + " before a successful SetWeights")
	}
}

func (h *Heat) checkBlock(op string, cols int, blocks ...[]float64) {
	if cols < 1 {
		panic(fmt.Sprintf("kernel: %s: cols=%d < 1", op, cols))
	}
	want := h.g.n * cols
	for _, b := range blocks {
		if b != nil && len(b) != want {
			panic(fmt.Sprintf("kernel: %s: block length %d, want N·cols = %d·%d", op, len(b), h.g.n, cols))
		}
	}
}

// grow returns buf resized to n, reallocating only when it is too small.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// Apply writes K·src into dst for a block of cols columns (column-major,
// column k is src[k*N:(k+1)*N]). dst and src must not overlap. After the
// first call with a given cols it allocates nothing (except in Store mode,
// which records the chain).
func (h *Heat) Apply(dst, src []float64, cols int) error {
	h.checkReady("Apply")
	h.checkBlock("Apply", cols, dst, src)
	if h.opt.Memory == Store {
		ent := tapeEntry{cols: cols, chain: h.spareBuf((h.opt.Steps + 1) * len(src))}
		copy(ent.chain, src)
		if err := h.chain(ent.chain, cols); err != nil {
			h.recycle(ent.chain)
			return err
		}
		copy(dst, ent.chain[h.opt.Steps*len(src):])
		h.tape = append(h.tape, ent)
		return nil
	}
	if h.opt.Scheme == BackwardEuler {
		return h.solve(dst, src, cols, h.opt.Steps, false, false)
	}
	h.tmp = grow(h.tmp, len(src))
	copy(dst, src)
	for l := 0; l < h.opt.Steps; l++ {
		h.mulMcn(h.tmp, dst, cols)
		if err := h.solve(dst, h.tmp, cols, 1, false, false); err != nil {
			return err
		}
	}
	return nil
}

// solve is factor.StepSolver's SolveSteps.
func (h *Heat) solve(out, b []float64, cols, steps int, keep, reverse bool) error {
	if err := h.fac.SolveSteps(out, b, cols, steps, keep, reverse); err != nil {
		return fmt.Errorf("kernel: solve: %w", err)
	}
	return nil
}

// chain fills blocks 1..S of buf (block 0 holds the input) with the iterates
// u_l of the forward scheme.
func (h *Heat) chain(buf []float64, cols int) error {
	nb := h.g.n * cols
	if h.opt.Scheme == BackwardEuler {
		return h.solve(buf[nb:(h.opt.Steps+1)*nb], buf[:nb], cols, h.opt.Steps, true, false)
	}
	for l := 1; l <= h.opt.Steps; l++ {
		cur := buf[l*nb : (l+1)*nb]
		h.mulMcn(cur, buf[(l-1)*nb:l*nb], cols)
		if err := h.solve(cur, cur, cols, 1, false, false); err != nil {
			return err
		}
	}
	return nil
}

// adjointChain fills block l of buf (l = 0..S−1) with the adjoint iterate v_l
// started from g:
//
//	BE: v_S = g, v_l = M⁻¹ v_{l+1}
//	CN: v_{S−1} = M⁻¹ g, v_l = M⁻¹·Mcn·v_{l+1}
func (h *Heat) adjointChain(buf, g []float64, cols int) error {
	nb := h.g.n * cols
	s := h.opt.Steps
	if h.opt.Scheme == BackwardEuler {
		return h.solve(buf[:s*nb], g, cols, s, true, true)
	}
	if err := h.solve(buf[(s-1)*nb:s*nb], g, cols, 1, false, false); err != nil {
		return err
	}
	for l := s - 2; l >= 0; l-- {
		cur := buf[l*nb : (l+1)*nb]
		h.mulMcn(cur, buf[(l+1)*nb:(l+2)*nb], cols)
		if err := h.solve(cur, cur, cols, 1, false, false); err != nil {
			return err
		}
	}
	return nil
}

// mulMcn writes Mcn·x = x − c·L_w·x into dst (CN only).
func (h *Heat) mulMcn(dst, x []float64, cols int) {
	n := h.g.n
	copy(dst, x)
	from, to, w := h.g.from, h.g.to, h.w
	for k := 0; k < cols; k++ {
		xc, dc := x[k*n:(k+1)*n], dst[k*n:(k+1)*n]
		for e, i := range from {
			j := to[e]
			d := h.c * w[e] * (xc[i] - xc[j])
			dc[i] -= d
			dc[j] += d
		}
	}
}
