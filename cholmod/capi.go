//go:build cgo

package cholmod

// This file holds the package's C helpers, in the preamble, and the thin Go
// wrappers that call them; factorview.go reads the fields of CHOLMOD's
// factors, and cgoflags.go has the build flags. The other files of the
// cgo build work with the Go types declared here (cCtx, cSparse, cFactor)
// and with Go slices viewing CHOLMOD-allocated memory; stub.go replaces
// all of them in a build without cgo.
//
// Index width: the package uses the cholmod_l_* interface, whose integers are
// SuiteSparse_long (64 bits on every supported platform). init asserts that
// width, so Go int64 slices can view CHOLMOD's integer arrays directly.

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

// Orderings understood by gl_analyze (the Go Ordering values, and GL_GIVEN
// for a caller's permutation).
enum { GL_NATURAL = 1, GL_AMD, GL_METIS, GL_NESDIS, GL_CHOLMOD, GL_BEST, GL_GIVEN };

// CHOLMOD's error handler has no user pointer, so the message goes to a
// thread-local buffer first; every helper clears it on entry and copies it
// into its gl_ctx before returning, all on the same OS thread.
static __thread char gl_tls_msg[256];

static void gl_handler(int status, const char *file, int line, const char *message) {
	if (gl_tls_msg[0] != 0) {
		return;
	}
	snprintf(gl_tls_msg, sizeof gl_tls_msg, "%s (status %d at %s:%d)",
		message ? message : "", status, file ? file : "?", line);
}

static void gl_begin(void) { gl_tls_msg[0] = 0; }

static void gl_end(gl_ctx *ctx) {
	if (gl_tls_msg[0] != 0) {
		memcpy(ctx->msg, gl_tls_msg, sizeof ctx->msg);
	} else {
		ctx->msg[0] = 0;
	}
}

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

// gl_analyze orders A (perm: the pivot order for GL_GIVEN, NULL otherwise)
// and computes its symbolic factorisation. A given order is kept as it is:
// no postorder.
static cholmod_factor *gl_analyze(gl_ctx *ctx, cholmod_sparse *A, int ordering, int supernodal, SuiteSparse_long *perm) {
	cholmod_common *c = &ctx->c;
	gl_begin();
	cholmod_l_defaults(c);
	gl_config(ctx);
	c->supernodal = supernodal;
	c->postorder = 1;
	switch (ordering) {
	case GL_NATURAL:
		c->nmethods = 1;
		c->method[0].ordering = CHOLMOD_NATURAL;
		c->postorder = 0;
		break;
	case GL_AMD:
		c->nmethods = 1;
		c->method[0].ordering = CHOLMOD_AMD;
		break;
	case GL_METIS:
		c->nmethods = 1;
		c->method[0].ordering = CHOLMOD_METIS;
		break;
	case GL_NESDIS:
		c->nmethods = 1;
		c->method[0].ordering = CHOLMOD_NESDIS;
		break;
	case GL_CHOLMOD:
		c->nmethods = 0;
		break;
	case GL_BEST:
		c->nmethods = CHOLMOD_MAXMETHODS;
		break;
	case GL_GIVEN:
		c->nmethods = 1;
		c->method[0].ordering = CHOLMOD_GIVEN;
		c->postorder = 0;
		break;
	default:
		c->status = CHOLMOD_INVALID;
		snprintf(ctx->msg, sizeof ctx->msg, "unknown ordering %d", ordering);
		return NULL;
	}
	cholmod_factor *L = cholmod_l_analyze_p(A, ordering == GL_GIVEN ? perm : NULL, NULL, 0, c);
	gl_end(ctx);
	return L;
}

// The OpenMP runtime's calls that gl_factorize needs, looked up at run
// time: a CHOLMOD built without OpenMP links no runtime, and then there is
// nothing to set.
typedef int (*gl_get_levels_fn)(void);
typedef void (*gl_set_levels_fn)(int);

