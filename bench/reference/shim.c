/*
 * A stand-in for scikit-sparse's cholmod.cholesky(...).solve_A, which Debian
 * does not package. It is used only by run.sh, to time the authors' reference
 * implementation on the machine gmlg is measured on; it is not part of gmlg.
 *
 * Like scikit-sparse it factors with CHOLMOD (same ordering request, CHOLMOD's
 * default supernodal switch) and solves each call's whole right-hand side with
 * one cholmod_solve2; the solution is written straight into the caller's array,
 * and CHOLMOD's solve workspace is allocated per call, as cholmod_solve does.
 */
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cholmod.h>

typedef struct {
	cholmod_common c;
	cholmod_factor *L;
	int n;
} shim_factor;

/* shim_new factors the n×n matrix whose lower triangle is the CSC (p, i, x). */
void *shim_new(int n, int *p, int *i, double *x, int metis)
{
	shim_factor *f = calloc(1, sizeof *f);
	cholmod_sparse A = {0};

	if (f == NULL)
		return NULL;
	cholmod_start(&f->c);
	if (metis) {
		f->c.nmethods = 1;
		f->c.method[0].ordering = CHOLMOD_METIS;
		f->c.postorder = 1;
	}
	A.nrow = n;
	A.ncol = n;
	A.nzmax = p[n];
	A.p = p;
	A.i = i;
	A.x = x;
	A.stype = -1;
	A.itype = CHOLMOD_INT;
	A.xtype = CHOLMOD_REAL;
	A.dtype = CHOLMOD_DOUBLE;
	A.sorted = 1;
	A.packed = 1;
	f->n = n;
	f->L = cholmod_analyze(&A, &f->c);
	if (f->L != NULL)
		cholmod_factorize(&A, f->L, &f->c);
	return f;
}

/* shim_status is CHOLMOD's status after the last call (0 when all went well). */
int shim_status(void *h)
{
	shim_factor *f = h;

	if (f->L == NULL && f->c.status == 0)
		return -1;
	return f->c.status;
}

/* shim_solve solves A X = B for the n×ncol column-major B into x. */
int shim_solve(void *h, double *b, double *x, int ncol)
{
	shim_factor *f = h;
	cholmod_dense B = {0}, Xw;
	cholmod_dense *X = &Xw, *Y = NULL, *E = NULL;
	int ok;

	B.nrow = f->n;
	B.ncol = ncol;
	B.nzmax = (size_t)f->n * ncol;
	B.d = f->n;
	B.x = b;
	B.xtype = CHOLMOD_REAL;
	B.dtype = CHOLMOD_DOUBLE;
	Xw = B;
	Xw.x = x;
	ok = cholmod_solve2(CHOLMOD_A, f->L, &B, NULL, &X, NULL, &Y, &E, &f->c);
	if (ok && X != &Xw) {
		/* CHOLMOD chose to reallocate X: copy its solution back. */
		memcpy(x, X->x, sizeof(double) * f->n * ncol);
		cholmod_free_dense(&X, &f->c);
	}
	cholmod_free_dense(&Y, &f->c);
	cholmod_free_dense(&E, &f->c);
	return ok ? f->c.status : -1;
}

void shim_free(void *h)
{
	shim_factor *f = h;

	cholmod_free_factor(&f->L, &f->c);
	cholmod_finish(&f->c);
	free(f);
}
