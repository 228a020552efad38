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

// gl_bsolve_width is the number of interleaved columns of one pass; the
// workspace of gl_bsolve needs n * gl_bsolve_width() doubles.
size_t gl_bsolve_width(void);

// gl_bsolve solves A X = B, where P A P' = L L', for the n x cols block b
// (column-major, leading dimension n) and writes X into dst (which may be b).
// w is a workspace of n * gl_bsolve_width() doubles.
void gl_bsolve(const cholmod_factor *L, const double *b, double *dst, size_t cols, double *w);

#endif
