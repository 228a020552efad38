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
// row vectors live in registers, and compiled for the x86-64-v4 (AVX-512)
// and x86-64-v3 (AVX2) levels and baseline x86-64 (GCC picks one at load
// time).

#include "blocksolve.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <limits.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define GL_MAXW 32

typedef SuiteSparse_long gl_int;

// The clones are whole ISA levels, not single extensions: "avx512f" alone
// (what these were built for before) lacks AVX512VL, so 256-bit vectors may
// only use 16 registers, and FMA, so every update is a multiply and a
// subtraction. The odd widths (12, 20, 28 columns, held as 256-bit quads)
// then spilled their rows to the stack and ran 1.5-2x slower than the next
// even width; as x86-64-v4 they run in proportion to their width (20
// columns: 1.8-2.2 ms per 5 steps on a 50x50 grid before, 0.8-1.1 ms now),
// and a 2-D evaluation of toydataF4 is 10-15% faster.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GL_CLONES
#endif

#define GL_INLINE static inline __attribute__((always_inline))


int gl_bsolve_supported(const cholmod_factor *L) {
	return L != NULL && L->is_ll && L->xtype == CHOLMOD_REAL && L->dtype == CHOLMOD_DOUBLE &&
	       L->x != NULL && (L->is_super ? L->super != NULL : (L->p != NULL && L->nz != NULL));
}

// A row of the workspace (cw = 4*nv doubles) is held as nv vectors of 4
// doubles (GCC vector extensions, unaligned loads): one 256-bit register
// each with AVX2, two 128-bit ones otherwise. Where the processor has
// AVX-512, the rows of an even nv are held as nv/2 vectors of 8 doubles
// instead (512-bit registers; the rows are whole cache lines), and those
// of an odd nv stay in quads: they start mid-line every other row, where
// 8-wide accesses would straddle two lines. Without AVX-512, GCC lowers
// 8-wide vectors to code far slower than quads (BENCHMARKS.md, "Threads
// and processors"), so the choice is made at run time (gl_wide): nv carries the flag
// GL_WIDE besides its count of quads (NQ). With nv a compile-time constant
// the loops unroll and the rows stay in registers, and since every update
// reads its multiplier row from registers, no aliasing check (and no
// scalar fallback) is needed.
typedef double v4 __attribute__((vector_size(32), aligned(8)));
typedef double v8 __attribute__((vector_size(64), aligned(8)));

typedef struct {
	v8 h[GL_MAXW / 8];
	v4 q[GL_MAXW / 4];
} vrow;

#define GL_WIDE 0x100
#define NQ(nv) ((nv) & 0xff)
#define QUADS(nv) (!((nv) & GL_WIDE) || ((nv) & 1))

GL_INLINE void vload(vrow *restrict a, const double *p, const int nv) {
	if (QUADS(nv)) {
		for (int v = 0; v < NQ(nv); v++) a->q[v] = *(const v4 *) (p + 4 * v);
	} else {
		for (int v = 0; v < NQ(nv) / 2; v++) a->h[v] = *(const v8 *) (p + 8 * v);
	}
}

GL_INLINE void vstore(double *p, const vrow *restrict a, const int nv) {
	if (QUADS(nv)) {
		for (int v = 0; v < NQ(nv); v++) *(v4 *) (p + 4 * v) = a->q[v];
	} else {
		for (int v = 0; v < NQ(nv) / 2; v++) *(v8 *) (p + 8 * v) = a->h[v];
	}
}

// row -= l * x, for a row in memory and x in registers.
GL_INLINE void vaxpy(double *row, const double l, const vrow *restrict x, const int nv) {
	if (QUADS(nv)) {
		for (int v = 0; v < NQ(nv); v++) *(v4 *) (row + 4 * v) -= l * x->q[v];
	} else {
		for (int v = 0; v < NQ(nv) / 2; v++) *(v8 *) (row + 8 * v) -= l * x->h[v];
	}
}

// acc -= l * row, for a row in memory and acc in registers.
GL_INLINE void vsubmul(vrow *restrict acc, const double l, const double *row, const int nv) {
	if (QUADS(nv)) {
		for (int v = 0; v < NQ(nv); v++) acc->q[v] -= l * *(const v4 *) (row + 4 * v);
	} else {
		for (int v = 0; v < NQ(nv) / 2; v++) acc->h[v] -= l * *(const v8 *) (row + 8 * v);
	}
}

// acc -= l * x, all in registers.
GL_INLINE void vsubmul_reg(vrow *restrict acc, const double l, const vrow *restrict x, const int nv) {
	if (QUADS(nv)) {
		for (int v = 0; v < NQ(nv); v++) acc->q[v] -= l * x->q[v];
	} else {
		for (int v = 0; v < NQ(nv) / 2; v++) acc->h[v] -= l * x->h[v];
	}
}

// a *= r: the solves multiply by the diagonal's reciprocal, computed once
// per call (a vector division costs as much as a dozen multiply-adds, and
// there is one per column of L and pass).
GL_INLINE void vscale(vrow *restrict a, const double r, const int nv) {
	if (QUADS(nv)) {
		for (int v = 0; v < NQ(nv); v++) a->q[v] *= r;
	} else {
		for (int v = 0; v < NQ(nv) / 2; v++) a->h[v] *= r;
	}
}

// Simplicial LL': column j holds Lx[Lp[j] .. Lp[j]+Lnz[j]), diagonal first.

// The forward solves take a part of the factor, columns (or supernodes)
// k0..k1-1, and send their updates of rows c2 and above to P (row i at
// P + (i-c2)*cw) instead of W; see gl_plan.

GL_INLINE void fwd_simp(const cholmod_factor *L, const double *dinv, double *W, const int nv, const gl_int k0,
                        const gl_int k1, const gl_int c2, double *P, const int32_t *off) {
	const gl_int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
	const double *Lx = L->x;
	const int cw = 4 * NQ(nv);
	vrow x;
	for (gl_int j = k0; j < k1; j++) {
		gl_int p = Lp[j];
		const gl_int pend = p + Lnz[j];
		vload(&x, W + j * cw, nv);
		vscale(&x, dinv[j], nv);
		vstore(W + j * cw, &x, nv);
		if (off != NULL) {
			// Each row's address from off (see gl_offs), where c2 and P
			// are already accounted for.
			for (p++; p < pend; p++) {
				vaxpy((double *) ((char *) W + off[p]), Lx[p], &x, nv);
			}
		} else {
			for (p++; p < pend; p++) {
				const gl_int i = Li[p];
				vaxpy(i < c2 ? W + i * cw : P + (i - c2) * cw, Lx[p], &x, nv);
			}
		}
	}
}

