//go:build cgo

package cholmod

// The C helpers, in the preamble, and the Go wrappers that call them;
// factorview.go reads CHOLMOD's factors and cgoflags.go has the build
// flags. The package uses the cholmod_l_* interface: init asserts that
// SuiteSparse_long is 64 bits, so Go int64 slices view CHOLMOD's integer
// arrays directly.

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cholmod.h"

// gl_ctx is one cholmod_common plus the dense workspaces of cholmod_solve2
// and the text of the first CHOLMOD error reported during the last call.
typedef struct gl_ctx {
	cholmod_common c;
	cholmod_dense *X, *Y, *E;
	char msg[256];
} gl_ctx;

// CHOLMOD's error handler has no user pointer, so the message goes to a
// thread-local buffer first; every helper clears it on entry and copies it
// into its gl_ctx before returning, all on the same OS thread.
static __thread char gl_tls_msg[256];

static void gl_handler(int status, const char *file, int line, const char *message) {
	if (gl_tls_msg[0] == 0) {
		snprintf(gl_tls_msg, sizeof gl_tls_msg, "%s (status %d at %s:%d)",
			message ? message : "", status, file ? file : "?", line);
	}
}

static void gl_begin(void) { gl_tls_msg[0] = 0; }

static void gl_end(gl_ctx *ctx) { memcpy(ctx->msg, gl_tls_msg, sizeof ctx->msg); }

// gl_config applies the package's fixed parameters on top of CHOLMOD's
// defaults: silent, LL' in both simplicial and supernodal form (an LDL'
// simplicial factor would accept indefinite matrices), quick failure on a
// non-positive pivot.
static void gl_config(gl_ctx *ctx) {
	cholmod_common *c = &ctx->c;
	c->print = 0;
	c->error_handler = gl_handler;
	c->supernodal = CHOLMOD_SUPERNODAL;
	c->final_ll = 1;
	c->quick_return_if_not_posdef = 1;
	c->useGPU = 0;
}

static gl_ctx *gl_new(void) {
	gl_ctx *ctx = calloc(1, sizeof *ctx);
	if (ctx == NULL) {
		return NULL;
	}
	gl_begin();
	if (!cholmod_l_start(&ctx->c) || ctx->c.itype != CHOLMOD_LONG) {
		free(ctx);
		return NULL;
	}
	gl_config(ctx);
	gl_end(ctx);
	return ctx;
}

static void gl_free(gl_ctx *ctx) {
	gl_begin();
	cholmod_l_free_dense(&ctx->X, &ctx->c);
	cholmod_l_free_dense(&ctx->Y, &ctx->c);
	cholmod_l_free_dense(&ctx->E, &ctx->c);
	cholmod_l_finish(&ctx->c);
	free(ctx);
}

static cholmod_sparse *gl_alloc_lower(gl_ctx *ctx, size_t n, size_t nnz) {
	gl_begin();
	cholmod_sparse *A = cholmod_l_allocate_sparse(n, n, nnz, 1, 1, -1, CHOLMOD_REAL, &ctx->c);
	gl_end(ctx);
	return A;
}

static void gl_free_sparse(gl_ctx *ctx, cholmod_sparse *A) {
	gl_begin();
	cholmod_l_free_sparse(&A, &ctx->c);
	gl_end(ctx);
}

// gl_analyze orders A with nmethods methods (the first one ordering; perm
// is the pivot order for CHOLMOD_GIVEN, else NULL) and computes its
// symbolic factorisation. A natural or given order is kept as it is: no
// postorder.
static cholmod_factor *gl_analyze(gl_ctx *ctx, cholmod_sparse *A, int nmethods, int ordering, int supernodal, SuiteSparse_long *perm) {
	cholmod_common *c = &ctx->c;
	gl_begin();
	cholmod_l_defaults(c);
	gl_config(ctx);
	c->supernodal = supernodal;
	c->nmethods = nmethods;
	c->postorder = 1;
	if (nmethods == 1) {
		c->method[0].ordering = ordering;
		c->postorder = ordering != CHOLMOD_NATURAL && ordering != CHOLMOD_GIVEN;
	}
	cholmod_factor *L = cholmod_l_analyze_p(A, perm, NULL, 0, c);
	gl_end(ctx);
	return L;
}

