// Package learn learns the ground metric of a graph from sequences of
// histograms (the paper's §4; docs/method.md, "Objective and gradient").
//
// # The objective
//
// Objective is F(x) over the log-domain variable x = log θ, θ the metric
// (VertexMetric: one weight per grid vertex and axis, the reference's; or
// EdgeMetric: one per edge, for general graphs): the data term — loss
// (ot.L2, ot.L1 or ot.KL) between each observed frame and its
// reconstruction, the Sinkhorn barycenter of its sequence's first and last
// frames after L iterations from scratch (ot.Interpolator) under the heat
// kernel of the metric (kernel.Heat) — plus the regularisers λ_c f_c and
// λ_s f_s (Regularizer). Eval returns F and its gradient, computed by a
// hand-written reverse pass through the L iterations and the kernel's exact
// adjoint; every value matches the reference implementation's
// (docs/method.md, "Reference values").
//
// # The optimiser
//
// Minimize is L-BFGS with the reference's settings (m = 20, Moré–Thuente
// line search, stops on relative decrease, gradient norm and iteration
// count). Its Observer receives every accepted iterate with the complete
// optimiser State, from which a run resumes exactly; ctx cancels it. A
// trial step whose evaluation fails for numerical reasons (a value that is
// not finite, a weight or metric out of range, a factorisation that met a
// non-positive pivot, a tolerance-mode correction that would make the data
// term negative) restarts the line search at a tenth of that step;
// any other error stops the run. For a Tightener (a tolerance-mode
// Objective) a failed line search tightens the objective's tolerance and
// the optimisation goes on.
//
// # Exact and tolerance mode
//
// Config.Sinkhorn chooses the model, and one Objective computes either.
// Exact mode, the zero value, is the reference's: L iterations from scratch
// and the exact gradient through them, at a memory that grows with L.
// Tolerance mode (Config.Sinkhorn.Tol > 0) uses the converged barycenters
// instead: each iterated to a marginal tolerance from the last accepted
// point's scalings, the implicit gradient of the fixed point, and a value
// corrected to first order for the remaining error; its memory does not
// depend on the number of iterations, and warm-started evaluations take a
// few. The two models differ, so a metric is evaluated with the one it was
// learned with.
//
// # Interpolating under a metric
//
// NewKernel returns the heat kernel of a model at a metric θ (nil θ: unit
// weights); ot.Interpolate under it, with the model's Sinkhorn settings,
// gives the frames that an Objective built with the same Config
// reconstructs:
//
//	h, err := learn.NewKernel(g, theta, cfg)
//	defer h.Close()
//	recs, err := ot.Interpolate(h, []ot.Sequence{{Source: p, Target: q, Frames: 10}}, &cfg.Sinkhorn)
//
// # A learning run
//
// Run owns a whole learning run: optional coarse levels on grids halved
// once or more (RestrictSequences, kernel.ProlongVertexMetric), the given graph,
// and in tolerance mode an optional Polish on the exact-mode Objective
// from the iterate that scores best on it. It builds each level's
// objective, minimises it with Minimize, and reports through one Observer:
// level starts and ends, iterations, line-search trials, polish scores and
// encoded Checkpoints ready to be written. RunSettings.Resume continues
// from such a checkpoint (bit for bit in exact mode).
package learn