// The backward solves sum each column's products from its farthest row to
// its nearest. The nearest rows below column j (its elimination-tree
// parent, often j+1, and the rest of its supernode) are usually the ones
// solved just before it, so reading them last lets the sum of column j run
// while the previous column is still being finished, instead of waiting for
// it at the first term: in increasing row order the backward pass was one
// chain of dependent multiply-adds through every entry of L. 20 steps took
// up to 14% less time (2-9% typically, most at narrow widths, none
// measurably slower; 50², 100² and 16³, supernodal and simplicial, 4 to 32
// columns, old and new order alternating in one process). The forward
// solves already issue their nearest update first.

GL_INLINE void bwd_simp(const cholmod_factor *L, const double *dinv, double *W, const int nv, const gl_int k0,
                        const gl_int k1, double *D, const int32_t *off) {
	const gl_int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
	const double *Lx = L->x;
	const int cw = 4 * NQ(nv);
	vrow acc;
	for (gl_int j = k1 - 1; j >= k0; j--) {
		gl_int p = Lp[j];
		const gl_int pend = p + Lnz[j];
		vload(&acc, W + j * cw, nv);
		if (off != NULL) {
			for (gl_int q = pend - 1; q > p; q--) {
				vsubmul(&acc, Lx[q], (const double *) ((const char *) W + off[q]), nv);
			}
		} else {
			for (gl_int q = pend - 1; q > p; q--) {
				vsubmul(&acc, Lx[q], W + Li[q] * cw, nv);
			}
		}
		vscale(&acc, dinv[j], nv);
		vstore(W + j * cw, &acc, nv);
		if (D != NULL) {
			vstore(D + j * cw, &acc, nv);
		}
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
#define JB(nv) (NQ(nv) <= 4 ? 8 : 4)

// fwd_block finishes columns j0 .. j0+jb-1 of one supernode (the triangle
// of the diagonal block among them) and subtracts their contribution from
// every row below.
GL_INLINE void fwd_block(const double *Lb, const gl_int nsrow, const gl_int *rows, const double *dinv,
                         double *W, const gl_int j0, const int jb, const int nv, const gl_int c2, double *P) {
	const int cw = 4 * NQ(nv);
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
		const gl_int i = rows[ii];
		double *r = i < c2 ? W + i * cw : P + (i - c2) * cw;
		vload(&t, r, nv);
		for (int a = 0; a < jb; a++) {
			vsubmul_reg(&t, lc[a][ii], &x[a], nv);
		}
		vstore(r, &t, nv);
	}
}

// bwd_block solves for columns j0 .. j0+jb-1 of one supernode, all rows
// below them being final (read from the farthest, see bwd_simp).
GL_INLINE void bwd_block(const double *Lb, const gl_int nsrow, const gl_int *rows, const double *dinv,
                         double *W, const gl_int j0, const int jb, const int nv, double *D) {
	const int cw = 4 * NQ(nv);
	vrow acc[JBMAX];
	const double *lc[JBMAX];
	for (int a = 0; a < jb; a++) {
		lc[a] = Lb + (j0 + a) * nsrow;
		vload(&acc[a], W + rows[j0 + a] * cw, nv);
	}
	vrow t;
	for (gl_int ii = nsrow - 1; ii >= j0 + jb; ii--) {
		vload(&t, W + rows[ii] * cw, nv);
		for (int a = 0; a < jb; a++) {
			vsubmul_reg(&acc[a], lc[a][ii], &t, nv);
		}
	}
	for (int a = jb - 1; a >= 0; a--) {
		for (int b = jb - 1; b > a; b--) {
			vsubmul_reg(&acc[a], lc[a][j0 + b], &acc[b], nv);
		}
		vscale(&acc[a], dinv[rows[j0 + a]], nv);
		vstore(W + rows[j0 + a] * cw, &acc[a], nv);
		if (D != NULL) {
			vstore(D + rows[j0 + a] * cw, &acc[a], nv);
		}
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

GL_INLINE void fwd_super(const cholmod_factor *L, const double *dinv, double *W, const int nv, const gl_int k0,
                         const gl_int k1, const gl_int c2, double *P) {
	for (gl_int s = k0; s < k1; s++) {
		const snode sn = supernode(L, s);
		gl_int j0 = 0;
		for (; j0 + JB(nv) <= sn.nscol; j0 += JB(nv)) {
			fwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j0, JB(nv), nv, c2, P);
		}
		for (; j0 < sn.nscol; j0++) {
			fwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j0, 1, nv, c2, P);
		}
	}
}

GL_INLINE void bwd_super(const cholmod_factor *L, const double *dinv, double *W, const int nv, const gl_int k0,
                         const gl_int k1, double *D) {
	for (gl_int s = k1 - 1; s >= k0; s--) {
		const snode sn = supernode(L, s);
		const gl_int nfull = sn.nscol - sn.nscol % JB(nv);
		for (gl_int j = sn.nscol - 1; j >= nfull; j--) {
			bwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j, 1, nv, D);
		}
		for (gl_int j0 = nfull - JB(nv); j0 >= 0; j0 -= JB(nv)) {
			bwd_block(sn.Lb, sn.nsrow, sn.rows, dinv, W, j0, JB(nv), nv, D);
		}
	}
}

GL_INLINE void pass_width(const cholmod_factor *L, const double *dinv, double *W, const int nv, const int fwd,
                          const gl_int k0, const gl_int k1, const gl_int c2, double *P, const int32_t *off) {
	if (L->is_super) {
		if (fwd) {
			fwd_super(L, dinv, W, nv, k0, k1, c2, P);
		} else {
			bwd_super(L, dinv, W, nv, k0, k1, P);
		}
	} else if (fwd) {
		fwd_simp(L, dinv, W, nv, k0, k1, c2, P, off);
	} else {
		bwd_simp(L, dinv, W, nv, k0, k1, P, off);
	}
}

// gl_wide reports whether the processor has AVX-512 (F and VL), where the
// even widths use 8-wide vectors; it is computed once (a benign race: every
// thread computes the same value).
int gl_wide(void) {
	static _Atomic int wide = -1;
	int w = atomic_load_explicit(&wide, memory_order_relaxed);
	if (w < 0) {
#if defined(__GNUC__) && defined(__x86_64__)
		__builtin_cpu_init();
		w = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
		w = 0;
#endif
		atomic_store_explicit(&wide, w, memory_order_relaxed);
	}
	return w;
}

