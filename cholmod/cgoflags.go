//go:build cgo

package cholmod

// All cgo build flags of the module. They fit Debian/Ubuntu's
// libsuitesparse-dev; for another SuiteSparse the go command appends the
// environment's flags to these, e.g.
//
//	CGO_CFLAGS="-I/opt/suitesparse/include" \
//	CGO_LDFLAGS="-L/opt/suitesparse/lib -Wl,-rpath,/opt/suitesparse/lib" \
//	go build ./...
//
// CHOLMOD's shared library brings its own dependencies (AMD, COLAMD, METIS,
// BLAS, LAPACK). libopenblas is named because gonum's netlib bindings,
// which package kernel uses for its pure-Go factorisation's dense updates,
// call CBLAS without link flags of their own, and every cgo binary of the
// module links this package (another CBLAS can replace it here).

/*
#cgo CFLAGS: -I/usr/include/suitesparse -O3
#cgo LDFLAGS: -lcholmod -lsuitesparseconfig -lopenblas -lm -lpthread
*/
import "C"
