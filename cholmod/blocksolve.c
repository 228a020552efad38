// gmlg's block triangular solves on CHOLMOD's factor (see blocksolve.h).
//
// cholmod_solve2 solves a column-major block one supernode (or column) at a
// time, with the right-hand sides as the slow index. For the heat kernel's
// blocks of 8 to 32 columns it is faster to interleave them: the workspace
// holds row k of the permuted block as cw consecutive doubles (cw = the
// column count rounded up to a multiple of 4), so that every factor entry
// updates one short contiguous vector, which the compiler turns into a few
// SIMD fused multiply-adds. Supernodes are used as the factor stores them,
// several columns at a time: each row below a block of 4 or 8 columns is
// read (and, forward, written) once for the block. The workspace is 64-byte
// aligned, and the diagonal's reciprocals are computed once per call, so
// that the solves multiply instead of divide.
//
// The functions are specialised for each width (4, 8, ..., 32) so that the
// row vectors live in registers, and compiled for AVX-512, AVX2 and baseline
// x86-64 (GCC picks one at load time).

#include "blocksolve.h"

#define GL_MAXW 32

typedef SuiteSparse_long gl_int;

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GL_CLONES
#endif

#define GL_INLINE static inline __attribute__((always_inline))

// The workspace: n rows of up to GL_MAXW interleaved columns, the
// reciprocals of L's diagonal (n doubles), then the inverse permutation (n
// gl_int, rounded up to whole doubles).
size_t gl_bsolve_workspace(size_t n) {
	return n * GL_MAXW + n + (n * sizeof(gl_int) + sizeof(double) - 1) / sizeof(double);
}

int gl_bsolve_supported(const cholmod_factor *L) {
	return L != NULL && L->is_ll && L->xtype == CHOLMOD_REAL && L->dtype == CHOLMOD_DOUBLE &&
	       L->x != NULL && (L->is_super ? L->super != NULL : (L->p != NULL && L->nz != NULL));
}

// A row of the workspace (cw = 4*nv doubles) is held as nv/2 vectors of 8
// doubles when nv is even and as nv vectors of 4 when it is odd (GCC vector
// extensions, unaligned): 512-bit registers where the processor has them,
// two 256-bit ones (or four 128-bit ones) otherwise. Rows of an even nv are
// whole cache lines; those of an odd nv (96, 160, ... bytes) start mid-line
// every other row, where 8-wide accesses would straddle two lines (4-wide
// ones never do): on 2-D grids, 12- and 20-column solves ran 20-25% faster
// with quads than with 8-wide vectors and a trailing quad.
// With nv a compile-time constant the loops unroll
// and the rows stay in registers, and since every update reads its
// multiplier row from registers, no aliasing check (and no scalar fallback)
// is needed.
typedef double v4 __attribute__((vector_size(32), aligned(8)));
typedef double v8 __attribute__((vector_size(64), aligned(8)));

typedef struct {
	v8 h[GL_MAXW / 8];
	v4 q[GL_MAXW / 4];
} vrow;

#define ODD(nv) ((nv) & 1)

GL_INLINE void vload(vrow *restrict a, const double *p, const int nv) {
	if (ODD(nv)) {
		for (int v = 0; v < nv; v++) a->q[v] = *(const v4 *) (p + 4 * v);
	} else {
		for (int v = 0; v < nv / 2; v++) a->h[v] = *(const v8 *) (p + 8 * v);
	}
}

GL_INLINE void vstore(double *p, const vrow *restrict a, const int nv) {
	if (ODD(nv)) {
		for (int v = 0; v < nv; v++) *(v4 *) (p + 4 * v) = a->q[v];
	} else {
		for (int v = 0; v < nv / 2; v++) *(v8 *) (p + 8 * v) = a->h[v];
	}
}

// row -= l * x, for a row in memory and x in registers.
GL_INLINE void vaxpy(double *row, const double l, const vrow *restrict x, const int nv) {
	if (ODD(nv)) {
		for (int v = 0; v < nv; v++) *(v4 *) (row + 4 * v) -= l * x->q[v];
	} else {
		for (int v = 0; v < nv / 2; v++) *(v8 *) (row + 8 * v) -= l * x->h[v];
	}
}

