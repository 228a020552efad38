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
// work (8, or 16 for large factors) and a top part handled after them. The
// cut does not depend on the number of workers (factor.Options.Threads,
// default GOMAXPROCS). Factorize hands each worker a contiguous run of
// groups. A solve runs on a team of workers that lives for the call
// (schedule.go): the groups are tasks that any worker claims; the top is
// taken in waves of supernodes none of which is an ancestor of another,
// each one phase of tasks in panels of 32 columns: a panel's diagonal
// block is one task per supernode, and its rows below (forward) or
// columns before (backward) are shared in chunks of 32. Within a wave a
// task waits only for the tasks that write what it reads or writes (its
// panel's triangle, the chunk of the panel before over the same rows), so
// the next panel's triangle starts while the rest of the panel before is
// still being taken into the rows below. Between phases, and while a task
// waits, the workers spin rather than sleep, so a phase of a few
// microseconds still pays; the workers of all the solves running on one
// factor at once are drawn from one budget of Threads, and a team never
// has more than GOMAXPROCS or the machine has CPUs, nor more than the
// schedule's model finds work for: ScheduleTime (factor.ScheduleReporter)
// models the schedule on p workers, and a team of p takes the fewest
// workers that the model finds within 2% of p's time (on 16 workers,
// seven for a 100² grid's factor, eight for 16³'s, all sixteen for
// 32³'s). Small solves run on one goroutine. AdjointSteps
// runs its two chains on half the workers each and shares the edge sums
// between them in chunks of edges.
//
// Every result is bitwise the same for any number of workers
// (TestWorkersBitwise): the supernodes are numbered by group whatever the
// count, each group links the updates of its own descendants, and in the
// forward substitution each group from the second on adds its updates of
// the top rows into a buffer of its own (only the rows it touches), which
// are added to the block in group order; in a wave of several supernodes,
// which may update the same rows, each does the same with its rows below,
// added in the order of the wave. The waves, panels and chunks are fixed
// by the factor's shape, and any two tasks of a phase that touch the same
// rows or columns, one of them writing, run in the order of its list (the
// later waits for the earlier: TestPlans), so which worker runs a task
// changes nothing.
//
// # Solve
//
// Solve copies the right-hand sides into a vertex-major block (the values of
// a vertex are adjacent), runs the supernodal forward and backward
// substitutions on it and copies back. SolveSteps (factor.StepSolver)
// applies A⁻¹ several times and keeps the block in that layout between the
// steps: it is gathered once and scattered only where an iterate is
// returned. Both may be called from several goroutines at once; each call
// takes a workspace from the factor's free list and does not allocate in
// steady state.
//
// # Adjoint
//
// AdjointSteps (factor.StepSolver) differentiates a backward Euler chain
// A⁻ˢ·src for the edge weights: the forward chain and the adjoint one run
// side by side in the solve's layout, each keeping its first ⌈S/2⌉
// iterates and pairing each later one with a kept iterate of the other, so
// that neither chain is copied column-major and about S blocks are kept
// instead of 2S.
//
// # Kernels
//
// On amd64 processors with AVX2 and FMA (SolveKernels reports "avx2-fma",
// or "avx512-fma" where they have AVX-512) the substitutions run on
// assembly kernels (kernels_amd64.s), in every
// build: the block's rows are padded with zeros to a multiple of 4 values
// (to 16 from 9 to 12 right-hand sides on processors with AVX-512, whose
// 16-value kernels below solve such a block faster than the kernels for
// 12 values a row), and every factor entry is broadcast and applied to a
// row four right-hand sides at a time with fused multiply-adds. Forward,
// the solved rows of a supernode are first copied into a scratch block
// quad by quad, so that the update of the rows below reads them at fixed
// offsets; four rows by three quads (twelve right-hand sides) stay in
// registers while every column of the supernode is applied, so that each
// quad loaded serves four rows and each row is loaded and stored once.
// Backward, each column's products with the rows below are summed in
// registers, four columns by three quads at a time, and subtracted once.
// The diagonal blocks are cut the same way, four rows (forward) or columns
// (backward) at a time, so that only their small triangles run row by row.
// One call covers a run of rows, and one call a whole run of consecutive
// one-column supernodes (most of them in 2-D, where a call each would cost
// more than their few rows of arithmetic). Each lane does the same
// arithmetic whatever the width of the block, so the solution does not
// depend on the number of right-hand sides solved with it. On processors
// with AVX-512 the two kernels that do most of the work hold two quads of
// a row in one 8-wide register (forward, four rows by four quads at a
// time), and with rows of 8, 16, 20, 24 or 32 values (5 to 8, 9 to 16, 17
// to 20, 21 to 24 and 25 to 32 right-hand sides, 12 and 28 padded to 16
// and 32; the learner's have 15 with ten frames) every kernel holds a row
// whole in registers (one 8-wide register, two, two and a 4-wide one,
// three or four: rowKernels) and takes eight rows (forward, panels of up
// to 64 columns; four at 32 values) or eight columns (backward, four at 32
// values; then four, then the last one to three together) at a time, so
// that each row loaded serves more of them.
// At those widths the forward kernels read the solved rows where they
// are, instead of a quad-by-quad copy (no copy, and half the loads), the
// rows left over after the groups of four stay whole too, and the
// diagonal blocks' triangles of up to four rows stay in registers from
// load to store, forward and backward (each of their rows waits for the
// one before, and registers keep a store and a load out of that wait); in
// a run of one-column supernodes the pivot row stays in its registers
// while the rows below take it (forward), and every part of each row
// below is summed in one pass over the rows (backward). Blocks of more
// than 32 right-hand sides are solved there in strips of 32 (the last one
// what is left), each on those kernels (stripWidth). Every lane does the
// same operations: the solutions are bitwise those of the 4-wide code
// (TestWideBitwise), and so is the adjoint's gradient up to 32 right-hand
// sides; beyond, its edge sums are added to the gradient strip by strip
// (TestStrips), which rounds differently from the sums over whole rows,
// so SolveKernels names the two kinds of processor apart. The buffered
// updates (see Parallelism) are added to their rows a quad at a time, in
// the same order as one value at a time (TestSumRowsBitwise). The
// adjoint's edge sums take the products of an edge's two rows a quad at a
// time and add the four lanes at the end.
// Elsewhere ("scalar") portable Go kernels do the same substitutions and
// sums; the two agree to rounding (TestKernelsAgree), not bitwise. The
// build tag noasm leaves the assembly out on amd64 too, for the scalar
// kernels alone. The kernels that hold a row whole are written once for
// all five widths, by a generator (internal/asmgen) that go generate runs
// into kernels_rows_amd64.s, so that a change to one is made to all.
//
// # Benchmarks
//
// The benchmarks compare the backends side by side in one run; with cgo
// they include "cholmod" (this engine on CHOLMOD's ordering and
// factorisation, one BLAS thread):
//
//	go test -run '^$' -bench . -count 3 ./kernel/sparsechol
//
// Each reports wall time and cpu-ns/op (process CPU time per operation,
// the steadier figure on a shared machine); BenchmarkAnalyze also reports
// nnzL. nnz(L) is 0.80–0.98× that of CHOLMOD's best ordering on the grids
// 50², 100², 200², 16³ and 32³. Whole evaluations of the learner, against
// CHOLMOD, are in BENCHMARKS.md ("Backends side by side").
package sparsechol

//go:generate go run ./internal/asmgen
