//go:build cgo

package cholmod

// All cgo build flags of the module live in this file.
//
// The defaults fit Debian/Ubuntu's libsuitesparse-dev (headers in
// /usr/include/suitesparse). To build against another SuiteSparse, extend or
// override them from the environment, e.g.
//
//	CGO_CFLAGS="-I/opt/suitesparse/include" \
//	CGO_LDFLAGS="-L/opt/suitesparse/lib -Wl,-rpath,/opt/suitesparse/lib" \
//	go build ./...
//
// The go command appends CGO_CFLAGS and CGO_LDFLAGS to the flags below, so an
// -I or -L given there is searched as well. CHOLMOD brings its own
// dependencies (AMD, COLAMD, CAMD, CCOLAMD, METIS, BLAS, LAPACK) through its
// shared library. libopenblas is named as well: gonum's netlib bindings,
// which package kernel uses for the dense updates of its pure-Go
// factorisation, call the CBLAS interface but declare no link flags, and
// every cgo binary of the module links this package (the bindings need
// the cblas_* symbols only, so another CBLAS can replace it here).

/*
#cgo CFLAGS: -I/usr/include/suitesparse -O3
#cgo LDFLAGS: -lcholmod -lsuitesparseconfig -lopenblas -lm -lpthread
*/
import "C"