// acc -= l * row, for a row in memory and acc in registers.
GL_INLINE void vsubmul(vrow *restrict acc, const double l, const double *row, const int nv) {
	if (ODD(nv)) {
		for (int v = 0; v < nv; v++) acc->q[v] -= l * *(const v4 *) (row + 4 * v);
	} else {
		for (int v = 0; v < nv / 2; v++) acc->h[v] -= l * *(const v8 *) (row + 8 * v);
	}
}

// acc -= l * x, all in registers.
GL_INLINE void vsubmul_reg(vrow *restrict acc, const double l, const vrow *restrict x, const int nv) {
	if (ODD(nv)) {
		for (int v = 0; v < nv; v++) acc->q[v] -= l * x->q[v];
	} else {
		for (int v = 0; v < nv / 2; v++) acc->h[v] -= l * x->h[v];
	}
}

// a *= r: the solves multiply by the diagonal's reciprocal, computed once
// per call (a vector division costs as much as a dozen multiply-adds, and
// there is one per column of L and pass).
GL_INLINE void vscale(vrow *restrict a, const double r, const int nv) {
	if (ODD(nv)) {
		for (int v = 0; v < nv; v++) a->q[v] *= r;
	} else {
		for (int v = 0; v < nv / 2; v++) a->h[v] *= r;
	}
}

// Simplicial LL': column j holds Lx[Lp[j] .. Lp[j]+Lnz[j]), diagonal first.

GL_INLINE void fwd_simp(const cholmod_factor *L, const double *dinv, double *W, const int nv) {
	const gl_int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
	const double *Lx = L->x;
	const gl_int n = (gl_int) L->n;
	const int cw = 4 * nv;
	vrow x;
	for (gl_int j = 0; j < n; j++) {
		gl_int p = Lp[j];
		const gl_int pend = p + Lnz[j];
		vload(&x, W + j * cw, nv);
		vscale(&x, dinv[j], nv);
		vstore(W + j * cw, &x, nv);
		for (p++; p < pend; p++) {
			vaxpy(W + Li[p] * cw, Lx[p], &x, nv);
		}
	}
}

GL_INLINE void bwd_simp(const cholmod_factor *L, const double *dinv, double *W, const int nv) {
	const gl_int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
	const double *Lx = L->x;
	const gl_int n = (gl_int) L->n;
	const int cw = 4 * nv;
	vrow acc;
	for (gl_int j = n - 1; j >= 0; j--) {
		gl_int p = Lp[j];
		const gl_int pend = p + Lnz[j];
		vload(&acc, W + j * cw, nv);
		for (p++; p < pend; p++) {
			vsubmul(&acc, Lx[p], W + Li[p] * cw, nv);
		}
		vscale(&acc, dinv[j], nv);
		vstore(W + j * cw, &acc, nv);
	}
}

// Supernodal LL': supernode s covers columns super[s] .. super[s+1]-1; its
// row pattern is Ls[pi[s] .. pi[s+1]) (the supernode's own columns first, so
// that rows[ii] = super[s] + ii for ii < nscol) and its values the
// nsrow x nscol column-major block at Lx[px[s]].
//
// Both solves walk a supernode in blocks of jb columns (JB(nv), then single
// columns for the rest), keeping the block's jb row vectors in registers
// while streaming once over the rows below it: each of those rows is loaded
// (and, forward, stored) once per block instead of once per column, and the
// factor is read as jb contiguous column streams. Blocks of 8 while the
// block's rows take at most 16 of the 32 vector registers (up to 16
// right-hand sides; at 32³ a 16-column solve is 10-15% faster than with
// blocks of 4), else 4.

#define JBMAX 8
#define JB(nv) ((nv) <= 4 ? 8 : 4)

// fwd_block finishes columns j0 .. j0+jb-1 of one supernode (the triangle
// of the diagonal block among them) and subtracts their contribution from
// every row below.
GL_INLINE void fwd_block(const double *Lb, const gl_int nsrow, const gl_int *rows, const double *dinv,
                         double *W, const gl_int j0, const int jb, const int nv) {
	const int cw = 4 * nv;
	vrow x[JBMAX];
	const double *lc[JBMAX];
	for (int a = 0; a < jb; a++) {
		lc[a] = Lb + (j0 + a) * nsrow;
		double *xa = W + rows[j0 + a] * cw;
		vload(&x[a], xa, nv);
		for (int b = 0; b < a; b++) {
			vsubmul_reg(&x[a], lc[b][j0 + a], &x[b], nv);
		}
		vscale(&x[a], dinv[rows[j0 + a]], nv);
		vstore(xa, &x[a], nv);
	}
	vrow t;
	for (gl_int ii = j0 + jb; ii < nsrow; ii++) {
		double *r = W + rows[ii] * cw;
		vload(&t, r, nv);
		for (int a = 0; a < jb; a++) {
			vsubmul_reg(&t, lc[a][ii], &x[a], nv);
		}
		vstore(r, &t, nv);
	}
}