// solve_pass runs the forward (fwd) or backward triangular solve of the
// nodes k0..k1-1 on the interleaved workspace, with the width known at
// compile time in each case. Forward, P receives the updates of rows c2 and
// above (see gl_plan); backward, P (unless NULL) receives a copy of every
// row solved, as it is stored in W. off, for a simplicial factor, holds the
// byte offset from W of every entry's row (gl_offs), or is NULL.
// PASS_WIDTHS calls pass_width with the width cw as a compile-time count of
// quads, the even ones flagged with wide (GL_WIDE or 0).
#define PASS_WIDTHS(wide)                                                                                              \
	switch (cw) {                                                                                                  \
	case 4: pass_width(L, dinv, W, 1, fwd, k0, k1, c2, P, off); break;                                             \
	case 8: pass_width(L, dinv, W, 2 | (wide), fwd, k0, k1, c2, P, off); break;                                    \
	case 12: pass_width(L, dinv, W, 3, fwd, k0, k1, c2, P, off); break;                                            \
	case 16: pass_width(L, dinv, W, 4 | (wide), fwd, k0, k1, c2, P, off); break;                                   \
	case 20: pass_width(L, dinv, W, 5, fwd, k0, k1, c2, P, off); break;                                            \
	case 24: pass_width(L, dinv, W, 6 | (wide), fwd, k0, k1, c2, P, off); break;                                   \
	case 28: pass_width(L, dinv, W, 7, fwd, k0, k1, c2, P, off); break;                                            \
	default: pass_width(L, dinv, W, 8 | (wide), fwd, k0, k1, c2, P, off); break;                                   \
	}