// The OpenMP runtime's calls that gl_factorize needs, looked up at run
// time: a CHOLMOD built without OpenMP links no runtime, and then there is
// nothing to set.
typedef int (*gl_get_levels_fn)(void);
typedef void (*gl_set_levels_fn)(int);

// gl_factorize runs cholmod_l_factorize with no active OpenMP parallel
// region (doc.go, "Threads"): it sets the calling thread's
// max-active-levels-var to 0 and restores it before it returns.
static int gl_factorize(gl_ctx *ctx, cholmod_sparse *A, cholmod_factor *L) {
	gl_get_levels_fn get = (gl_get_levels_fn) dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
	gl_set_levels_fn set = (gl_set_levels_fn) dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
	int levels = 0;
	if (get != NULL && set != NULL) {
		levels = get();
		set(0);
	}
	gl_begin();
	int ok = cholmod_l_factorize(A, L, &ctx->c);
	gl_end(ctx);
	if (get != NULL && set != NULL) {
		set(levels);
	}
	if (!ok && ctx->c.status == CHOLMOD_OK) {
		ctx->c.status = CHOLMOD_INVALID;
	}
	return ctx->c.status;
}

// gl_omp_levels returns the calling thread's max-active-levels-var, or -1
// without an OpenMP runtime in the process.
static int gl_omp_levels(void) {
	gl_get_levels_fn get = (gl_get_levels_fn) dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
	return get != NULL ? get() : -1;
}

static void gl_free_factor(gl_ctx *ctx, cholmod_factor *L) {
	gl_begin();
	cholmod_l_free_factor(&L, &ctx->c);
	gl_end(ctx);
}