// bwd_block solves for columns j0 .. j0+jb-1 of one supernode, all rows
// below them being final.
GL_INLINE void bwd_block(const double *Lb, const gl_int nsrow, const gl_int *rows, const double *dinv,
                         double *W, const gl_int j0, const int jb, const int nv) {
	const int cw = 4 * nv;
	vrow acc[JBMAX];
	const double *lc[JBMAX];
	for (int a = 0; a < jb; a++) {
		lc[a] = Lb + (j0 + a) * nsrow;
		vload(&acc[a], W + rows[j0 + a] * cw, nv);
	}
	vrow t;
	for (gl_int ii = j0 + jb; ii < nsrow; ii++) {
		vload(&t, W + rows[ii] * cw, nv);
		for (int a = 0; a < jb; a++) {
			vsubmul_reg(&acc[a], lc[a][ii], &t, nv);
		}
	}
	for (int a = jb - 1; a >= 0; a--) {
		for (int b = a + 1; b < jb; b++) {
			vsubmul_reg(&acc[a], lc[a][j0 + b], &acc[b], nv);
		}
		vscale(&acc[a], dinv[rows[j0 + a]], nv);
		vstore(W + rows[j0 + a] * cw, &acc[a], nv);
	}
}

// snode is one supernode of L: its nscol columns, its nsrow row indices
// (rows[ii] = first column + ii for ii < nscol) and its values Lb.
typedef struct {
	gl_int nscol, nsrow;
	const gl_int *rows;
	const double *Lb;
} snode;

GL_INLINE snode supernode(const cholmod_factor *L, const gl_int s) {
	const gl_int *Super = L->super, *Lpi = L->pi, *Lpx = L->px;
	return (snode){
	    .nscol = Super[s + 1] - Super[s],
	    .nsrow = Lpi[s + 1] - Lpi[s],
	    .rows = (const gl_int *) L->s + Lpi[s],
	    .Lb = (const double *) L->x + Lpx[s],
	};
}

GL_INLINE void fwd_super(const cholmod_factor *L, const double *dinv, double *W, const int nv) {
	const gl_int nsuper = (gl_int) L->nsuper;
	for (gl_int s = 0; s < nsuper; s++) {
		const snode sn = supernode(L, s);
		gl_int j0 = 0;
		for (; j0 + JB(nv) <= sn.nscol; j0 += JB(nv)) {
			fwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j0, JB(nv), nv);
		}
		for (; j0 < sn.nscol; j0++) {
			fwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j0, 1, nv);
		}
	}
}

GL_INLINE void bwd_super(const cholmod_factor *L, const double *dinv, double *W, const int nv) {
	for (gl_int s = (gl_int) L->nsuper - 1; s >= 0; s--) {
		const snode sn = supernode(L, s);
		const gl_int nfull = sn.nscol - sn.nscol % JB(nv);
		for (gl_int j = sn.nscol - 1; j >= nfull; j--) {
			bwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j, 1, nv);
		}
		for (gl_int j0 = nfull - JB(nv); j0 >= 0; j0 -= JB(nv)) {
			bwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j0, JB(nv), nv);
		}
	}
}

GL_INLINE void solve_width(const cholmod_factor *L, const double *dinv, double *W, const int nv) {
	if (L->is_super) {
		fwd_super(L, dinv, W, nv);
		bwd_super(L, dinv, W, nv);
	} else {
		fwd_simp(L, dinv, W, nv);
		bwd_simp(L, dinv, W, nv);
	}
}

