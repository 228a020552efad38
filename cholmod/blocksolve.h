// Block triangular solves on a CHOLMOD LL' factor with the right-hand sides
// interleaved (vertex-major): gmlg's own solve kernel, used instead of
// cholmod_solve2 for the many-column solves of the heat kernel.
#ifndef GL_BLOCKSOLVE_H
#define GL_BLOCKSOLVE_H

#include <stddef.h>
#include "cholmod.h"

struct gl_helper;
struct gl_offs;

// gl_bsolve_supported reports whether gl_bsolve can use L: a numeric LL'
// factor with real double values (simplicial or supernodal).
int gl_bsolve_supported(const cholmod_factor *L);

// gl_wide reports whether the kernels hold rows of an even number of
// quads as 8-wide vectors: where the processor has AVX-512 (F and VL).
int gl_wide(void);

// gl_bsolve_workspace is the number of doubles of workspace that
// gl_bsolve and gl_bsolve_steps need for a factor of order n.
size_t gl_bsolve_workspace(size_t n);

// gl_bplan is the split of L's elimination tree that the solves follow
// (see blocksolve.c): nodes [0, kx) and [kx, k2) are two groups of whole
// subtrees, [k2, nk) the top part from column c2; kx = k2 when there is no
// split. It depends only on L's structure.
typedef struct {
	SuiteSparse_long kx, k2, nk, c2;
} gl_bplan;

// gl_bsolve_plan computes L's plan (w as for gl_bsolve_steps, used as
// scratch).
gl_bplan gl_bsolve_plan(const cholmod_factor *L, double *w);

// gl_bsolve_steps applies A^-1 steps times to b (A X = B, where
// P A P' = L L', for n x cols blocks, column-major), with one gather and, unless
// keep, one scatter (into out, n x cols) per 32-column panel. With keep it
// writes the iterate of every step l = 1..steps into block l-1 of out
// (reverse: block steps-l), each block n x cols column-major. out must not
// overlap b unless keep is 0 and out == b. plan is L's (gl_bsolve_plan).
// With threads > 1 and a plan that splits, a second thread takes one of the
// two groups (the result is bitwise the same). w is a workspace of
// gl_bsolve_workspace(n) doubles. *hp keeps that second thread between
// calls (NULL at first: it is started on first use; gl_helper_free ends
// it); a workspace and its *hp serve one call at a time.
void gl_bsolve_steps(const cholmod_factor *L, const double *b, double *out, size_t cols, int steps, int keep,
                     int reverse, int threads, const gl_bplan *plan, double *w, struct gl_helper **hp,
                     struct gl_offs **op);

// gl_adjoint_workspace is the number of doubles of workspace that
// gl_adjoint_steps needs for a factor of order n, cols columns, steps steps
// and ne edges.
size_t gl_adjoint_workspace(size_t n, size_t cols, int steps, size_t ne);

// gl_adjoint_steps differentiates out = A^-steps src (the heat kernel's
// backward Euler chain) for the edge weights of the graph whose edge e joins
// vertices from[e] and to[e]: with u_l = A^-l src and w_k = A^-k g (g the
// gradient of out, n x cols column-major like src), it adds
//
//	coef * sum_{l=1..steps} sum_cols (u_l[from]-u_l[to]) * (w_{steps-l+1}[from]-w_{steps-l+1}[to])
//
// to gw[e], and writes A^-steps g into gsrc unless gsrc is NULL. With
// threads > 1 a second thread runs chain w beside chain u, scatters half of
// gsrc and sums half of the edges; the result is bitwise the same. w is a
// workspace of gl_adjoint_workspace(n, cols, steps, ne) doubles, and *hp
// keeps the second thread as for gl_bsolve_steps.
void gl_adjoint_steps(const cholmod_factor *L, const double *src, const double *g, double *gsrc, size_t cols, int steps,
                      const SuiteSparse_long *from, const SuiteSparse_long *to, size_t ne, double coef, double *gw,
                      int threads, double *w, struct gl_helper **hp, struct gl_offs **op);

// gl_helper_free stops and frees the helper thread that gl_bsolve_steps
// and gl_adjoint_steps keep in *hp between calls (NULL: nothing).
void gl_helper_free(struct gl_helper *h);

// gl_offs_free frees the row offsets that gl_bsolve_steps and
// gl_adjoint_steps keep in *op between calls, with a simplicial factor
// (NULL: nothing). Like *hp, *op serves one call at a time.
void gl_offs_free(struct gl_offs *o);

// gl_set_spins sets how many pauses a waiting solve thread spins before it
// sleeps (4000 by default; tests set 0 to make every wait sleep).
void gl_set_spins(int n);

#endif
