// Package sparsechol is gmlg's sparse Cholesky engine: the analysis, the
// layout of L, the solves on a team of workers and their adjoint, for
// every backend. It factorises in pure Go (the "go" backend, and the only
// one where SuiteSparse CHOLMOD is not available: CGO_ENABLED=0, other
// platforms), or takes L's values from a factor.Supplier (Backend.Supplier:
// the cgo build's "cholmod" backend, with package cholmod's Supplier).
//
// # Usage
//
// Backend implements factor.Factorizer. Analyze a pattern once, factorise it
// for each new set of values, and solve blocks of right-hand sides:
//
//	f, err := sparsechol.Backend{}.Analyze(pat, &factor.Options{Grid: []int{64, 64}})
//	...
//	err = f.Factorize(values)     // again for every new weight vector
//	err = f.Solve(x, b, cols)     // b, x: N×cols, column-major
//
// # Ordering
//
// With factor.Options.Grid set (the default ordering, or
// factor.OrderingNestedDissection) the pivots come from a geometric nested
// dissection that cuts the grid by axis-aligned or diagonal lattice planes,
// followed by a minimum-degree ordering constrained to respect the
// dissection. Without a grid (or with factor.OrderingAMD) an approximate
// minimum-degree ordering is used. Order exposes the permutation and
// Info().NNZL reports the fill. On the grids gmlg uses the fill is below that
// of CHOLMOD's best ordering (see the package benchmarks).
//
// # Analysis and factorisation
//
// Analyze postorders the elimination tree, computes exact column counts,
// groups columns into supernodes (fundamental supernodes merged with
// CHOLMOD's relaxed amalgamation rules) and stores each supernode as a dense
// row-major block. Factorize is a left-looking supernodal factorisation: the
// dense products (Syrk, Gemm, Trsm) go through Backend.BLAS, small ones
// through inline loops. It does not allocate. With a Supplier, a general
// graph takes the supplier's order (grids keep the engine's), postordered
// the same way, and Factorize has the supplier write L into the blocks
// (factor.Layout) instead.
//
// # BLAS
//
// The zero Backend runs on gonum's pure-Go BLAS, so this package needs no
// cgo. Any gonum blas.Float64 may be given instead, per Backend, without
// touching blas64's process-wide implementation: package kernel gives
// OpenBLAS through gonum.org/v1/netlib in cgo builds. The BLAS decides only
// the rounding of the dense products; the operations are the same.
//
// # Parallelism
//
// The supernodal tree is cut into groups of whole subtrees of about equal
// work (8, or 16 for large factors) and a top part handled after them,
// whatever the number of workers (factor.Options.Threads, default
// GOMAXPROCS). Factorize shares the groups among its workers. A solve runs
// on a team of workers that lives for the call (schedule.go): the groups
// are tasks that any worker claims; the top is taken in waves of
// supernodes none of which is an ancestor of another, each one phase of
// tasks in panels of 32 columns (a panel's diagonal block, then its rows
// below or columns before in chunks of 32), where a task waits only for
// the tasks that write what it reads or writes. Between phases the workers
// spin rather than sleep, so a phase of a few microseconds still pays. The
// solves running on one factor at once draw their workers from one budget
// of Threads, and a team never has more than GOMAXPROCS or the machine has
// CPUs, nor more than the model of the tree's schedule finds work for
// within 2% (on 16 workers, seven for a 100² grid's factor, eight for
// 16³'s, sixteen for 32³'s). Small solves run on one goroutine.
//
// Where the tree's schedule runs out of work, a solve splits its block
// into strips of 8 columns or more (split.go), side by side, each on a
// team of its own that runs the whole solve on its strip, every step of
// SolveSteps and both chains of AdjointSteps: the strips never wait for
// each other, but each reads all of L. So a block is split only when L and
// a strip's rows fit in a core's caches (4 MiB: 100²'s and 16³'s factors
// do, 32³'s does not), and when the schedule's model, ScheduleTime
// (factor.ScheduleReporter), runs the strips faster than the whole block:
// each strip takes the tree's time on its team, scaled by the cost of its
// rows (a row of 8 values costs 13/16 of a row of 16). On 16 workers a
// 15-column block of 100² or 16³ runs as two strips of 8, each on a team
// of at most 8 workers (teamSizes); on two, whole. AdjointSteps runs its
// two chains on half the workers each and shares the edge sums in ranges
// and chunks of edges.
//
// Every result is bitwise the same for any number of workers
// (TestWorkersBitwise): the supernodes are numbered by group whatever the
// count, each group links the updates of its own descendants, and in the
// forward substitution each group from the second on adds its updates of
// the top rows into a buffer of its own, which are added to the block in
// group order; in a wave of several supernodes, which may update the same
// rows, each does the same with its rows below, added in the order of the
// wave. Any two tasks of a phase that touch the same rows or columns, one
// of them writing, run in the order of its list (TestPlans), so which
// worker runs a task changes nothing. A column takes the same operations
// in any strip, and the edge sums of a split block take the products of
// whole rows in the order of the kernels (edgeStrips).
//
// # Solve
//
// Solve copies the right-hand sides into a vertex-major block (the values
// of a vertex are adjacent), runs the supernodal forward and backward
// substitutions on it and copies back. SolveSteps (factor.StepSolver)
// applies A⁻¹ several times and keeps the block in that layout between the
// steps. Both may be called from several goroutines at once, and take
// their workspaces from the factor's free list: no allocation in steady
// state.
//
// # Adjoint
//
// AdjointSteps (factor.StepSolver) differentiates a backward Euler chain
// A⁻ˢ·src for the edge weights: the forward chain and the adjoint one run
// side by side in the solve's layout, each keeping its first ⌈S/2⌉
// iterates and pairing each later one with a kept iterate of the other, so
// that neither chain is copied column-major and about S blocks are kept
// instead of 2S. On one worker, where a row of both chains is a width the
// kernels take whole, the two chains are one block of twice the width,
// the forward chain's rows in its first half (adjointPaired): each
// iterate of both takes one pass over L, in kernels that are faster per
// column on wider rows, and the results are bitwise those of the chains
// solved apart.
//
// # Kernels
//
// On amd64 processors with AVX2 and FMA (SolveKernels reports "avx2-fma",
// or "avx512-fma" where they have AVX-512) the substitutions run on
// assembly kernels (kernels_amd64.s, and kernels_rows_amd64.s, which
// internal/asmgen writes) in every build. The block's rows are
// padded with zeros to a multiple of 4 values (12 and 28 to 16 and 32 on
// AVX-512, whose wider kernels solve them faster), and every entry of L is
// broadcast and applied to a row four right-hand sides at a time with
// fused multiply-adds. Forward, a supernode's solved rows are copied into
// a scratch block quad by quad, and four rows by three quads stay in
// registers while every column is applied; backward, each column's
// products with the rows below are summed in registers, four columns by
// three quads at a time, and subtracted once; the diagonal blocks are cut
// the same way, so that only their small triangles run row by row. One
// call covers a run of rows, or a run of one-column supernodes (most of
// them in 2-D). On AVX-512 the two busiest kernels hold two quads of a row
// in one 8-wide register, and rows of 8, 16, 20, 24 or 32 values stay
// whole in registers in every kernel (rowKernels, written for all five
// widths by internal/asmgen into kernels_rows_amd64.s): they take eight
// rows (forward) or columns (backward) at a time, four at 32 values, read
// the solved rows in place and keep the triangles of the diagonal blocks
// in registers from load to store; backward, they prefetch the factor's
// entries 16 rows ahead, rows that lie pages apart in the wide supernodes
// of a large factor, where the processor's prefetchers do not follow.
// Blocks of more than 32 right-hand sides are solved there in strips of
// 32 (stripWidth).
//
// Each lane does the same operations whatever the width of the block, so
// a column's solution depends neither on the right-hand sides solved with
// it (TestColumnsBitwise) nor on the kernels' widths: AVX-512 gives the
// 4-wide kernels' solutions bit for bit (TestWideBitwise), and their
// gradient up to 32 right-hand sides; beyond, the edge sums are added to
// the gradient strip by strip (TestStrips), which rounds differently, so
// SolveKernels names the two kinds of processor apart. The buffered
// updates are added a quad at a time in the order of one value at a time
// (TestSumRowsBitwise); the edge sums take an edge's products a quad at a
// time and add the four lanes at the end. Elsewhere ("scalar", and under
// the noasm build tag) portable Go kernels do the same substitutions and
// sums; the two agree to rounding (TestKernelsAgree), not bitwise.
//
// # Benchmarks
//
// The benchmarks compare the backends side by side, with cgo "cholmod"
// too (this engine on CHOLMOD's ordering and factorisation, one BLAS
// thread), in wall time and cpu-ns/op (process CPU time, the steadier
// figure on a shared machine); BenchmarkAnalyze reports nnz(L), 0.80–0.98×
// that of CHOLMOD's best ordering on 50², 100², 200², 16³ and 32³. Whole
// evaluations of the learner are in BENCHMARKS.md. BenchmarkSolveRates
// compares the grids' speed per flop on one thread, the grids taking turns
// within each round so that a shared machine's drift affects them alike.
//
//	go test -run '^$' -bench . -count 3 ./kernel/sparsechol
package sparsechol

//go:generate go run ./internal/asmgen
