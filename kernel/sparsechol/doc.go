// Package sparsechol is a pure-Go sparse Cholesky factorisation, the backend
// gmlg uses where SuiteSparse CHOLMOD is not available (CGO_ENABLED=0, other
// platforms) and the cross-check of the cgo backend.
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
// through inline loops. It does not allocate.
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
// The supernodal tree is split into whole subtrees, one group per worker
// (factor.Options.Threads, default GOMAXPROCS), and a top part handled
// after them. Factorize and Solve process the subtrees concurrently; Solve
// also splits the top part between workers by right-hand-side columns
// (at least 4 each). Small solves run on one goroutine.
//
// # Solve
//
// Solve copies the right-hand sides into a vertex-major block (the cols
// values of a vertex are adjacent), runs the supernodal forward and backward
// substitutions on it and copies back. Solve may be called from several
// goroutines at once; each call takes a workspace from the factor's free
// list and does not allocate in steady state.
//
// # Benchmarks
//
// The benchmarks compare the backends side by side in one run; with cgo
// they include CHOLMOD (package cholmod, default ordering, one BLAS thread):
//
//	go test -run '^$' -bench . -count 3 ./kernel/sparsechol
//
// Each reports wall time and cpu-ns/op (process CPU time per operation,
// the steadier figure on a shared machine); BenchmarkAnalyze also reports
// nnzL. On a 2-core amd64 machine (shared, so only CPU time was
// meaningful), against CHOLMOD with METIS and one OpenBLAS thread: nnz(L)
// is 0.80–0.98× CHOLMOD's best ordering on the grids 50², 100², 200², 16³
// and 32³; a 20-column solve took 0.4–0.95× cholmod_solve2's CPU time on the
// 2-D grids, 0.7–1.06× on 16³ and 1.4–2.2× on 32³; factorisation 0.25–0.8×
// except on 32³ (1.7–2.4×: gonum's native BLAS is slower than OpenBLAS);
// analysis 0.5–1.4×. The kernels are scalar Go; GOAMD64=v3 (FMA) makes them
// 15–25% faster.
package sparsechol
