// Package learn learns the ground metric of a graph from sequences of
// histograms (the paper's §4; docs/method.md, "Objective and gradient").
//
// # The objective
//
// Objective is F(x) over the log metric x = log θ (VertexMetric: one
// weight per grid vertex and axis, the reference's; EdgeMetric: one per
// edge, for general graphs): the loss (ot.L2, ot.L1 or ot.KL) between each
// observed frame and its reconstruction, the Sinkhorn barycenter of its
// sequence's poles under the heat kernel of the metric (kernel.Heat,
// ot.Interpolator), plus the regularisers λ_c f_c and λ_s f_s
// (Regularizer). Eval returns F and its gradient by a hand-written reverse
// pass; every value matches the reference implementation's (docs/method.md,
// "Reference values").
//
// # The optimiser
//
// Minimize is L-BFGS with the reference's settings (m = 20, Moré–Thuente
// line search). Its Observer receives every accepted iterate with the
// complete optimiser State, from which a run resumes exactly. A trial step
// whose evaluation fails for numerical reasons restarts the line search at
// a tenth of that step; a Tightener (a tolerance-mode Objective) tightens
// its tolerance when a line search fails.
//
// # Exact and tolerance mode
//
// Config.Sinkhorn chooses the model: exact mode, the zero value, is the
// reference's (L iterations from scratch and their exact gradient);
// tolerance mode (Config.Sinkhorn.Tol > 0) uses the converged barycenters
// (see Objective). A metric is evaluated with the model it was learned in.
//
// # Interpolating under a metric
//
// NewKernel returns the heat kernel of a model at a metric θ; ot.Interpolate
// under it, with the model's Sinkhorn settings, gives the frames that an
// Objective built with the same Config reconstructs:
//
//	h, err := learn.NewKernel(g, theta, cfg)
//	defer h.Close()
//	recs, err := ot.Interpolate(h, []ot.Sequence{{Source: p, Target: q, Frames: 10}}, &cfg.Sinkhorn)
//
// # A learning run
//
// Run owns a whole learning run: optional warm-up levels (on halved grids,
// or on the given graph with a cheaper heat kernel: Level.Steps), the
// given graph, and in tolerance mode an optional Polish on the
// exact-mode Objective. It reports through one Observer, encoded
// Checkpoints included; RunSettings.Resume continues from one (bit for bit
// in exact mode).
package learn
