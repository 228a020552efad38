// Block triangular solves on a CHOLMOD LL' factor with the right-hand sides
// interleaved (vertex-major): gmlg's own solve kernel, used instead of
// cholmod_solve2 for the many-column solves of the heat kernel.
#ifndef GL_BLOCKSOLVE_H
#define GL_BLOCKSOLVE_H

#include <stddef.h>
#include "cholmod.h"

// gl_bsolve_supported reports whether gl_bsolve can use L: a numeric LL'
// factor with real double values (simplicial or supernodal).
int gl_bsolve_supported(const cholmod_factor *L);

// gl_bsolve_workspace is the number of doubles of workspace that
// gl_bsolve and gl_bsolve_steps need for a factor of order n.
size_t gl_bsolve_workspace(size_t n);

// gl_bsolve solves A X = B, where P A P' = L L', for the n x cols block b
// (column-major, leading dimension n) and writes X into dst (which may be b).
// w is a workspace of gl_bsolve_workspace(n) doubles.
void gl_bsolve(const cholmod_factor *L, const double *b, double *dst, size_t cols, double *w);

// gl_bsolve_steps applies A^-1 steps times to b, with one gather and, unless
// keep, one scatter (into out, n x cols) per 32-column panel. With keep it
// writes the iterate of every step l = 1..steps into block l-1 of out
// (reverse: block steps-l), each block n x cols column-major. out must not
// overlap b unless keep is 0 and out == b. With threads > 1 and a factor
// whose elimination tree splits into two balanced parts, a second thread
// takes one of them (the result is bitwise the same). It returns whether
// the tree splits.
int gl_bsolve_steps(const cholmod_factor *L, const double *b, double *out, size_t cols, int steps, int keep,
                    int reverse, int threads, double *w);

// gl_bsolve_splits reports whether gl_bsolve_steps can split L's
// elimination tree for two threads (w as for gl_bsolve_steps).
int gl_bsolve_splits(const cholmod_factor *L, double *w);

#endif
