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
// Solve runs gmlg's own block kernel by default (AnalyzeOptions.Kernel,
// see "Solve kernels" below), or one cholmod_solve2 call for the whole
// block (CHOLMODKernel): the right-hand side is then described to CHOLMOD
// by a header on the C stack that points into the Go slice only during the
// call. Either way the workspaces stay in C memory and are reused, so Solve
// allocates nothing after warm-up.
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
// of CHOLMOD's methods). Info reports the ordering actually used, nnz(L) and
// the flop count. OrderDefault is NESDIS: on the grid Laplacians of this
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
// simplicial when flops/nnz(L) < 40, i.e. only for the smallest 2-D grids),
// or AutoSolve (the same test with a threshold tuned for many solves per
// factorisation: AutoSolveSwitch = 120 for the block kernel, which makes
// 2-D grids simplicial and 3-D grids from 16³ on supernodal, and
// AutoSolveSwitchCHOLMOD = 250 for cholmod_solve2, with which a simplicial
// factor solves faster on 2-D grids up to 200² and on 16³, while
// supernodal wins by far on 32³). Supernodal factorises faster on 3-D
// grids; see the benchmarks in bench_test.go.
//
// # Solve kernels
//
// cholmod_solve2 treats the right-hand sides as the slow index and, for a
// simplicial factor, walks L once per column of the block. The heat kernel
// solves blocks of 8–32 columns thousands of times per factorisation, so
// the package has its own solve on CHOLMOD's factor (blocksolve.c, the
// default BlockKernel): the block is gathered once per Solve into a
// permuted, interleaved workspace (row k of P B holds the block's entries
// of row k side by side, padded to a multiple of 4, at most 32 per pass),
// both triangular solves run on it with the width a compile-time constant,
// so each factor entry becomes a few SIMD fused multiply-adds on a row
// held in registers, and the result is scattered back. Supernodes are
// walked 8 (up to 16 right-hand sides) or 4 columns at a time, so each row
// below a block of columns is read (and written) once per block instead of
// once per column. The workspace is 64-byte aligned; rows are held in quads
// (4 doubles), except that where the processor has AVX-512 rows of an even
// number of quads are held as 8-wide vectors (without AVX-512, GCC lowers
// those to far slower code), and the diagonal's reciprocals are computed once per call
// (a division costs a dozen multiply-adds). With a simplicial factor and a
// width of 4, 12, 20 or 28 columns, each entry's row address comes from an
// array of byte offsets kept with the workspace (8 bytes per entry of L for
// each of its last two widths) instead of a multiplication by the width:
// 7–24% less time per pass on a 50² grid, bitwise the same result. The
// backward solve sums each column's products from its farthest row to its
// nearest, so that the nearest rows, solved just before, are needed last
// and consecutive columns overlap (2-9% per solve at narrow widths). The
// kernel is compiled for the x86-64-v4 (AVX-512 with VL and FMA) and
// x86-64-v3 (AVX2, FMA) levels and baseline x86-64; the processor picks at
// load time. Factors analysed for it, up to FundamentalMaxN vertices, have
// fundamental supernodes: CHOLMOD's relaxed amalgamation stores explicit
// zeros (64 700 entries for nnz(L) = 38 300 on a 50² grid) that these loops
// would multiply through. It reads the factor in place and never changes
// it; TestBlockKernel checks it against cholmod_solve2 to 1e-13 on every
// ordering and column count (run under valgrind, which presents a processor
// without AVX-512, the same tests exercise the AVX2 clone).
//
// Factor.SolveSteps (factor.StepSolver, used by the heat kernel for
// backward Euler) applies A⁻¹ several times in one call: the block is
// gathered once, stays interleaved between the steps, and is scattered once
// (or once per step when the iterates are kept, walking the destination in
// order so that the stores stream). In one toydataF4 evaluation (S = 20)
// the permutation copies took 27% of the CPU time with a gather and a
// scatter per Solve and 11% with SolveSteps.
//
// Factor.AdjointSteps (factor.AdjointStepper, the heat kernel's adjoint)
// differentiates a backward Euler chain for a graph's edge weights without
// leaving that layout: a chain from the input and one from the output's
// gradient run on two threads, each pair of their steps is multiplied
// across the edges (endpoints mapped to the permuted rows once per call,
// visited in row order) while one of the two steps is in cache, and only
// the first half of each chain is kept. A column-major accumulation had to
// scatter both chains out at every step; in one toydataF4 evaluation the
// adjoint's scatters and accumulation took a fifth of the CPU time, its
// pair sums now under a tenth (TestAdjointSteps checks it against
// SolveSteps' chains to 1e-12).
//
// The kernel splits the elimination tree for two threads where it can: in
// CHOLMOD's postorder, the top of the tree (the chain from the root down to
// the first node with two or more children, e.g. the top separator of a
// nested dissection) is preceded by whole subtrees, which fall into two
// contiguous groups of about equal work. The forward solves of the two
// groups touch disjoint rows except the top ones, whose updates go to two
// private copies added afterwards; the backward solves of the groups, after
// the top's, are independent. Factor.SolveStepsParallel
// (factor.ParallelStepSolver) runs the groups on two threads, each at the
// block's full width; SolveSteps and Solve follow the same split on one
// thread, so the result is bitwise the same either way (TestSolveStepsParallel).
// TreeSplits says whether a factor splits (nested-dissection orderings of
// grids do; a chain, e.g. a path in its natural order, does not). On the
// 2-core machine, 5 steps on 16 columns at 32³ took 61–62 ms split this way,
// 65–88 ms as two 8-column solves on two threads and 73–92 ms on one thread
// (BenchmarkSolveParallel, one run).
//
// One 20-column Solve in ms (BenchmarkSolve20, NESDIS, one BLAS thread,
// best of 3 in one run on a 2-core Xeon at 2.8 GHz with AVX-512; the
// machine was loaded, so compare within a row):
//
//	         block kernel              cholmod_solve2
//	grid     simplicial supernodal     simplicial supernodal
//	50²         0.51       0.43           1.66       1.59
//	100²        2.77       3.58           7.19      15.2
//	200²       20.9       20.1           46.3       60.4
//	16³         1.57       1.30           3.46       6.93
//	32³        54.3       27.8          126         54.1
//
// Refactorisation (ms, same machine, earlier run, ±20%):
//
//	grid     supernodal simplicial
//	50²         2.5        1.0
//	100²       14         11
//	200²       64         58
//	16³        12         21
//	32³       270      12000
//
// # Threads
//
// CHOLMOD's supernodal kernels call the BLAS. SetBLASThreads sets OpenBLAS's
// thread count for the whole process (found at run time through
// openblas_set_num_threads; with another BLAS it returns false and the
// library's own variable applies); BLASThreads reads it. The environment
// variable OPENBLAS_NUM_THREADS sets the initial value. Backend.Analyze sets
// it to 1, whatever factor.Options.Threads says: the factor is then the
// same bits for any thread count (threaded OpenBLAS products round
// differently for each count), and the concurrent solves of the heat kernel
// keep the cores. The package never touches other OpenBLAS
// settings such as OPENBLAS_CORETYPE or OPENBLAS_L2_SIZE.
//
// # Using it as a factor.Factorizer
//
// Backend implements factor.Factorizer; each Factor it returns owns its own
// Common, so factors are independent:
//
//	var fz factor.Factorizer = cholmod.Backend{}                   // NESDIS, supernodal
//	var fz2 factor.Factorizer = cholmod.Backend{Mode: cholmod.Simplicial}
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
// API (stub.go), in which NewCommon, Backend.Analyze and every other method
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
