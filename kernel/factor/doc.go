// Package factor defines the contract between gmlg's heat kernel and its
// sparse Cholesky backends.
//
// A backend is a Factorizer: Analyze orders the lower-triangular CSC
// Pattern of a symmetric positive definite matrix (the heat system
// M = I + τ·α·L_w of a graph) and analyses it once; the Factor it returns
// is factorised again for each new set of values and solves column-major
// blocks. A StepSolver also runs the heat kernel's chains of solves and
// their adjoint for the edge weights, in its own layout and on its own
// workers: it is the one contract through which package kernel's Heat
// solves. Package sparsechol's engine implements it, factorising in pure
// Go or taking L's values from a Supplier (package cholmod), and package
// kernel's dense gonum oracle does for small graphs.
//
// A Factor that implements TreeReporter describes its supernodal
// elimination tree; Tree.Span bounds the speed-up of a whole-block solve on
// any number of workers (gmlg bench prints it as "tree W/D").
//
// A matrix that is not positive definite gives a *NotPosDefError, which
// matches ErrNotPosDef with errors.Is. Programmer errors (wrong slice
// lengths, use after Close) panic with a message prefixed by the backend name.
package factor