GL_CLONES static void solve_pass(const cholmod_factor *L, const double *dinv, double *W, int cw, int fwd, gl_int k0,
                                 gl_int k1, gl_int c2, double *P, const int32_t *off) {
	if (gl_wide()) {
		PASS_WIDTHS(GL_WIDE)
	} else {
		PASS_WIDTHS(0)
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

// scatter is the inverse of gather for columns s0 .. s1-1 of the panel,
// walking the destination in order (row i of b is row iperm[i] of the
// workspace): the stores stream through each column, which matters when dst
// is not in cache (the chains of the heat kernel), while the reads stay in
// the cache-resident workspace.
static void scatter(double *dst, const double *w, const gl_int *iperm, size_t n, size_t c0, size_t s0, size_t s1,
                    size_t cw) {
	for (size_t c = s0; c < s1; c++) {
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

// invert_perm writes into iperm the inverse of perm (the identity when perm
// is NULL, CHOLMOD's natural ordering): row i of the original numbering is
// row iperm[i] of the permuted one.
static void invert_perm(const gl_int *perm, size_t n, gl_int *iperm) {
	for (size_t k = 0; k < n; k++) {
		iperm[perm != NULL ? (size_t) perm[k] : k] = (gl_int) k;
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

// gl_plan splits the factor's elimination tree for two threads. Nodes are
// columns (simplicial) or supernodes, in CHOLMOD's postorder, where every
// subtree is a contiguous range ending at its root:
//
//	A = nodes [0, kx), B = [kx, k2), top = [k2, nk) (columns c2 .. n-1)
//
// top is the chain from the root down to the first node with two or more
// children (or nothing, for a forest), and A and B are whole subtrees below
// it, so that no column of A updates a row of B or the reverse: the forward
// solves of A and B are independent except for their updates of the top
// rows, which go to private copies (PA, PB, zero at first) that are then
// added to the top rows, A's first; the backward solves of A and B, after
// that of the top, read only top rows and their own. Without a split (kx =
// k2 = nk, c2 = n) this is the plain solve. The plan depends only on the
// factor's structure (so the caller computes it once per factor with
// gl_bsolve_plan), and the arithmetic follows it whether one thread or two
// run it, so the result is bitwise the same either way. gl_bplan is declared
// in blocksolve.h.
typedef gl_bplan gl_plan;

// The top part may hold at most a quarter of the columns (the private copies
// are sized for that) and the smaller of A and B at least a fifth of the
// work, or there is no split. Both bounds are guards against top-heavy or
// lopsided trees, not tuned values.
#define GL_TOP_MAX(n) ((n) / 4 + 1)

// The workspace: n rows of up to GL_MAXW interleaved columns, the
// reciprocals of L's diagonal (n doubles), the two private copies of the top
// rows (GL_TOP_MAX(n) rows each), then the inverse permutation (n gl_int,
// rounded up to whole doubles).
size_t gl_bsolve_workspace(size_t n) {
	return n * GL_MAXW + n + 2 * GL_TOP_MAX(n) * GL_MAXW + (n * sizeof(gl_int) + sizeof(double) - 1) / sizeof(double);
}

// node_parent returns the elimination-tree parent of node k (-1 for a root).
static gl_int node_parent(const cholmod_factor *L, gl_int k) {
	if (L->is_super) {
		const snode sn = supernode(L, k);
		if (sn.nsrow <= sn.nscol) {
			return -1;
		}
		// The supernode holding the row of the first off-diagonal entry (the
		// rows of a supernode are sorted): binary search on super.
		const gl_int *Super = L->super, r = sn.rows[sn.nscol];
		gl_int lo = k + 1, hi = (gl_int) L->nsuper - 1;
		while (lo < hi) {
			const gl_int mid = (lo + hi + 1) / 2;
			if (Super[mid] <= r) {
				lo = mid;
			} else {
				hi = mid - 1;
			}
		}
		return lo;
	}
	const gl_int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
	gl_int par = -1;
	for (gl_int p = Lp[k] + 1; p < Lp[k] + Lnz[k]; p++) {
		if (par < 0 || Li[p] < par) {
			par = Li[p];
		}
	}
	return par;
}

static double node_work(const cholmod_factor *L, gl_int k) {
	if (L->is_super) {
		const snode sn = supernode(L, k);
		return (double) sn.nscol * (double) sn.nsrow;
	}
	return (double) ((const gl_int *) L->nz)[k];
}

// make_plan computes the split; scratch holds 2*nk gl_int.
static gl_plan make_plan(const cholmod_factor *L, gl_int *scratch) {
	const gl_int n = (gl_int) L->n, nk = L->is_super ? (gl_int) L->nsuper : n;
	const gl_plan none = {nk, nk, nk, n};
	if (nk < 4) {
		return none;
	}
	gl_int *parent = scratch, *nchild = scratch + nk;
	gl_int roots = 0;
	for (gl_int k = 0; k < nk; k++) {
		nchild[k] = 0;
	}
	for (gl_int k = 0; k < nk; k++) {
		parent[k] = node_parent(L, k);
		if (parent[k] >= 0 && (parent[k] <= k || parent[k] >= nk)) {
			return none;
		}
		if (parent[k] < 0) {
			roots++;
		} else {
			nchild[parent[k]]++;
		}
	}
	// The top chain: from the root down while a node has one child (which,
	// in postorder, comes right before it).
	gl_int k2 = nk, top = -1;
	if (roots == 1) {
		if (parent[nk - 1] >= 0) {
			return none;
		}
		top = nk - 1;
		while (nchild[top] == 1 && top > 0 && parent[top - 1] == top) {
			top--;
		}
		if (nchild[top] < 2) {
			return none;
		}
		k2 = top;
	}
	// Split the children of top (or the roots) into a prefix A and the rest
	// B at the boundary between two children's subtrees that best balances
	// the work.
	double total = 0;
	for (gl_int k = 0; k < k2; k++) {
		total += node_work(L, k);
	}
	double acc = 0, best = -1;
	gl_int kx = 0;
	for (gl_int k = 0; k < k2 - 1; k++) {
		acc += node_work(L, k);
		if (parent[k] == top) {
			const double small = acc < total - acc ? acc : total - acc;
			if (small > best) {
				best = small, kx = k + 1;
			}
		}
	}
	const gl_int c2 = L->is_super ? ((const gl_int *) L->super)[k2] : k2;
	if (kx == 0 || best < 0.2 * total || n - c2 > GL_TOP_MAX(n)) {
		return none;
	}
	// Every ancestor of a node of A must be in A or in the top part.
	for (gl_int k = 0; k < kx; k++) {
		if (parent[k] >= kx && parent[k] < k2) {
			return none;
		}
	}
	return (gl_plan){kx, k2, nk, c2};
}

// A waiting thread spins for gl_spins pauses (4000, some tens of microseconds: a
// pause takes 10 to 140 cycles, by processor; most waits here are shorter
// than one solve pass), then sleeps on a futex until the value it watches
// changes. Sleeping rather than yielding matters on this machine, whose two
// logical CPUs share one core: a thread that yields in a loop keeps taking
// the core's resources from the one it waits for, and when the host
// deschedules that one, it burns its CPU time for nothing.
static _Atomic int gl_spins = 4000;

void gl_set_spins(int n) { atomic_store(&gl_spins, n); }

// gl_word is a futex word with a count of the threads asleep on it, so
// that the thread that changes it makes the wake-up call only when needed.
typedef struct {
	_Atomic int v, sleepers;
} gl_word;

static void word_sleep(gl_word *w, int seen) {
#if defined(__linux__)
	syscall(SYS_futex, (int *) &w->v, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
#else
	(void) w;
	(void) seen;
	sched_yield();
#endif
}

// word_wait_for returns once ready(w->v, arg) holds, spinning for budget
// pauses before it sleeps.
static void word_wait_for(gl_word *w, int (*ready)(int, int), int arg, int budget) {
	for (int spins = 0; !ready(atomic_load_explicit(&w->v, memory_order_acquire), arg); spins++) {
		if (spins < budget) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
			continue;
		}
		// Announce the sleep, then check again: the store-then-check here
		// and the change-then-check in word_set (both sequentially
		// consistent) cannot both miss, and the futex sleeps only while
		// the word still holds what was seen.
		atomic_fetch_add(&w->sleepers, 1);
		const int seen = atomic_load(&w->v);
		if (!ready(seen, arg)) {
			word_sleep(w, seen);
		}
		atomic_fetch_sub(&w->sleepers, 1);
	}
}

// word_wait returns once ready(w->v, arg) holds, spinning gl_spins pauses
// before it sleeps.
static void word_wait(gl_word *w, int (*ready)(int, int), int arg) {
	word_wait_for(w, ready, arg, atomic_load_explicit(&gl_spins, memory_order_relaxed));
}

// word_set stores x and wakes the sleepers, if any.
static void word_set(gl_word *w, int x) {
	atomic_store(&w->v, x);
	if (atomic_load(&w->sleepers) > 0) {
#if defined(__linux__)
		syscall(SYS_futex, (int *) &w->v, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#endif
	}
}

static int differs(int v, int g) { return v != g; }
static int at_least(int v, int need) { return v >= need; }

// The two threads meet at a sense-counting barrier.
typedef struct {
	_Atomic int count;
	gl_word gen;
} gl_barrier;

static void barrier_wait(gl_barrier *b, int nth) {
	if (nth == 1) {
		return;
	}
	const int g = atomic_load_explicit(&b->gen.v, memory_order_acquire);
	if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == nth - 1) {
		atomic_store_explicit(&b->count, 0, memory_order_relaxed);
		word_set(&b->gen, g + 1);
		return;
	}
	word_wait(&b->gen, differs, g);
}

// A block is solved in panels of up to GL_MAXW columns: panel_cols is the
// number of columns of the panel that starts at column c0 of a block of
// cols, panel_width the width of its workspace rows (a multiple of 4).
static size_t panel_cols(size_t cols, size_t c0) { return cols - c0 < GL_MAXW ? cols - c0 : GL_MAXW; }

static int panel_width(size_t pc) { return (int) ((pc + 3) & ~(size_t) 3); }

// gl_offs holds, for one simplicial factor, panel width and plan, the byte
// offset from the workspace of the row of every entry of L, so that the
// solves add it to the workspace's address instead of multiplying the row
// index by the width (and, forward, choosing between the workspace and the
// tree split's private copies of the top rows, which fwd folds in). On a
// 50² grid (simplicial), 20 steps on one thread took 0.76-0.84, 0.86-0.91,
// 0.89-0.93 and 0.84-0.91 of the time at widths 4, 12, 20 and 28 (rows of
// an odd number of quads), and 0.94-1.03 at 8, 16, 24 and 32 (medians of
// 100-150 alternating pairs, several runs), hence GL_OFFS_WIDTHS; whole
// toydataF4 evaluations were faster in 22 of 32 alternating rounds. A
// workspace keeps the offsets of its last GL_OFFS_KEEP widths (its factor's
// pattern does not change; the heat kernel's two column halves take either
// workspace), 8 bytes per entry of L each.
typedef struct {
	const gl_int *Li, *Lp, *Lnz; // the pattern they were built for, Li NULL if none
	size_t n, cap;
	int cw;
	gl_plan plan;
	int32_t *fwd, *bwd;
} gl_offs_entry;

#define GL_OFFS_KEEP 2

struct gl_offs {
	gl_offs_entry e[GL_OFFS_KEEP];
	int next; // the entry to rebuild next
};

// GL_OFFS_WIDTHS is the set of panel widths (bit cw/4) that use offsets.
#define GL_OFFS_WIDTHS ((1u << 1) | (1u << 3) | (1u << 5) | (1u << 7))

void gl_offs_free(struct gl_offs *o) {
	if (o == NULL) {
		return;
	}
	for (int k = 0; k < GL_OFFS_KEEP; k++) {
		free(o->e[k].fwd);
		free(o->e[k].bwd);
	}
	free(o);
}

static int offs_match(const gl_offs_entry *x, const cholmod_factor *L, int cw, const gl_plan *pl) {
	return x->Li == L->i && x->Lp == L->p && x->Lnz == L->nz && x->n == L->n && x->cw == cw &&
	       x->plan.kx == pl->kx && x->plan.k2 == pl->k2 && x->plan.nk == pl->nk && x->plan.c2 == pl->c2;
}

// offs_get returns the offsets for L at width cw and plan pl (the private
// copies PA and PB at byte offsets pa and pb from the workspace, whose
// offsets all stay below span), kept in *op and built there if needed, or
// NULL where offsets are not used (a supernodal factor, another width,
// offsets beyond 32 bits, no memory).
static const gl_offs_entry *offs_get(struct gl_offs **op, const cholmod_factor *L, int cw, const gl_plan *pl,
                                     size_t pa, size_t pb, size_t span) {
	// cw/4 must stay below 32 for the shift into the width mask.
	if (op == NULL || L->is_super || cw > 4 * 31 || !(GL_OFFS_WIDTHS & (1u << (cw / 4))) || span > INT32_MAX) {
		return NULL;
	}
	if (*op == NULL && (*op = calloc(1, sizeof **op)) == NULL) {
		return NULL;
	}
	struct gl_offs *o = *op;
	for (int k = 0; k < GL_OFFS_KEEP; k++) {
		if (offs_match(&o->e[k], L, cw, pl)) {
			return &o->e[k];
		}
	}
	const gl_int *Li = L->i, *Lp = L->p, *Lnz = L->nz;
	const size_t n = L->n;
	size_t need = 0;
	for (size_t j = 0; j < n; j++) {
		if ((size_t) (Lp[j] + Lnz[j]) > need) {
			need = (size_t) (Lp[j] + Lnz[j]);
		}
	}
	gl_offs_entry *x = &o->e[o->next];
	o->next = (o->next + 1) % GL_OFFS_KEEP;
	x->Li = NULL; // invalid until rebuilt
	if (need > x->cap) {
		free(x->fwd);
		free(x->bwd);
		x->fwd = malloc(need * sizeof(int32_t));
		x->bwd = malloc(need * sizeof(int32_t));
		x->cap = x->fwd != NULL && x->bwd != NULL ? need : 0;
		if (x->cap == 0) {
			return NULL;
		}
	}
	const size_t row = (size_t) cw * sizeof(double);
	for (size_t j = 0; j < n; j++) {
		const size_t priv = (gl_int) j < pl->kx ? pa : (gl_int) j < pl->k2 ? pb : 0;
		for (gl_int p = Lp[j]; p < Lp[j] + Lnz[j]; p++) {
			const size_t i = (size_t) Li[p];
			x->bwd[p] = (int32_t) (i * row);
			x->fwd[p] = priv != 0 && (gl_int) i >= pl->c2 ? (int32_t) (priv + (i - (size_t) pl->c2) * row)
			                                              : (int32_t) (i * row);
		}
	}
	x->Lp = Lp, x->Lnz = Lnz, x->n = n, x->cw = cw, x->plan = *pl;
	x->Li = Li;
	return x;
}

typedef struct {
	const cholmod_factor *L;
	const double *b, *dinv;
	double *out, *W, *P[2];
	const gl_int *perm, *iperm;
	size_t n, cols;
	int steps, keep, reverse, nth;
	gl_plan plan;
	const int32_t *offf, *offb; // gl_offs of the single panel, or NULL
	gl_barrier bar;
} gl_job;

// run is one thread's share of a block solve (role 0 or 1 of nth = 2), or
// all of it (nth = 1): the same operations in the same order per element.
static void run(void *arg, int role) {
	gl_job *J = arg;
	const gl_plan pl = J->plan;
	const size_t n = J->n, nb = n * J->cols, ntop = n - (size_t) pl.c2;
	const int one = J->nth == 1, doA = one || role == 0, doB = one || role == 1;
	double *W = J->W, *PA = J->P[0], *PB = J->P[1];
	for (size_t c0 = 0; c0 < J->cols; c0 += GL_MAXW) {
		const size_t pc = panel_cols(J->cols, c0);
		const int cw = panel_width(pc);
		// Each role scatters half of the columns.
		const size_t h = one ? pc : pc / 2, s0 = role == 0 ? 0 : h, s1 = role == 0 ? h : pc;
		if (role == 0) {
			gather(W, J->b, J->perm, n, c0, pc, (size_t) cw);
			memset(PA, 0, ntop * (size_t) cw * sizeof(double));
			memset(PB, 0, ntop * (size_t) cw * sizeof(double));
		}
		barrier_wait(&J->bar, J->nth);
		for (int l = 1; l <= J->steps; l++) {
			if (doA) {
				solve_pass(J->L, J->dinv, W, cw, 1, 0, pl.kx, pl.c2, PA, J->offf);
			}
			if (doB) {
				solve_pass(J->L, J->dinv, W, cw, 1, pl.kx, pl.k2, pl.c2, PB, J->offf);
			}
			barrier_wait(&J->bar, J->nth);
			if (role == 0) {
				double *Wt = W + (size_t) pl.c2 * (size_t) cw;
				for (size_t k = 0; k < ntop * (size_t) cw; k++) {
					Wt[k] += PA[k];
					Wt[k] += PB[k];
					PA[k] = 0;
					PB[k] = 0;
				}
				solve_pass(J->L, J->dinv, W, cw, 1, pl.k2, pl.nk, (gl_int) n, NULL, J->offf);
				solve_pass(J->L, J->dinv, W, cw, 0, pl.k2, pl.nk, 0, NULL, J->offb);
			}
			barrier_wait(&J->bar, J->nth);
			if (doB) {
				solve_pass(J->L, J->dinv, W, cw, 0, pl.kx, pl.k2, 0, NULL, J->offb);
			}
			if (doA) {
				solve_pass(J->L, J->dinv, W, cw, 0, 0, pl.kx, 0, NULL, J->offb);
			}
			if (J->keep) {
				const size_t blk = J->reverse ? (size_t) (J->steps - l) : (size_t) (l - 1);
				barrier_wait(&J->bar, J->nth);
				scatter(J->out + blk * nb, W, J->iperm, n, c0, s0, s1, (size_t) cw);
				barrier_wait(&J->bar, J->nth);
			}
		}
		if (!J->keep) {
			barrier_wait(&J->bar, J->nth);
			scatter(J->out, W, J->iperm, n, c0, s0, s1, (size_t) cw);
			barrier_wait(&J->bar, J->nth);
		}
	}
}

// gl_roles is work split in two roles, role 0 on the calling thread.
typedef struct {
	void (*fn)(void *arg, int role);
	void *arg;
} gl_roles;

// gl_helper is a second thread kept between calls (one per workspace, see
// blocksolve.h): it sleeps on the word go until a call bumps it, runs role
// 1 of that call's work, and bumps done. A new thread per call, as before,
// cost more: a two-step, 18-column adjoint on an 8x8 grid took 77-81 us
// (median; 142-255 us at the 90th percentile) with a new thread and 30-32
// us (56-65 us) with the kept one, against 17 us on one thread. On
// toydataF4's 99 adjoints per evaluation that is about 5 ms, under what
// whole evaluations could resolve (faster in 20 of 32 alternating rounds).
// A team of two OpenMP threads in its place, the standard mechanism, made
// 2:50:20 and 2:50:100 evaluations 15-40% slower on two cores: after every
// call the OpenMP runtime's thread spins for the next parallel region
// (GOMP_SPINCOUNT, read once when the runtime starts) on a core that the
// Go side's elementwise work needs between the solves, where this helper
// sleeps at once (BENCHMARKS.md, "What did not pay").
struct gl_helper {
	pthread_t th;
	gl_word go, done;
	gl_roles job;
	int quit;
};

static void *helper_main(void *p) {
	struct gl_helper *h = p;
	for (int gen = 1;; gen++) {
		// Calls come a millisecond or more apart: sleep at once rather
		// than spin on the core the caller's thread shares.
		word_wait_for(&h->go, at_least, gen, 0);
		if (h->quit) {
			return NULL;
		}
		h->job.fn(h->job.arg, 1);
		word_set(&h->done, gen);
	}
}

// helper_get returns *hp, starting it first if needed; NULL if it cannot.
static struct gl_helper *helper_get(struct gl_helper **hp) {
	if (*hp != NULL) {
		return *hp;
	}
	struct gl_helper *h = calloc(1, sizeof *h);
	if (h == NULL) {
		return NULL;
	}
	// Signals go to the Go threads, not to this helper: it starts with all
	// of them blocked (the caller's own mask is restored at once).
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	const int err = pthread_create(&h->th, NULL, helper_main, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		free(h);
		return NULL;
	}
	*hp = h;
	return h;
}

void gl_helper_free(struct gl_helper *h) {
	if (h == NULL) {
		return;
	}
	h->quit = 1;
	word_set(&h->go, atomic_load(&h->go.v) + 1);
	pthread_join(h->th, NULL);
	free(h);
}

// on_roles runs fn(arg, 0) on the calling thread and, when two is set,
// fn(arg, 1) on the helper *hp (started on first use). *nth, which fn
// reads, is 2 when the helper runs role 1, and 1 when role 0 does all the
// work (two not set, or the helper could not be started).
static void on_roles(void (*fn)(void *, int), void *arg, int two, int *nth, struct gl_helper **hp) {
	*nth = 1;
	struct gl_helper *h = two ? helper_get(hp) : NULL;
	if (h == NULL) {
		fn(arg, 0);
		return;
	}
	*nth = 2;
	h->job = (gl_roles){fn, arg};
	const int gen = atomic_load(&h->go.v) + 1;
	word_set(&h->go, gen);
	fn(arg, 0);
	word_wait(&h->done, at_least, gen);
}

gl_bplan gl_bsolve_plan(const cholmod_factor *L, double *w) { return make_plan(L, (gl_int *) w); }

void gl_bsolve_steps(const cholmod_factor *L, const double *b, double *out, size_t cols, int steps, int keep,
                     int reverse, int threads, const gl_bplan *plan, double *w, struct gl_helper **hp,
                     struct gl_offs **op) {
	const size_t n = L->n;
	double *dinv = w + n * GL_MAXW;
	double *P = dinv + n;
	gl_job J = {
	    .L = L, .b = b, .dinv = dinv, .out = out, .W = w,
	    .P = {P, P + GL_TOP_MAX(n) * GL_MAXW},
	    .perm = L->Perm, .iperm = NULL,
	    .n = n, .cols = cols, .steps = steps, .keep = keep, .reverse = reverse, .nth = 1, .plan = *plan,
	};
	diag_inverse(L, dinv);
	if (L->Perm != NULL) {
		gl_int *iperm = (gl_int *) (P + 2 * GL_TOP_MAX(n) * GL_MAXW);
		invert_perm(L->Perm, n, iperm);
		J.iperm = iperm;
	}
	if (cols <= GL_MAXW) {
		const size_t pa = (size_t) ((char *) J.P[0] - (char *) w), pb = (size_t) ((char *) J.P[1] - (char *) w);
		const gl_offs_entry *o = offs_get(op, L, panel_width(cols), plan, pa, pb, pb + GL_TOP_MAX(n) * GL_MAXW * sizeof(double));
		if (o != NULL) {
			J.offf = o->fwd;
			J.offb = o->bwd;
		}
	}
	on_roles(run, &J, J.plan.kx < J.plan.k2 && threads > 1, &J.nth, hp);
}

// ---- The heat kernel's adjoint: both chains and the weight gradient ----
//
// gl_adjoint_steps runs chain u (from src, role 0) and chain w (from g,
// role 1) in the interleaved, permuted layout of the solves, and sums the
// pairs (u_l, w_{S-l+1}), l = 1..S, as the chains go. Each chain is solved
// in place in its working block (block 0 of U or V, n x cw doubles, first
// the gathered input); only its first h = ceil(S/2) steps are kept, step l
// in block l, which the backward pass of step l writes as it stores the
// working block's rows (before, each kept step copied the previous block
// and was solved in place there: on 50², 18 columns, 20 steps, 1-5% slower
// on one thread and 0-2% on two, and one more block per chain). The later
// steps are summed in the working block, while hot in cache, against the
// other chain's kept steps:
//
//	role 0 at step l in [S-h+1, S] sums the pair (u_l, w_{S-l+1}),
//	role 1 at step k in [h+1, S]   sums the pair (u_{S-k+1}, w_k),
//
// which covers every l once, each from a kept step of the other chain. A
// role waits (word_wait: spinning, then asleep on a futex) until the other
// chain has passed the step it needs; the two never wait for each other.
// Role 0 sums into acc0, role 1 into acc1, each edge's sums in a fixed
// order, and one thread runs
// the same schedule (u to step h, all of w, the rest of u), so the result
// does not depend on the thread count. The edges are visited in the order
// of their first endpoint in the permuted numbering, so that the rows are
// read nearly in memory order.

// dot_diff is sum_c (ua[c]-ub[c]) * (wa[c]-wb[c]) over the cw = 4*nv
// columns of four rows, in quads, the quads summed in a fixed order.
GL_INLINE double dot_diff(const double *ua, const double *ub, const double *wa, const double *wb, const int nv) {
	v4 s = {0, 0, 0, 0};
	for (int v = 0; v < NQ(nv); v++) {
		const v4 du = *(const v4 *) (ua + 4 * v) - *(const v4 *) (ub + 4 * v);
		const v4 dw = *(const v4 *) (wa + 4 * v) - *(const v4 *) (wb + 4 * v);
		s += du * dw;
	}
	return (s[0] + s[1]) + (s[2] + s[3]);
}

// prefetch_row asks for the cache lines of one workspace row of cw = 4*nv
// doubles.
GL_INLINE void prefetch_row(const double *row, const int nv) {
	const char *p = (const char *) row;
	for (int off = 0; off < 32 * NQ(nv); off += 64) {
		__builtin_prefetch(p + off);
	}
	__builtin_prefetch(p + 32 * NQ(nv) - 1);
}

// The edges are visited in the order of their first endpoint, so the rows
// pa[e] of both blocks come nearly in memory order and the hardware
// prefetcher follows them; the rows pb[e] are scattered, and the kept
// block's come from L3 (its ceil(S/2)+1 blocks do not fit in L2). They are
// prefetched GL_PAIRS_AHEAD edges ahead: 18-column, 20-step adjoints on
// 50² took 4-5% less time on one thread and 2-4% less on two (distances 16
// to 32 alike, alternating with the unprefetched sums in one process); on
// 16³ (16 columns) no change could be measured.
#define GL_PAIRS_AHEAD 24

GL_INLINE void pairs_width(const double *U, const double *W, const gl_int *ord, const gl_int *pa, const gl_int *pb,
                           size_t ne, double *acc, const int nv) {
	const size_t cw = 4 * (size_t) NQ(nv);
	for (size_t k = 0; k < ne; k++) {
		if (k + GL_PAIRS_AHEAD < ne) {
			const size_t b = (size_t) pb[ord[k + GL_PAIRS_AHEAD]] * cw;
			prefetch_row(U + b, nv);
			prefetch_row(W + b, nv);
		}
		const size_t e = (size_t) ord[k];
		const size_t a = (size_t) pa[e] * cw, b = (size_t) pb[e] * cw;
		acc[e] += dot_diff(U + a, U + b, W + a, W + b, nv);
	}
}

// pairs adds to acc[e], for every edge e (visited in the order ord, its
// endpoints pa[e], pb[e] in the permuted numbering), the sum over the
// columns of the product of the endpoint differences of U and W, two
// n x cw blocks.
GL_CLONES static void pairs(const double *U, const double *W, const gl_int *ord, const gl_int *pa, const gl_int *pb,
                            size_t ne, double *acc, int cw) {
	switch (cw) {
	case 4: pairs_width(U, W, ord, pa, pb, ne, acc, 1); break;
	case 8: pairs_width(U, W, ord, pa, pb, ne, acc, 2); break;
	case 12: pairs_width(U, W, ord, pa, pb, ne, acc, 3); break;
	case 16: pairs_width(U, W, ord, pa, pb, ne, acc, 4); break;
	case 20: pairs_width(U, W, ord, pa, pb, ne, acc, 5); break;
	case 24: pairs_width(U, W, ord, pa, pb, ne, acc, 6); break;
	case 28: pairs_width(U, W, ord, pa, pb, ne, acc, 7); break;
	default: pairs_width(U, W, ord, pa, pb, ne, acc, 8); break;
	}
}

// adj_blocks is the number of n x cw blocks per chain: the working block
// and steps 1..h.
static size_t adj_blocks(int steps) { return (size_t) (steps + 1) / 2 + 1; }

static size_t adj_cwmax(size_t cols) { return (size_t) panel_width(panel_cols(cols, 0)); }

size_t gl_adjoint_workspace(size_t n, size_t cols, int steps, size_t ne) {
	const size_t chain = adj_blocks(steps) * n * adj_cwmax(cols);
	// U and V, dinv, acc0 and acc1, then (gl_int, 8 bytes) iperm, pa, pb,
	// the visiting order and n+1 bucket counts.
	return 2 * chain + n + 2 * ne + n + 3 * ne + n + 1;
}

typedef struct {
	const cholmod_factor *L;
	const double *src, *g, *dinv;
	double *gsrc, *gw, *U, *V, *acc0, *acc1;
	const gl_int *perm, *iperm, *pa, *pb, *ord;
	size_t n, cols, ne, nk;
	int steps, h, nth;
	double coef;
	const int32_t *off; // gl_offs of the single panel (no split), or NULL
	gl_word done0, done1; // steps of the current panel finished by chain u, chain w
	gl_barrier bar;
} gl_adj;

// adj_steps runs steps l0..l1 of one chain (role 0: u in U, role 1: w in
// V) of the current panel, summing the pairs of its role (see above) from
// step from on.
static void adj_steps(gl_adj *J, int role, int l0, int l1, int from, int cw) {
	const size_t n = J->n, blk = n * (size_t) cw;
	const int S = J->steps, h = J->h;
	double *C = role == 0 ? J->U : J->V;
	gl_word *mine = role == 0 ? &J->done0 : &J->done1, *other = role == 0 ? &J->done1 : &J->done0;
	double *X = C; // the working block (block 0), where every step is solved
	for (int l = l0; l <= l1; l++) {
		solve_pass(J->L, J->dinv, X, cw, 1, 0, (gl_int) J->nk, (gl_int) n, NULL, J->off);
		solve_pass(J->L, J->dinv, X, cw, 0, 0, (gl_int) J->nk, 0, l <= h ? C + (size_t) l * blk : NULL, J->off);
		word_set(mine, l);
		if (l < from) {
			continue;
		}
		word_wait(other, at_least, S - l + 1);
		if (role == 0) {
			pairs(X, J->V + (size_t) (S - l + 1) * blk, J->ord, J->pa, J->pb, J->ne, J->acc0, cw);
		} else {
			pairs(J->U + (size_t) (S - l + 1) * blk, X, J->ord, J->pa, J->pb, J->ne, J->acc1, cw);
		}
	}
}

// adj_run is one thread's share (role 0 or 1 of nth = 2), or all of it.
static void adj_run(void *arg, int role) {
	gl_adj *J = arg;
	const int one = J->nth == 1, S = J->steps;
	const size_t n = J->n;
	for (size_t c0 = 0; c0 < J->cols; c0 += GL_MAXW) {
		const size_t pc = panel_cols(J->cols, c0);
		const int cw = panel_width(pc);
		const size_t blk = n * (size_t) cw;
		if (one || role == 0) {
			gather(J->U, J->src, J->perm, n, c0, pc, (size_t) cw);
		}
		if (one || role == 1) {
			gather(J->V, J->g, J->perm, n, c0, pc, (size_t) cw);
		}
		if (one) {
			// Chain u to step h, all of chain w, then the rest of u, whose
			// pairs at steps up to h (S odd) are summed first, from the
			// kept blocks, in the order two threads sum them.
			adj_steps(J, 0, 1, J->h, S + 1, cw);
			adj_steps(J, 1, 1, S, J->h + 1, cw);
			for (int l = S - J->h + 1; l <= J->h; l++) {
				pairs(J->U + (size_t) l * blk, J->V + (size_t) (S - l + 1) * blk, J->ord, J->pa, J->pb, J->ne,
				      J->acc0, cw);
			}
			adj_steps(J, 0, J->h + 1, S, J->h + 1, cw);
		} else {
			adj_steps(J, role, 1, S, role == 0 ? S - J->h + 1 : J->h + 1, cw);
		}
		barrier_wait(&J->bar, J->nth);
		if (J->gsrc != NULL) {
			// K.g is chain w's last step, in its working block.
			const size_t hs = one ? pc : pc / 2, s0 = role == 0 ? 0 : hs, s1 = role == 0 ? hs : pc;
			scatter(J->gsrc, J->V, J->iperm, n, c0, s0, s1, (size_t) cw);
		}
		// Before the next panel's chains start: every wait of this panel is
		// over and the scatter has read V.
		if (one || role == 0) {
			atomic_store_explicit(&J->done0.v, 0, memory_order_relaxed);
			atomic_store_explicit(&J->done1.v, 0, memory_order_relaxed);
		}
		barrier_wait(&J->bar, J->nth);
	}
	const size_t e0 = one || role == 0 ? 0 : J->ne / 2, e1 = one || role == 1 ? J->ne : J->ne / 2;
	for (size_t e = e0; e < e1; e++) {
		J->gw[e] += J->coef * (J->acc0[e] + J->acc1[e]);
	}
}

void gl_adjoint_steps(const cholmod_factor *L, const double *src, const double *g, double *gsrc, size_t cols, int steps,
                      const gl_int *from, const gl_int *to, size_t ne, double coef, double *gw, int threads, double *w,
                      struct gl_helper **hp, struct gl_offs **op) {
	const size_t n = L->n, chain = adj_blocks(steps) * n * adj_cwmax(cols);
	gl_adj J = {
	    .L = L, .src = src, .g = g, .gsrc = gsrc, .gw = gw,
	    .U = w, .V = w + chain,
	    .perm = (const gl_int *) L->Perm,
	    .n = n, .cols = cols, .ne = ne, .nk = L->is_super ? (size_t) L->nsuper : n,
	    .steps = steps, .h = (steps + 1) / 2, .coef = coef,
	};
	double *dinv = w + 2 * chain;
	J.dinv = dinv;
	J.acc0 = dinv + n;
	J.acc1 = J.acc0 + ne;
	gl_int *iperm = (gl_int *) (J.acc1 + ne), *pa = iperm + n, *pb = pa + ne, *ord = pb + ne, *cnt = ord + ne;
	diag_inverse(L, dinv);
	invert_perm(J.perm, n, iperm);
	// pa[e] < pb[e], and ord sorts the edges by pa (a counting sort).
	memset(cnt, 0, (n + 1) * sizeof(gl_int));
	for (size_t e = 0; e < ne; e++) {
		gl_int a = iperm[from[e]], b = iperm[to[e]];
		if (a > b) {
			const gl_int t = a;
			a = b;
			b = t;
		}
		pa[e] = a;
		pb[e] = b;
		cnt[a + 1]++;
		J.acc0[e] = 0;
		J.acc1[e] = 0;
	}
	for (size_t k = 0; k < n; k++) {
		cnt[k + 1] += cnt[k];
	}
	for (size_t e = 0; e < ne; e++) {
		ord[cnt[pa[e]]++] = (gl_int) e;
	}
	J.iperm = J.perm != NULL ? iperm : NULL;
	if (cols <= GL_MAXW) {
		const gl_int nk = (gl_int) J.nk;
		const gl_plan none = {nk, nk, nk, (gl_int) n};
		const gl_offs_entry *o = offs_get(op, L, panel_width(cols), &none, 0, 0, n * (size_t) panel_width(cols) * sizeof(double));
		if (o != NULL) {
			J.off = o->bwd;
		}
	}
	J.pa = pa;
	J.pb = pb;
	J.ord = ord;
	on_roles(adj_run, &J, threads > 1, &J.nth, hp);
}
