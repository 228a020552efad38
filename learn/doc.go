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
// count). Its callback receives every accepted iterate with the complete
// optimiser State, from which a run resumes exactly; ctx cancels it.
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
// learned with. MinimizeFast tightens the tolerance when a line search
// fails. CoarseToFine learns on grids halved once or more first
// (RestrictHistogram, ProlongVertexMetric), and its Polish ends the run
// with L-BFGS in exact mode, from the iterate that scores best there.
package learn
