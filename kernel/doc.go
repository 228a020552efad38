// Package kernel builds the heat kernel of a weighted graph and applies it,
// with its exact adjoint, to blocks of histograms.
//
// # Graphs
//
// Grid and Cube build 2-D and 3-D Cartesian grids (4 or 6 neighbours). The
// vertex order is C order with axis 0 the fastest (docs/method.md,
// "Grid and vertex order"): for a 2-D image I[r,c], axis 0 is the column
// ("horizontal") and axis 1 the row ("vertical"); for a colour histogram
// H[R,G,B], axis 0 is B, 1 is G, 2 is R.
// Every grid edge knows its axis. FromEdges builds a general undirected graph
// from an edge list (validated: indices in range, no self-loops, no
// duplicates); on a disconnected graph the kernel never moves mass between
// components.
//
// # Metrics
//
// The learned metric is a set of positive edge weights w. Two
// parameterisations are provided: EdgeMetric (one free weight per edge, the
// paper's) and VertexMetric (a diagonal tensor per vertex, stored as the
// reference's [d,N] array and averaged onto edges: the reference default).
// PadEdges/UnpadEdges convert edge weights to and from the reference's padded
// [d,N] layout.
//
// # The heat kernel
//
// Heat applies K = M^−S with M = I + (t/S)·α·L_w (backward Euler, the
// default) where L_w = diag(W·1) − W is the positive semi-definite weighted
// Laplacian, t the diffusion time (the reference's t_heat; the paper's
// ε = 4t, so K approximates the Gibbs kernel exp(−d²/ε)), S the number of
// implicit sub-steps (the reference's k_heat, the paper's S; called Steps
// here) and α = 1/h² = (n−1)² on grids, so that t is independent of the
// resolution on the unit cube. Crank–Nicolson is available as an option.
//
// Blocks of C vectors are stored column-major: column k of a block is
// data[k*N:(k+1)*N]. One Apply performs S multi-right-hand-side solves on the
// whole block, so batching every Sinkhorn scaling of every frame into one
// block costs S solves per Sinkhorn half-iteration, whatever the number of
// frames.
//
//	g, _ := kernel.Cube(2, 50)
//	h, _ := kernel.NewHeat(g, &kernel.HeatOptions{T: 3e-3, Steps: 100})
//	defer h.Close()
//	h.SetWeights(w)           // refactorises; the analysis was done once
//	h.Apply(dst, src, cols)   // dst = K·src
//
// # Adjoint
//
// Adjoint back-propagates through one application: from src and the
// gradient gdst of the output it returns K·gdst and adds the weight gradient
// of docs/method.md, "Kernel gradient" (the paper's Proposition 1 with the
// reference's minus sign):
//
//	∂F/∂w_{ij} = −(α t/S) Σ_{l=1..S} (u_l[i]−u_l[j])·(v_{l−1}[i]−v_{l−1}[j])
//
// with u_l = M^−l·src and v_{l−1} = M^−(S−l+1)·gdst. By default (Memory =
// Recompute) nothing is kept between calls: the backend's
// factor.StepSolver recomputes the forward chain beside the adjoint one
// and sums the edges in its solves' interleaved layout (no column-major
// copy of either chain, each pair summed while one of its steps is in
// cache). With package sparsechol's engine, which solves for "cholmod"
// and "go" alike, that takes 2·(⌈S/2⌉+1)·N·C′ floats with C′ = C rounded
// up to a multiple of 4 (16 from 9 to 12 columns on AVX-512), kept with
// the backend's workspace, and Apply+Adjoint costs 3·S solves in about
// 2·S solve times on two cores. Memory = Store records every forward
// chain instead (the reference's strategy): Adjoint then runs the adjoint
// chain alone and sums the edges over the two column-major chains.
// Crank–Nicolson, whose sub-steps multiply by Mcn between the solves,
// takes that column-major path too.
//
// # Backends
//
// The factorisation backend is a factor.Factorizer whose factors are
// factor.StepSolvers: "cholmod" (SuiteSparse CHOLMOD factorises, and
// orders general graphs; package sparsechol's engine orders grids and
// solves; cgo builds, the default there), "go" (the pure-Go sparse
// Cholesky and the same engine, the default without cgo) or "dense"
// (gonum, small graphs, the test oracle, whose StepSolver runs serially).
// Backend(name) selects one; Backends lists what this binary has. The "go"
// backend's dense supernode updates run on OpenBLAS, through gonum's netlib
// bindings, in cgo builds and on gonum's pure-Go BLAS without cgo; cgo
// builds also offer "go-purego", the same factorisation on gonum's BLAS, to
// compare the two. Only these backends see the choice: no process-wide
// BLAS setting (blas64.Use) is made. Every solve of Heat is a SolveSteps
// call: the S backward Euler sub-steps of an application, a recorded
// chain or an adjoint chain are one call, so the backend keeps the block
// in its own (interleaved, permuted) layout between the sub-steps.
//
// # Threads
//
// The backend's StepSolver owns the concurrency of the solves: the engine
// of "cholmod" and "go" runs every solve on a team of up to
// HeatOptions.Threads workers with the block whole (package sparsechol,
// "Parallelism"), and the two chains of a backward Euler Recompute
// adjoint side by side on half of them each (unless Serial or
// GOMAXPROCS < 2). Heat itself runs on the caller's goroutine; the dense
// oracle runs serially.
//
// OpenBLAS keeps one thread: the backends whose factorisation calls it
// ("cholmod", whose supernodal kernels do, and "go" in cgo builds) set its
// thread count to 1, process-wide, at the start of every Analyze
// (cholmod.SetBLASThreads; backend_cgo.go), whatever HeatOptions.Threads
// says. Threaded OpenBLAS products round differently for each thread
// count, and the engine's workers keep the cores. This is the module's
// only BLAS thread setting; package cholmod sets nothing by itself.
//
// Every value Apply and Adjoint return is bitwise the same for any
// GOMAXPROCS, HeatOptions.Threads and Serial, on every backend: CHOLMOD
// factorises on one BLAS thread, and the engine cuts its tree the same way
// for any number of workers (package sparsechol, "Parallelism").
// learn's TestEvalThreadsBitwise checks F and ∇F for 1 to 16 threads.
package kernel