// gl_factorize runs cholmod_l_factorize with no active OpenMP parallel
// region: CHOLMOD's supernodal factorisation opens one for the assembly
// of every large supernode (on a team of CHOLMOD_OMP_NUM_THREADS), and on
// the heat systems waking and parking that team cost more than the loops
// it shares. The setting (max-active-levels-var) belongs to the calling
// thread's OpenMP data environment, and is restored before the call
// returns, on the same thread. The loops it serialises write disjoint
// entries, so the factor is the same either way.
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
	cholmod_dense B;
	memset(&B, 0, sizeof B);
	B.nrow = n;
	B.ncol = cols;
	B.nzmax = n * cols;
	B.d = n;
	B.x = b;
	B.xtype = CHOLMOD_REAL;
	B.dtype = CHOLMOD_DOUBLE;
	gl_begin();
	ws->c.status = CHOLMOD_OK;
	int ok = cholmod_l_solve2(CHOLMOD_A, L, &B, NULL, &ws->X, NULL, &ws->Y, &ws->E, &ws->c);
	if (ok && ws->X != NULL && ws->X->nrow == n && ws->X->ncol == cols) {
		const double *x = ws->X->x;
		size_t d = ws->X->d;
		if (d == n) {
			memcpy(dst, x, n * cols * sizeof(double));
		} else {
			for (size_t k = 0; k < cols; k++) {
				memcpy(dst + k * n, x + k * d, n * sizeof(double));
			}
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
	if (f == NULL) {
		return 0;
	}
	f(n);
	return 1;
}

static int gl_blas_get_threads(void) {
	gl_get_threads_fn f = (gl_get_threads_fn) dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
	if (f == NULL) {
		return 0;
	}
	return f();
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

// Internal ordering codes shared with the C helpers.
const (
	cNatural = C.GL_NATURAL
	cAMD     = C.GL_AMD
	cMETIS   = C.GL_METIS
	cNESDIS  = C.GL_NESDIS
	cCHOLMOD = C.GL_CHOLMOD
	cBest    = C.GL_BEST
	cGiven   = C.GL_GIVEN
)

// code returns the helpers' ordering code for o, resolving OrderDefault.
func (o Ordering) code() (int, error) {
	switch o {
	case OrderDefault:
		return DefaultOrdering.code()
	case OrderNatural:
		return cNatural, nil
	case OrderAMD:
		return cAMD, nil
	case OrderMETIS:
		return cMETIS, nil
	case OrderNESDIS:
		return cNESDIS, nil
	case OrderCHOLMOD:
		return cCHOLMOD, nil
	case OrderBest:
		return cBest, nil
	}
	return 0, fmt.Errorf("cholmod: unknown ordering %d", int(o))
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
	var base error
	switch st {
	case C.CHOLMOD_NOT_INSTALLED:
		base = ErrNotInstalled
	case C.CHOLMOD_OUT_OF_MEMORY:
		base = ErrOutOfMemory
	case C.CHOLMOD_TOO_LARGE:
		base = ErrTooLarge
	case C.CHOLMOD_INVALID:
		base = ErrInvalid
	case C.CHOLMOD_GPU_PROBLEM:
		base = ErrGPUProblem
	case C.CHOLMOD_DSMALL:
		base = ErrDSmall
	default:
		base = ErrUnknownStatus
	}
	return &StatusError{Op: op, Status: st, Message: C.GoString(&ctx.msg[0]), err: base}
}

func newCtx() *cCtx { return C.gl_new() }

func freeCtx(ctx *cCtx) { C.gl_free(ctx) }

// allocLower allocates an n×n symmetric (lower, stype -1) real CSC matrix with
// room for nnz entries and returns Go views of its p, i and x arrays.
func allocLower(ctx *cCtx, n, nnz int) (a *cSparse, p, i []int64, x []float64, err error) {
	a = C.gl_alloc_lower(ctx, C.size_t(n), C.size_t(nnz))
	if a == nil {
		if err = check(ctx, "allocate sparse", nil); err == nil {
			err = fmt.Errorf("cholmod: allocate sparse: %w", ErrOutOfMemory)
		}
		return nil, nil, nil, nil, err
	}
	p = unsafe.Slice((*int64)(a.p), n+1)
	if nnz > 0 {
		i = unsafe.Slice((*int64)(a.i), nnz)
		x = unsafe.Slice((*float64)(a.x), nnz)
	}
	return a, p, i, x, nil
}

func freeSparse(ctx *cCtx, a *cSparse) { C.gl_free_sparse(ctx, a) }

// analyze runs cholmod_l_analyze_p; perm is the pivot order for cGiven
// (n entries), nil otherwise.
func analyze(ctx *cCtx, a *cSparse, ordering, supernodal int, perm []int64, op string) (*cFactor, error) {
	var p *C.SuiteSparse_long
	if ordering == cGiven {
		p = (*C.SuiteSparse_long)(unsafe.Pointer(&perm[0]))
	}
	L := C.gl_analyze(ctx, a, C.int(ordering), C.int(supernodal), p)
	if L == nil {
		if err := check(ctx, op, nil); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("cholmod: %s: %w", op, ErrOutOfMemory)
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

// Values for the Common->supernodal parameter.
const (
	cSimplicial = C.CHOLMOD_SIMPLICIAL
	cAuto       = C.CHOLMOD_AUTO
	cSupernodal = C.CHOLMOD_SUPERNODAL
)

// code returns CHOLMOD's Common->supernodal value.
func (m Mode) code() (int, error) {
	switch m {
	case Supernodal:
		return cSupernodal, nil
	case Simplicial:
		return cSimplicial, nil
	case Auto:
		return cAuto, nil
	}
	return 0, fmt.Errorf("cholmod: unknown mode %d", int(m))
}

// exportSimplicial copies L into a packed simplicial LL' factor and returns
// Go copies of its CSC arrays and permutation.
func exportSimplicial(ctx *cCtx, L *cFactor) (colPtr, rowIdx []int, values []float64, perm []int, err error) {
	S := C.gl_simplicial_copy(ctx, L)
	if S == nil {
		if err = check(ctx, "export factor", nil); err == nil {
			err = fmt.Errorf("cholmod: export factor: %w", ErrOutOfMemory)
		}
		return nil, nil, nil, nil, err
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
		for j := 0; j < n; j++ {
			src := int(p[j])
			for k := colPtr[j]; k < colPtr[j+1]; k++ {
				rowIdx[k] = int(si[src])
				values[k] = sx[src]
				src++
			}
		}
	}
	return colPtr, rowIdx, values, factorPerm(S), nil
}

func blasSetThreads(n int) bool { return C.gl_blas_set_threads(C.int(n)) != 0 }

func blasThreads() int { return int(C.gl_blas_get_threads()) }