// solve_panel runs both triangular solves on the interleaved workspace, with
// the width known at compile time in each case.
GL_CLONES static void solve_panel(const cholmod_factor *L, const double *dinv, double *W, int cw) {
	switch (cw) {
	case 4: solve_width(L, dinv, W, 1); break;
	case 8: solve_width(L, dinv, W, 2); break;
	case 12: solve_width(L, dinv, W, 3); break;
	case 16: solve_width(L, dinv, W, 4); break;
	case 20: solve_width(L, dinv, W, 5); break;
	case 24: solve_width(L, dinv, W, 6); break;
	case 28: solve_width(L, dinv, W, 7); break;
	default: solve_width(L, dinv, W, 8); break;
	}
}

// gather copies columns c0 .. c0+pc-1 of the column-major block b into the
// workspace, row k of the workspace being row perm[k] of b, padded with
// zeros to cw columns. Column by column: the reads stay within one column
// of b (cache-resident), the writes walk down the workspace at a fixed
// stride.
static void gather(double *w, const double *b, const gl_int *perm, size_t n, size_t c0, size_t pc, size_t cw) {
	for (size_t c = 0; c < pc; c++) {
		const double *bc = b + (c0 + c) * n;
		double *wc = w + c;
		if (perm != NULL) {
			for (size_t k = 0; k < n; k++) {
				wc[k * cw] = bc[perm[k]];
			}
		} else {
			for (size_t k = 0; k < n; k++) {
				wc[k * cw] = bc[k];
			}
		}
	}
	for (size_t c = pc; c < cw; c++) {
		for (size_t k = 0; k < n; k++) {
			w[k * cw + c] = 0;
		}
	}
}

// scatter is the inverse of gather, walking the destination in order (row i
// of b is row iperm[i] of the workspace): the stores stream through each
// column, which matters when dst is not in cache (the chains of the heat
// kernel), while the reads stay in the cache-resident workspace.
static void scatter(double *dst, const double *w, const gl_int *iperm, size_t n, size_t c0, size_t pc, size_t cw) {
	for (size_t c = 0; c < pc; c++) {
		double *dc = dst + (c0 + c) * n;
		const double *wc = w + c;
		if (iperm != NULL) {
			for (size_t i = 0; i < n; i++) {
				dc[i] = wc[iperm[i] * cw];
			}
		} else {
			for (size_t i = 0; i < n; i++) {
				dc[i] = wc[i * cw];
			}
		}
	}
}

// diag_inverse writes 1/L(j,j) for every column j into dinv.
static void diag_inverse(const cholmod_factor *L, double *dinv) {
	if (L->is_super) {
		for (gl_int s = 0; s < (gl_int) L->nsuper; s++) {
			const snode sn = supernode(L, s);
			const gl_int first = sn.rows[0];
			for (gl_int a = 0; a < sn.nscol; a++) {
				dinv[first + a] = 1 / sn.Lb[a * sn.nsrow + a];
			}
		}
	} else {
		const gl_int *Lp = L->p;
		const double *Lx = L->x;
		for (size_t j = 0; j < L->n; j++) {
			dinv[j] = 1 / Lx[Lp[j]];
		}
	}
}

void gl_bsolve_steps(const cholmod_factor *L, const double *b, double *out, size_t cols, int steps, int keep,
                     int reverse, double *w) {
	const size_t n = L->n, nb = n * cols;
	const gl_int *perm = L->Perm;
	double *dinv = w + n * GL_MAXW;
	diag_inverse(L, dinv);
	gl_int *iperm = NULL;
	if (perm != NULL) {
		iperm = (gl_int *) (dinv + n);
		for (size_t k = 0; k < n; k++) {
			iperm[perm[k]] = (gl_int) k;
		}
	}
	for (size_t c0 = 0; c0 < cols; c0 += GL_MAXW) {
		size_t pc = cols - c0;
		if (pc > GL_MAXW) {
			pc = GL_MAXW;
		}
		const size_t cw = (pc + 3) & ~(size_t) 3;
		gather(w, b, perm, n, c0, pc, cw);
		for (int l = 1; l <= steps; l++) {
			solve_panel(L, dinv, w, (int) cw);
			if (keep) {
				const size_t blk = reverse ? (size_t) (steps - l) : (size_t) (l - 1);
				scatter(out + blk * nb, w, iperm, n, c0, pc, cw);
			}
		}
		if (!keep) {
			scatter(out, w, iperm, n, c0, pc, cw);
		}
	}
}

void gl_bsolve(const cholmod_factor *L, const double *b, double *dst, size_t cols, double *w) {
	gl_bsolve_steps(L, b, dst, cols, 1, 0, 0, w);
}
