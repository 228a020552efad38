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
// NewSparse validates the CSC arrays in Go and copies them once into
// CHOLMOD-allocated memory. Free and Close are idempotent, and every other
// use of a freed object panics with a "cholmod: ..." message instead of
// reaching C. A runtime cleanup reports on stderr a Common that was garbage
// collected without Close; it frees nothing.
//
// Solve is one cholmod_solve2 call for the whole block, whose header lives
// on the C stack and points into the Go slice only during the call. Only
// Solve may run concurrently (Common and Factor say how).
//
// # Errors
//
// CHOLMOD's Common->status becomes a Go error in one place (check). A
// matrix that is not positive definite gives a *factor.NotPosDefError with
// Backend "cholmod" and the failing pivot's column in the original
// numbering; other statuses give a *StatusError wrapping one of the Err
// values of errors.go, with CHOLMOD's own message. The factorisation is
// always LLᵀ, so an indefinite matrix is never accepted.
//
// # Orderings and modes
//
// OrderDefault is NESDIS: on the grid Laplacians of this project it gives
// the least fill of the single methods at every size but the smallest, and
// OrderBest gains at most 0.5% over it at a much higher analysis cost;
// CHOLMOD's own default picks AMD up to 16³, with 5–13% more fill on 2-D
// grids and twice the flops on 16³. nnz(L) of I + c·L_w (BenchmarkAnalyze):
//
//	grid    AMD        METIS      NESDIS     CHOLMOD default
//	50²        35 913     40 203     38 326  (AMD)
//	100²      206 332    199 554    195 631  (AMD)
//	200²    1 081 911    964 455    957 582  (AMD)
//	16³       281 014    262 798    216 410  (AMD)
//	32³     7 746 501  5 271 841  5 260 269  (METIS)
//
// Supernodal is the default Mode: it refactorises faster on 3-D grids and
// large 2-D ones. Refactorisation in ms (BenchmarkRefactorize, NESDIS, one
// BLAS thread, a 2-core AMD EPYC with AVX-512, ±20%):
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
// lays L out and runs the solves and their adjoint, CHOLMOD orders general
// graphs and computes the numbers. Prepare analyses again in the engine's
// final pivot order, kept as it is (AnalyzeOptions.Perm), so L is the same
// matrix; each Fill refactorises and copies L into the engine's blocks,
// one pass over L, and checks that every entry outside them is one of the
// explicit zeros of CHOLMOD's relaxed supernodes.
//
// # Threads
//
// SetBLASThreads sets OpenBLAS's process-wide thread count, found at run
// time (with another BLAS it returns false); the package changes it only
// when asked, and touches no other OpenBLAS setting. Package kernel sets
// one thread, since threaded OpenBLAS products round differently for each
// count. BLASCore reports the kernels OpenBLAS chose for the processor.
//
// CHOLMOD's supernodal factorisation also opens an OpenMP parallel region,
// on a team of fixed size, for the assembly of every large supernode. On
// the heat systems waking and parking that team cost more than the loops it
// shares, and its threads spin on cores that the solves need. So Factorize
// sets the calling thread's OpenMP max-active-levels-var to 0 and restores
// it before it returns, on the same thread. The loops write disjoint
// entries, so the factor is the same bits either way; a 32³ heat system
// refactorises in about half the time (BenchmarkRefactorize in package
// sparsechol).
//
// # Building
//
// The cgo flags are in cgoflags.go and fit Debian's libsuitesparse-dev
// (CHOLMOD 3.0.x). The package uses the 64-bit interface (cholmod_l_*) and
// checks that width, and the library's major version against the header's,
// when it is initialised. A build without cgo gives a stub with the same
// API (stub.go) whose calls return ErrNoCgo, so that importers compile and
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
