// Package kernel builds the heat kernel of a weighted graph and applies it,
// with its exact adjoint, to blocks of histograms.
//
// # Graphs and metrics
//
// Grid and Cube build Cartesian grids (2·d neighbours), vertex order C
// order with axis 0 the fastest (docs/method.md, "Grid and vertex order"),
// every edge knowing its axis. FromEdges builds a general undirected graph
// from a validated edge list.
//
// The learned metric is a set of positive edge weights w, parameterised by
// EdgeMetric (one free weight per edge, the paper's) or VertexMetric (a
// diagonal tensor per vertex averaged onto edges, the reference default).
// PadEdges/UnpadEdges convert edge weights to and from the reference's
// padded [d,N] layout.
//
// # The heat kernel
//
// Heat applies K = M^−S with M = I + (t/S)·α·L_w (backward Euler, the
// default; Crank–Nicolson is an option) where L_w = diag(W·1) − W is the
// weighted Laplacian, t the diffusion time (the reference's t_heat; the
// paper's ε = 4t, so K approximates the Gibbs kernel exp(−d²/ε)), S the
// number of implicit sub-steps (the reference's k_heat; Steps here) and
// α = 1/h² = (n−1)² on grids, so that t does not depend on the resolution
// on the unit cube.
//
// Blocks of C vectors are stored column-major: column k of a block is
// data[k*N:(k+1)*N]. One Apply performs S multi-right-hand-side solves on
// the whole block, so batching every Sinkhorn scaling of every frame into
// one block costs S solves per Sinkhorn half-iteration, whatever the
// number of frames.
//
//	g, _ := kernel.Cube(2, 50)
//	h, _ := kernel.NewHeat(g, &kernel.HeatOptions{T: 3e-3, Steps: 100})
//	defer h.Close()
//	h.SetWeights(w)           // refactorises; the analysis was done once
//	h.Apply(dst, src, cols)   // dst = K·src
//
// Adjoint back-propagates through one application (docs/method.md,
// "Kernel gradient"). By default (Memory = Recompute) nothing is kept
// between calls: the backend's factor.StepSolver recomputes the forward
// chain beside the adjoint one and sums the edges in its solves'
// interleaved layout, so Apply+Adjoint costs 3·S solves in about 2·S solve
// times on two cores. With package sparsechol's engine that takes
// 2·(⌈S/2⌉+1)·N·C′ floats, C′ = C rounded up to a multiple of 4 (16 from 9
// to 12 columns on AVX-512). Memory = Store records every forward chain
// instead (the reference's strategy) and sums the edges over column-major
// chains, as Crank–Nicolson always does.
//
// # Backends
//
// The factorisation backend is a factor.Factorizer whose factors are
// factor.StepSolvers (see Backend): "cholmod" and "go" factorise with
// CHOLMOD or in pure Go and solve with package sparsechol's engine, "dense"
// is the gonum oracle for small graphs. The "go" backend's dense supernode
// updates run on OpenBLAS through gonum's netlib bindings in cgo builds
// ("go-purego" is the same on gonum's BLAS, to compare), passed to the
// backend rather than installed with blas64.Use, so no other gonum BLAS
// call of the process changes. Every solve of Heat is one SolveSteps call
// for all the sub-steps of an application or chain, so the backend keeps
// the block in its own layout between them.
//
// # Threads
//
// The backend's StepSolver owns the concurrency of the solves: the engine
// runs every solve on a team of up to HeatOptions.Threads workers, and the
// two chains of a backward Euler Recompute adjoint side by side on half of
// them each (unless Serial or GOMAXPROCS < 2). Heat itself runs on the
// caller's goroutine.
//
// The backends whose factorisation calls OpenBLAS set its thread count to
// 1, process-wide, at the start of every Analyze (backend_cgo.go): threaded
// OpenBLAS products round differently for each thread count, and the
// engine's workers keep the cores. This is the module's only BLAS thread
// setting. With it, and the engine cutting its tree the same way for any
// number of workers, every value Apply and Adjoint return is bitwise the
// same for any GOMAXPROCS, HeatOptions.Threads and Serial, on every
// backend; learn's TestEvalThreadsBitwise checks it for 1 to 16 threads.
// OpenBLAS picks its kernels by the processor's model at start-up; BLAS
// reports which (OnBLAS, which backends they serve) and, where it fell back
// to old ones on a processor with AVX2 and FMA, the OPENBLAS_CORETYPE that
// selects the processor's own. The package reads that choice and never
// sets it.
package kernel
