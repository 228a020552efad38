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
// right-hand sides stored column-major with Solve. A StepSolver also runs
// the heat kernel's chains of solves and their adjoint for the edge
// weights itself, in its own layout and on its own workers: it is the one
// contract through which package kernel's Heat solves.
//
// Backends: package sparsechol's engine, which factorises in pure Go or
// takes its factor's values from a Supplier (package cholmod: SuiteSparse
// CHOLMOD through cgo), and a dense gonum Cholesky used as a test oracle
// for small graphs (in package kernel).
//
// # Suppliers
//
// A Supplier orders a pattern and computes numeric factorisations for a
// backend that keeps the rest: the backend postorders the supplier's
// order, forms its supernodes and hands the supplier a Layout (the final
// pivot order and where each supernode's rows and values live); each
// Numeric.Fill then factorises one matrix and writes L into the backend's
// value slice at those places. So one engine schedules and runs the solves
// and their adjoint whatever computes L.
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
