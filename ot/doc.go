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
// Barycenter (R ≥ 1 histograms, any weights) and the Interpolator (many
// barycenters of two poles at once). Interpolate is one forward pass of an
// Interpolator: the displacement interpolation that synthetic data (package
// learn/synth), the colour sunset and gmlg interp compute. Linear is the
// interpolation without transport that it is compared with.
//
// The displacement interpolation between P₀ and P₁ at time t ∈ [0, 1] is
// the barycenter with weights λ = (1−t, t). gmlg follows the reference
// implementation exactly (docs/method.md, "Barycenters and
// interpolation"): b starts at 1, the loop runs L times with no early
// stopping, no log-domain stabilisation and no renormalisation (interior
// frames have a mass slightly below 1), the λ-weighted sum of logs is taken
// in k order, and a frame whose weight is exactly 1 is K·(P/K·1), the pole
// blurred once by the kernel (Settings.IterateEndpoints runs it through the
// loop instead, as the reference's colour interpolation does).
//
// # Interpolating many sequences at once
//
// The kernel is an operator (Kernel; DiffKernel adds the adjoint of one
// application): gmlg's heat kernel is one, and package ot never factorises
// anything nor imports package kernel. An Interpolator is built once for a
// kernel, a list of Sequences and its Settings; Forward advances all
// interior frames of all sequences in lock-step, each kernel application
// ONE Apply on the N×C block of all frames' columns, and nothing is
// allocated after NewInterpolator.
//
//	ip, err := ot.NewInterpolator(k, seqs, &ot.Settings{Iterations: 50})
//	recs, err := ip.Forward()             // recs[s][j], length N each
//	// loss and its gradient grec[s][j] = ∂loss/∂recs[s][j], e.g. ot.L2.Eval
//	err = ip.Backward(gtheta, grec)       // adds ∂loss/∂θ into gtheta
//
// # Stopping rule and gradient
//
// The zero Settings are the exact mode: L iterations from b = 1, the
// reference's reconstructions bitwise, and the unrolled gradient through a
// tape of the L iterations. With Settings.Tol > 0 the iterations run to a
// marginal tolerance (the converged barycenters, which the fixed-L ones
// approach as L grows), warm-started from the previous call and optionally
// accelerated by Anderson mixing, and the gradient is implicit: the adjoint
// of the fixed point, with no tape whatever the number of iterations (it
// can also be asked of a fixed L, for comparison). That makes large
// problems affordable: the memory does not grow with L, unlike the
// unrolled tape's, and a warm-started evaluation close to the last one
// takes a few iterations.
//
// # Memory
//
// The unrolled Backward runs the L iterations backwards from a tape of K·b,
// K·a and q of every iteration (keeping q spares the reverse pass two
// logarithms and an exponential per entry, about a tenth of a 2-D
// evaluation's time). WorkspaceBytes gives the workspace before anything
// is built: for the reference's toy data (N = 2500, 11 frames, L = 50) it
// is 47 MB, against about 4 GB for the reference, which stores every
// kernel sub-step. The kernel's own adjoint may need more.
//
// # Threads
//
// The kernel applications use the kernel's own threads. The elementwise
// work of the iterations, of the reverse passes, of Anderson mixing and of
// GMRES runs on GOMAXPROCS goroutines, in parts of rows, of frames or of
// entries; a sum over a column or a frame is never cut, and a sum over a
// whole vector sums each chunk of 4096 entries and then the chunks in a
// fixed order, so every value is bitwise the same for any GOMAXPROCS.
//
// # Errors
//
// Without log-domain stabilisation, a small diffusion time or sharp data
// make K·b underflow. A frame whose mass is NaN, infinite or zero stops
// the computation with a *NonFiniteError naming the parameters to change;
// no NaN is handed on. Programmer errors (wrong lengths, Backward without
// Forward) panic with an "ot:" prefix.
package ot
