// Package cholmod binds SuiteSparse CHOLMOD, the supernodal sparse Cholesky
// factorisation, for symmetric positive definite systems A X = B with many
// right-hand sides. It is the only package of the module that uses cgo.
//
// # Lifecycle
//
// A Common owns CHOLMOD's state (cholmod_common). Matrices and factors are
// created from it and freed explicitly; Close frees whatever is still open:
//
//	cc, err := cholmod.NewCommon()   // cholmod_l_start
//	defer cc.Close()                 // frees a and f too, then cholmod_l_finish
//	a, err := cc.NewSparse(n, colPtr, rowIdx, values) // lower triangle, CSC
//	f, err := cc.Analyze(a, nil)     // ordering + symbolic analysis, once
//	err = f.Factorize(a)             // numeric LLᵀ
//	err = f.Solve(x, b, cols)        // b, x: n×cols column-major
//	a.SetValues(newValues)           // same pattern, new weights
//	err = f.Factorize(a)             // refactorise, no new analysis
//
// NewSparse validates the CSC arrays in Go (lengths, strictly increasing rows
// of the lower triangle, finite values) and copies them once into
// CHOLMOD-allocated memory; SetValues overwrites the values in place. Free,
// Close and the adapter's Close are idempotent, and every other use of a
// freed object panics with a "cholmod: ..." message instead of reaching C.
// A runtime cleanup reports a Common that was garbage collected without
// Close on stderr; it frees nothing.
//
// Solve is one cholmod_solve2 call for the whole block: the right-hand
// side is described to CHOLMOD by a header on the C stack that points into
// the Go slice only during the call. The workspaces stay in C memory and
// are reused, so Solve allocates nothing after warm-up.
// Solve is safe for concurrent use on one factor: each concurrent call takes
// its own workspace set (with its own cholmod_common) from a free list, and
// L is only read. Factorize and Free must not overlap other calls, and a
// Common with its objects is otherwise single-goroutine.
//
// # Errors
//
// CHOLMOD's Common->status is turned into a Go error in one place. A matrix
// that is not positive definite gives a *factor.NotPosDefError with
// Backend "cholmod" and the failing pivot's column in the original
// (unpermuted) numbering; it matches factor.ErrNotPosDef (re-exported as
// ErrNotPosDef). Other statuses give a *StatusError that wraps ErrNotInstalled,
// ErrOutOfMemory, ErrTooLarge, ErrInvalid, ErrGPUProblem, ErrDSmall (a
// warning: the factor is usable) or ErrUnknownStatus, with CHOLMOD's own
// message. The factorisation is always LLᵀ, simplicial or supernodal, so
// an indefinite matrix is never accepted.
//
// # Orderings
//
// AnalyzeOptions.Ordering selects OrderNatural, OrderAMD, OrderMETIS,
// OrderNESDIS (CHOLMOD's nested dissection: METIS node separators applied
// recursively, then constrained minimum degree), OrderCHOLMOD (CHOLMOD's
// default: AMD, plus METIS when AMD's fill is high) or OrderBest (all nine
// of CHOLMOD's methods), or AnalyzeOptions.Perm gives the pivot order to
// keep as it is (no postorder; Info.Used is "given"). Info reports the
// ordering actually used, nnz(L) and the flop count. OrderDefault is NESDIS: on the grid Laplacians of this
// project it gives the least fill of the single methods at every size but
// the smallest (on a 50² grid AMD is 6% better), and OrderBest gains at most
// 0.5% over it at a much higher analysis cost. CHOLMOD's own default picks
// AMD up to 16³, with 5–13% more fill on 2-D grids and twice the flops on
// 16³. nnz(L) of I + c·L_w (from BenchmarkAnalyze):
//
//	grid    AMD        METIS      NESDIS     CHOLMOD default
//	50²        35 913     40 203     38 326  (AMD)
//	100²      206 332    199 554    195 631  (AMD)
//	200²    1 081 911    964 455    957 582  (AMD)
//	16³       281 014    262 798    216 410  (AMD)
//	32³     7 746 501  5 271 841  5 260 269  (METIS)
//
// # Supernodal or simplicial
//
// AnalyzeOptions.Mode is Supernodal by default (dense BLAS kernels on
// supernodes), or Simplicial (column by column), or Auto (CHOLMOD's choice,
// simplicial when flops/nnz(L) < 40, i.e. only for the smallest 2-D
// grids). Supernodal factorises faster on 3-D grids and large 2-D ones;
// see the benchmarks in bench_test.go. Refactorisation in ms
// (BenchmarkRefactorize, NESDIS, one BLAS thread, a 2-core AMD EPYC with
// AVX-512, ±20%):
//
//	grid     supernodal simplicial
//	50²         1.6        0.6
//	100²        6.4        4.3
//	200²       28         32
//	16³         4.9        8.9
//	32³       115       1490
//
// # A supplier of factors
//
// Supplier is CHOLMOD as a factor.Supplier: package sparsechol's engine
// lays L out, schedules and runs the solves and their adjoint on any number
// of workers, and CHOLMOD computes the numbers. Supplier.Order runs
// CHOLMOD's ordering (NESDIS by default), which the engine takes for
// general graphs (grids take its own geometric nested dissection, with
// less fill); the engine postorders it and forms its own supernodes. Supplier.Prepare then analyses the pattern
// again with the engine's final pivot order given (AnalyzeOptions.Perm: no
// postorder, so L is the same matrix), supernodal. Each Fill refactorises
// and copies L, column by column, into the engine's row-major blocks; an
// entry that CHOLMOD stores and the engine does not is one of the explicit
// zeros of CHOLMOD's relaxed supernodes, and Fill checks that it is zero.
// The copy costs one pass over L, small beside the factorisation, and
// holds a second copy of L's values (8 bytes per entry) for the solves.
//
// # Threads
//
// CHOLMOD's supernodal kernels call the BLAS. SetBLASThreads sets OpenBLAS's
// thread count for the whole process (found at run time through
// openblas_set_num_threads; with another BLAS it returns false and the
// library's own variable applies); BLASThreads reads it. The environment
// variable OPENBLAS_NUM_THREADS sets the initial value. The package
// changes the count only when SetBLASThreads is called: the policy is the
// caller's (package kernel sets one thread before it analyses with the
// Supplier, so that the factor is the same bits for any thread count:
// threaded OpenBLAS products round differently for each count). The
// package never touches other OpenBLAS settings such as OPENBLAS_CORETYPE
// or OPENBLAS_L2_SIZE.
//
// CHOLMOD's supernodal factorisation also opens an OpenMP parallel region,
// on a team of a fixed size (CHOLMOD_OMP_NUM_THREADS), for the assembly of
// every large supernode. On the heat systems waking and parking that team
// cost more than the loops it shares, and its threads then spin on cores
// that the solves need. Factorize (and so Supplier's Fill) runs CHOLMOD with
// no active parallel region: it sets the calling thread's OpenMP
// max-active-levels-var to 0 and restores it before it returns, on the same
// thread, so nothing outside the call changes. The loops write disjoint
// entries, so the factor is the same bits either way; a 32³ heat system
// refactorises in about half the time (BenchmarkRefactorize in package
// sparsechol).
//
// # Exporting a factor
//
// Factor.ExportL copies a numeric factor out as a simplicial LLᵀ matrix in
// CSC form plus its permutation, for solvers written in Go.
//
// # Building
//
// The cgo flags are in cgoflags.go and fit Debian's libsuitesparse-dev
// (CHOLMOD 3.0.x, headers in /usr/include/suitesparse). For another
// installation add flags through the environment, which the go command
// appends to those of the package:
//
//	CGO_CFLAGS=-I/opt/ss/include CGO_LDFLAGS="-L/opt/ss/lib -Wl,-rpath,/opt/ss/lib" go build
//
// The package uses the 64-bit interface (cholmod_l_*, SuiteSparse_long
// indices) and checks that width, and the library's major version against
// the header's, when it is initialised.
//
// A build without cgo (CGO_ENABLED=0) gives a stub with the same exported
// API (stub.go), in which NewCommon, Supplier.Order and every other method
// with an error result return ErrNoCgo, so that importers still compile and
// package kernel falls back to its pure-Go backend.
//
// # Licence
//
// CHOLMOD's Core, Cholesky and Partition modules are LGPL-2.1+, but its
// Supernodal module is GPL-2.0+. A binary that links this package (and so
// libcholmod with its Supernodal module) is distributed under the GPL's
// terms, whatever the licence of the Go source; SuiteSparse's other parts
// (AMD, COLAMD, METIS) carry their own permissive licences.
package cholmod