// gl_solve solves A X = B for an n x cols block b (column-major) with the
// workspaces of ws and copies X into dst. b and dst are Go memory used only
// for the duration of this call: the header of B lives on this stack frame.
static int gl_solve(gl_ctx *ws, cholmod_factor *L, double *b, double *dst, size_t n, size_t cols) {
	cholmod_dense B = {.nrow = n, .ncol = cols, .nzmax = n * cols, .d = n, .x = b,
		.xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
	gl_begin();
	ws->c.status = CHOLMOD_OK;
	int ok = cholmod_l_solve2(CHOLMOD_A, L, &B, NULL, &ws->X, NULL, &ws->Y, &ws->E, &ws->c);
	if (ok && ws->X != NULL && ws->X->nrow == n && ws->X->ncol == cols) {
		const double *x = ws->X->x;
		for (size_t k = 0; k < cols; k++) {
			memcpy(dst + k * n, x + k * ws->X->d, n * sizeof(double));
		}
	} else if (ws->c.status == CHOLMOD_OK) {
		ws->c.status = CHOLMOD_INVALID;
	}
	gl_end(ws);
	return ws->c.status;
}

// gl_simplicial_copy returns a packed, monotonic simplicial LL' copy of L.
static cholmod_factor *gl_simplicial_copy(gl_ctx *ctx, cholmod_factor *L) {
	gl_begin();
	cholmod_factor *S = cholmod_l_copy_factor(L, &ctx->c);
	if (S != NULL && !cholmod_l_change_factor(CHOLMOD_REAL, 1, 0, 1, 1, S, &ctx->c)) {
		cholmod_l_free_factor(&S, &ctx->c);
	}
	gl_end(ctx);
	return S;
}

static int gl_version(void) {
	int v[3] = {0, 0, 0};
	cholmod_l_version(v);
	return v[0] * 10000 + v[1] * 100 + v[2];
}

typedef void (*gl_set_threads_fn)(int);
typedef int (*gl_get_threads_fn)(void);

// OpenBLAS is looked up at run time, so the package links and runs with any
// BLAS; the functions are used only when OpenBLAS is the BLAS in the process.
static int gl_blas_set_threads(int n) {
	gl_set_threads_fn f = (gl_set_threads_fn) dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
	if (f != NULL) {
		f(n);
	}
	return f != NULL;
}

static int gl_blas_get_threads(void) {
	gl_get_threads_fn f = (gl_get_threads_fn) dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
	return f != NULL ? f() : 0;
}

typedef char *(*gl_string_fn)(void);

// The static string OpenBLAS's function name returns (openblas_get_corename,
// openblas_get_config), or NULL without OpenBLAS.
static const char *gl_blas_string(const char *name) {
	gl_string_fn f = (gl_string_fn) dlsym(RTLD_DEFAULT, name);
	return f != NULL ? f() : NULL;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gmlg/gmlg/kernel/factor"
)

type (
	cCtx    = C.gl_ctx
	cSparse = C.cholmod_sparse
	cFactor = C.cholmod_factor
)

// Version is the CHOLMOD library version found at run time, e.g. "3.0.14".
var Version string

func init() {
	var l C.SuiteSparse_long
	if unsafe.Sizeof(l) != 8 {
		panic(fmt.Sprintf("cholmod: SuiteSparse_long is %d bytes, the package needs the 64-bit cholmod_l_* interface", unsafe.Sizeof(l)))
	}
	v := int(C.gl_version())
	Version = fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
	if v/10000 != C.CHOLMOD_MAIN_VERSION {
		panic(fmt.Sprintf("cholmod: library version %s does not match header major version %d", Version, C.CHOLMOD_MAIN_VERSION))
	}
}

// method is CHOLMOD's nmethods and method[0].ordering for an analysis.
type method struct{ n, ordering int }

// methods maps each Ordering but OrderDefault to its CHOLMOD method.
var methods = map[Ordering]method{
	OrderNatural: {1, C.CHOLMOD_NATURAL},
	OrderAMD:     {1, C.CHOLMOD_AMD},
	OrderMETIS:   {1, C.CHOLMOD_METIS},
	OrderNESDIS:  {1, C.CHOLMOD_NESDIS},
	OrderCHOLMOD: {0, 0},
	OrderBest:    {C.CHOLMOD_MAXMETHODS, 0},
}

// givenMethod analyses in the caller's pivot order.
var givenMethod = method{1, C.CHOLMOD_GIVEN}

// modes maps each Mode to CHOLMOD's Common->supernodal value.
var modes = map[Mode]int{Supernodal: C.CHOLMOD_SUPERNODAL, Simplicial: C.CHOLMOD_SIMPLICIAL, Auto: C.CHOLMOD_AUTO}

// statusErrs maps CHOLMOD's failure statuses to the package's errors;
// any other status is ErrUnknownStatus.
var statusErrs = map[int]error{
	C.CHOLMOD_NOT_INSTALLED: ErrNotInstalled,
	C.CHOLMOD_OUT_OF_MEMORY: ErrOutOfMemory,
	C.CHOLMOD_TOO_LARGE:     ErrTooLarge,
	C.CHOLMOD_INVALID:       ErrInvalid,
	C.CHOLMOD_GPU_PROBLEM:   ErrGPUProblem,
	C.CHOLMOD_DSMALL:        ErrDSmall,
}

// check maps the status CHOLMOD left in ctx after the operation op into a Go
// error. It is the one place where C status codes become errors. L, when
// non-nil, is the factor of a failed factorisation and supplies the column of
// a non-positive pivot.
func check(ctx *cCtx, op string, L *cFactor) error {
	st := int(ctx.c.status)
	if st == C.CHOLMOD_OK {
		return nil
	}
	if st == C.CHOLMOD_NOT_POSDEF {
		col := -1
		if L != nil {
			col = originalColumn(L)
		}
		return &factor.NotPosDefError{Backend: "cholmod", Column: col}
	}
	base, ok := statusErrs[st]
	if !ok {
		base = ErrUnknownStatus
	}
	return &StatusError{Op: op, Status: st, Message: C.GoString(&ctx.msg[0]), err: base}
}

// failed is the error of a helper that returned NULL: CHOLMOD's status, or
// ErrOutOfMemory when it left none (a failed malloc of the helper itself).
func failed(ctx *cCtx, op string) error {
	if err := check(ctx, op, nil); err != nil {
		return err
	}
	return fmt.Errorf("cholmod: %s: %w", op, ErrOutOfMemory)
}

func newCtx() *cCtx { return C.gl_new() }

func freeCtx(ctx *cCtx) { C.gl_free(ctx) }

// allocLower allocates an n×n symmetric (lower, stype -1) real CSC matrix with
// room for nnz entries and returns Go views of its p, i and x arrays.
func allocLower(ctx *cCtx, n, nnz int) (a *cSparse, p, i []int64, x []float64, err error) {
	a = C.gl_alloc_lower(ctx, C.size_t(n), C.size_t(nnz))
	if a == nil {
		return nil, nil, nil, nil, failed(ctx, "allocate sparse")
	}
	p = unsafe.Slice((*int64)(a.p), n+1)
	if nnz > 0 {
		i = unsafe.Slice((*int64)(a.i), nnz)
		x = unsafe.Slice((*float64)(a.x), nnz)
	}
	return a, p, i, x, nil
}

func freeSparse(ctx *cCtx, a *cSparse) { C.gl_free_sparse(ctx, a) }

// analyze runs cholmod_l_analyze_p with method m; perm is the pivot order
// for givenMethod (n entries), nil otherwise.
func analyze(ctx *cCtx, a *cSparse, m method, supernodal int, perm []int64, op string) (*cFactor, error) {
	var p *C.SuiteSparse_long
	if perm != nil {
		p = (*C.SuiteSparse_long)(unsafe.Pointer(&perm[0]))
	}
	L := C.gl_analyze(ctx, a, C.int(m.n), C.int(m.ordering), C.int(supernodal), p)
	if L == nil {
		return nil, failed(ctx, op)
	}
	return L, nil
}

func factorize(ctx *cCtx, a *cSparse, L *cFactor) error {
	C.gl_factorize(ctx, a, L)
	return check(ctx, "factorize", L)
}

func freeFactor(ctx *cCtx, L *cFactor) { C.gl_free_factor(ctx, L) }

// ompMaxActiveLevels returns the calling OS thread's OpenMP
// max-active-levels-var (which factorize sets to 0 for the length of the
// call), or -1 without an OpenMP runtime in the process.
func ompMaxActiveLevels() int { return int(C.gl_omp_levels()) }

// solve runs one cholmod_solve2 on the n×cols block b with the workspaces of
// ws and writes X into dst. The caller has checked the lengths.
func solve(ws *cCtx, L *cFactor, dst, b []float64, n, cols int) error {
	C.gl_solve(ws, L, (*C.double)(unsafe.Pointer(&b[0])), (*C.double)(unsafe.Pointer(&dst[0])), C.size_t(n), C.size_t(cols))
	return check(ws, "solve", nil)
}

// exportSimplicial copies L into a packed simplicial LL' factor and returns
// Go copies of its CSC arrays and permutation.
func exportSimplicial(ctx *cCtx, L *cFactor) (colPtr, rowIdx []int, values []float64, perm []int, err error) {
	S := C.gl_simplicial_copy(ctx, L)
	if S == nil {
		return nil, nil, nil, nil, failed(ctx, "export factor")
	}
	defer C.gl_free_factor(ctx, S)
	n := int(S.n)
	p := unsafe.Slice((*int64)(S.p), n)
	nz := unsafe.Slice((*int64)(S.nz), n)
	colPtr = make([]int, n+1)
	for j := 0; j < n; j++ {
		colPtr[j+1] = colPtr[j] + int(nz[j])
	}
	nnz := colPtr[n]
	rowIdx = make([]int, nnz)
	values = make([]float64, nnz)
	if nnz > 0 {
		si := unsafe.Slice((*int64)(S.i), int(S.nzmax))
		sx := unsafe.Slice((*float64)(S.x), int(S.nzmax))
		for j := range n {
			off := int(p[j]) - colPtr[j] // column j starts at p[j] in S
			for k := colPtr[j]; k < colPtr[j+1]; k++ {
				rowIdx[k], values[k] = int(si[k+off]), sx[k+off]
			}
		}
	}
	return colPtr, rowIdx, values, factorPerm(S), nil
}

func blasSetThreads(n int) bool { return C.gl_blas_set_threads(C.int(n)) != 0 }

func blasThreads() int { return int(C.gl_blas_get_threads()) }

func blasCore() string { return blasString("openblas_get_corename") }

func blasConfig() string { return blasString("openblas_get_config") }

// blasString returns the string of OpenBLAS's function name, or "" without
// OpenBLAS.
func blasString(name string) string {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	if c := C.gl_blas_string(cs); c != nil {
		return C.GoString(c)
	}
	return ""
}
