// Package factor defines the contract between gmlg's heat kernel and its
// sparse Cholesky backends.
//
// # Contract
//
// A backend is a Factorizer. Analyze takes the lower-triangular CSC Pattern of
// a symmetric positive definite matrix (the heat system M = I + τ·α·L_w of a
// graph) and performs the fill-reducing ordering and the symbolic analysis
// once. The returned Factor is then numerically factorised for each new set of
// values (each new weight vector) with Factorize, and solves dense blocks of
// right-hand sides stored column-major with Solve.
//
// Backends: package cholmod (SuiteSparse CHOLMOD through cgo), package
// sparsechol (pure Go) and a dense gonum Cholesky used as a test oracle for
// small graphs (in package kernel).
//
// # Tree and span
//
// A Factor that implements TreeReporter describes its supernodal
// elimination tree (Tree: the columns, rows and parent of each supernode;
// ColumnTree builds one from a column elimination tree). Tree.Span gives
// the work of one triangular solve and its critical path under the tree
// schedule: subtrees side by side, a supernode after its children, its
// columns in panels of SpanBlock whose rows below are updated in groups of
// SpanBlock rows at once. Work/span bounds the speed-up of a whole-block
// solve on any number of workers; gmlg bench prints it for every row
// ("tree W/D").
//
// # Errors
//
// A matrix that is not positive definite gives a *NotPosDefError, which
// matches ErrNotPosDef with errors.Is. Programmer errors (wrong slice
// lengths, use after Close) panic with a message prefixed by the backend name.
package factor
