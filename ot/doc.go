// Package ot computes entropic optimal-transport barycenters and
// displacement interpolations over any kernel operator, and back-propagates
// through them by a hand-written reverse pass.
//
// # The problem
//
// Given R histograms P_0..P_{R−1} on N vertices and weights λ in the
// simplex, the entropic Wasserstein barycenter solves
//
//	q* = argmin_q Σ_k λ_k · W_ε(P_k, q),
//	W_ε(a, b) = min_{π ∈ U(a,b)} ⟨C, π⟩ − ε·H(π),   H(π) = −Σ π_ij (log π_ij − 1),
//
// and with the Gibbs kernel K = exp(−C/ε) it is computed by the Sinkhorn
// barycenter iterations of Benamou et al. (2015), the paper's Algorithm 1:
//
//	b_k = 1
//	repeat L times:
//	    a_k = P_k / K·b_k
//	    q   = exp(Σ_k λ_k·log K·a_k)
//	    b_k = q / K·a_k
//
// One routine runs these iterations for every computation of the package:
// Barycenter (R ≥ 1 histograms, any weights, uniform by default) and the
// Interpolator (many barycenters of two poles at once) are configurations
// of it, and Interpolate is one forward pass of an Interpolator: the
// displacement interpolation that synthetic data (package learn/synth), the
// colour sunset and gmlg interp compute. Linear is the interpolation
// without transport that it is compared with.
//
// The displacement interpolation between two histograms P₀ and P₁ at time
// t ∈ [0, 1] is the barycenter with weights λ = (1−t, t). gmlg follows the
// reference implementation exactly (docs/method.md,
// "Barycenters and interpolation"): b is initialised to 1, the loop runs L
// times with no early stopping, no log-domain stabilisation and no
// renormalisation (interior frames have a mass slightly below 1), q is the
// exp of the λ-weighted sum of logs taken in k order, and a frame whose
// weight is exactly 1 (t = 0 or t = 1) is K·(P/K·1), the pole blurred once by
// the kernel. The reference's colour interpolation runs such a frame through
// the loop instead, with weights (1, 0); Settings.IterateEndpoints does so.
//
// # Kernels
//
// The kernel is an operator: Kernel.Apply(dst, src, cols) multiplies a
// column-major N×cols block, and DiffKernel adds the adjoint of one
// application (the input gradient Kᵀ·g and the parameter gradient). gmlg's
// heat kernel K = M^{−S}, M = I + (t/S)·α·L_w (package kernel) is one; its
// conventions (t_heat = ε/4, α = (n−1)², backward Euler) belong to that
// package. Package ot never factorises anything and never imports kernel.
//
// # Interpolating many sequences at once
//
// An Interpolator is built once for a kernel, a list of Sequences (each
// with its own poles and frame times; Linspace gives numpy.linspace times)
// and its Settings. Forward advances all interior frames of
// all sequences in lock-step: with F interior frames in all, C = 2F, each
// Sinkhorn iteration makes two kernel applications, each ONE Apply on an
// N×C block whose column 2f+k belongs to pole k of frame f. Endpoint frames
// share one Apply on their N×E block, and K·1 is computed once. Nothing is
// allocated after NewInterpolator.
//
//	ip, err := ot.NewInterpolator(k, seqs, &ot.Settings{Iterations: 50})
//	recs, err := ip.Forward()             // recs[s][j], length N each
//	// loss and its gradient grec[s][j] = ∂loss/∂recs[s][j], e.g. ot.L2.Eval
//	err = ip.Backward(gtheta, grec)       // adds ∂loss/∂θ into gtheta
//
// # Stopping rule and gradient
//
// Settings choose how the iterations stop and how Backward differentiates.
// The zero value is the exact mode: a fixed number L of iterations from
// b = 1, the reference's reconstructions bitwise, and the unrolled gradient
// through a tape of the L iterations, exact for them. With Settings.Tol > 0
// the iterations run to a marginal tolerance (the converged barycenters,
// which the fixed-L ones approach as L grows), warm-started from the
// previous call and optionally accelerated by Anderson mixing, and the
// gradient is implicit: the adjoint of the fixed point, solved by a
// fixed-point iteration or by GMRES, with no tape whatever the number of
// iterations. That is what makes large problems affordable: the memory no
// longer grows with L, and a warm-started evaluation at a point close to
// the last one takes a few iterations. An implicit gradient can also be
// asked of a fixed L, for comparison. Stats reports the iterations and
// residuals of the last calls.
//
// # Reverse pass and memory
//
// The unrolled Backward runs the L iterations backwards. The tape holds K·b, K·a and the
// reconstructions q of every iteration (two N×C blocks and one N×C/2 per
// iteration); a = P/K·b and b = q/K·a are recomputed elementwise. (Keeping q
// costs L·N·C/2 floats and spares the reverse pass the two logarithms and
// the exponential per entry that recomputing it took: about a tenth of a
// 2-D evaluation's time, all of it on one core.) Each iteration costs two adjoint calls on N×C
// blocks, plus one on the endpoint block and a one-column call for the
// shared K·1 (whose parameter gradient vanishes for a mass-preserving kernel
// such as the heat kernel, K(θ)·1 = 1, which declares it by OnesPreserving
// and spares the call, but not for a general one). The workspace of an
// exact-mode Interpolator takes
//
//	8·N·((2.5·L+5)·C + 4E + 3) bytes
//
// (Settings.ForwardOnly drops the tape: 8·N·(5.5·C + 2E + 2) bytes; the
// implicit gradient keeps no tape: 8·N·(13.5·C + 6E + 3) bytes).
// WorkspaceBytes gives these sizes before anything is built, and
// Interpolator.MemoryBytes reports the same for a built one.
// For the reference's toy data (N = 2500, 11 frames, C = 18, E = 2, L = 50)
// that is 47 MB, against about 4 GB for the reference, which stores every
// kernel sub-step. The kernel's own adjoint may need more (the heat kernel
// recomputes or stores its S sub-steps per call).
//
// # Threads
//
// The kernel applications use the kernel's own threads. The elementwise
// work of every Sinkhorn iteration (the scalings, the barycenters, the
// violations), of the unrolled reverse pass, of the implicit gradient's
// adjoint map, of Anderson mixing (its logarithms, then each frame's
// least-squares mix), of GMRES (its inner products, updates and
// scalings) and of the fixed-point adjoint's residual runs on GOMAXPROCS
// goroutines, in parts of rows, of frames or of entries; a sum over a
// column or a frame is never cut, and a sum over a whole vector (an inner
// product, the residual) sums each chunk of 4096 entries and then the
// chunks in a fixed order, so every value is bitwise the same for any
// GOMAXPROCS.
//
// # Losses
//
// Loss selects the data term (docs/method.md, "Losses") between a
// reconstruction p and an observation q: L2 = N·Σ(p−q)² (the default),
// L1 = Σ|p−q| and KL = Σ p·log(p/q) − p + q. Loss.Eval returns the value and
// the gradient with respect to p.
//
// # Errors
//
// Without log-domain stabilisation, a small diffusion time or sharp data
// make K·b underflow. Every iteration checks the mass of every frame; a mass
// that is NaN, infinite or zero stops the computation with a
// *NonFiniteError (errors.Is(err, ErrNonFinite)) naming the sequence, frame
// and iteration and the parameters to change (increase t, lower L, or add a
// floor to the histograms). No NaN is handed on and nothing exits.
// Programmer errors (wrong lengths, Backward without Forward) panic with an
// "ot:" prefix.
package ot
