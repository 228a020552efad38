package learn

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// MetricKind selects the metric parameterisation.
type MetricKind int

const (
	// VertexMetric, the default and the reference's, is a [d,N] array of
	// per-vertex axis weights averaged onto the edges.
	VertexMetric MetricKind = iota
	EdgeMetric              // one weight per edge (the paper's; general graphs)
)

var metricNames = []string{VertexMetric: "vertex", EdgeMetric: "edge"}

func (k MetricKind) String() string { return enumString(k, metricNames, "MetricKind") }

// ParseMetricKind is the inverse of MetricKind.String.
func ParseMetricKind(s string) (MetricKind, error) {
	return parseEnum[MetricKind](s, metricNames, "metric")
}

// enumString returns names[v], or typ(v) for a value without a name.
func enumString[T ~int](v T, names []string, typ string) string {
	if v >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseEnum returns the value named s in names; what names the enum in the
// error.
func parseEnum[T ~int](s string, names []string, what string) (T, error) {
	if i := slices.Index(names, s); i >= 0 && s != "" {
		return T(i), nil
	}
	return 0, fmt.Errorf("learn: unknown %s %q (want %s)", what, s, strings.Join(names, " or "))
}

// On returns the parameterisation of kind k on g: kernel.VertexMetric,
// which needs a grid, or kernel.EdgeMetric.
func (k MetricKind) On(g *kernel.Graph) (kernel.Metric, error) {
	switch k {
	case VertexMetric:
		if !g.IsGrid() {
			return nil, errors.New("learn: the vertex metric needs a grid; use EdgeMetric on general graphs")
		}
		return kernel.VertexMetric{G: g}, nil
	case EdgeMetric:
		return kernel.EdgeMetric{G: g}, nil
	}
	return nil, fmt.Errorf("learn: unknown metric kind %d", k)
}

// NewKernel returns the heat kernel of cfg.Heat on g at the metric θ of
// kind cfg.Metric (nil θ: unit weights), under which an Objective built
// with cfg reconstructs its frames at θ (ot.Interpolate with
// cfg.Sinkhorn). The caller closes it. A heat matrix that is not positive
// definite gives an error wrapping factor.ErrNotPosDef.
func NewKernel(g *kernel.Graph, theta []float64, cfg *Config) (*kernel.Heat, error) {
	m, err := cfg.Metric.On(g)
	if err != nil {
		return nil, err
	}
	w := make([]float64, g.NumEdges())
	if theta == nil {
		for i := range w {
			w[i] = 1
		}
	} else {
		m.Weights(w, theta)
	}
	h, err := kernel.NewHeat(g, &cfg.Heat)
	if err != nil {
		return nil, fmt.Errorf("learn: %w", err)
	}
	if err := h.SetWeights(w); err != nil {
		h.Close()
		return nil, fmt.Errorf("learn: %w", err)
	}
	return h, nil
}

var errMetricOverflow = errors.New("metric out of range")

// Sequence is one observed sequence of frames (histograms of length N,
// summing to 1), whose first and last frames are the poles.
type Sequence struct {
	Frames [][]float64
	// Times of the frames in [0,1]; nil means numpy.linspace(0,1,len(Frames)).
	Times []float64
}

// Config holds the model's settings. Zero fields take the documented defaults.
type Config struct {
	// Heat configures the heat kernel (see kernel.HeatOptions).
	Heat kernel.HeatOptions
	// Sinkhorn configures the barycenters. The zero value is exact mode:
	// L = Sinkhorn.Iterations (50) iterations from b = 1 and the unrolled
	// gradient. Sinkhorn.Tol > 0 is tolerance mode (see Objective).
	Sinkhorn ot.Settings
	// LooseTol (tolerance mode), when positive, makes the tolerances
	// adaptive: they start at LooseTol, and after each accepted point x_k
	// both become LooseTol·‖g_k‖∞/‖g₀‖∞ (g₀ at the start) clamped to
	// [Sinkhorn.Tol, LooseTol]; a line search sees one tolerance throughout.
	LooseTol float64
	// Uncorrected (tolerance mode) returns the objective at the last
	// Sinkhorn iterate. By default an evaluation with a gradient adds
	// zᵀ·(T̃(b) − b) (ot.Stats.Correction), the first-order term of the
	// difference between the converged objective and its value at the
	// unconverged scalings: the error left is of second order in the
	// marginal violation, so the value barely depends on the warm start's
	// path, as the line search needs. A correction that would make the data
	// term negative fails the evaluation. Evaluations without a gradient
	// are never corrected.
	Uncorrected bool
	// Tighten (tolerance mode) bounds how often Minimize divides the
	// tolerances by 10 when a line search fails (Tightener). 0 means
	// DefaultTighten; a negative value disables it.
	Tighten int
	Loss    ot.Loss    // the data term; the zero value is ot.L2 (N·Σ(p−q)²)
	Metric  MetricKind // the parameterisation; VertexMetric needs a grid
	// LambdaC and LambdaS weight the regularisers f_c and f_s
	// (docs/method.md, "Regularisers"); zero disables a term.
	LambdaC, LambdaS float64
	Smooth           Smoothness // the form of f_s
	RegularizeOnce   bool       // count the regulariser once, not per sequence as the reference
	// SkipEndpoints leaves the poles out of the data term. The reference
	// includes them, reconstructed as K(P/K·1), which no metric can make
	// equal to P, so they bias the metric towards less diffusion around
	// the poles.
	SkipEndpoints bool
}

// Objective is the function minimised by the learner, over the log-domain
// variable x = log θ (θ the metric parameters, all positive):
//
//	F(x) = Σ_s Σ_j loss(rec_{s,j}(e^x), obs_{s,j}) + R·(λ_c f_c(e^x) + λ_s f_s(e^x))
//
// where rec_{s,j} is the Sinkhorn barycenter of sequence s's first and last
// frames at time t_j under the heat kernel of the metric, and R is the number
// of sequences (1 with RegularizeOnce). An Objective owns a factorised heat
// kernel and must be closed; it is not safe for concurrent use.
//
// In exact mode (the default) every reconstruction is the barycenter after
// L Sinkhorn iterations from b = 1, as in the reference, and the gradient
// is exact. In tolerance mode every reconstruction is the converged
// barycenter and its gradient the implicit gradient of that fixed point,
// at a memory that does not grow with L. Evaluations are warm-started from
// the last accepted point, never from a rejected trial: from there the
// tolerance-level error varies smoothly along a line search, whereas from
// the previous trial it would depend on the trials' path. The two modes
// agree only as L → ∞: evaluate a metric with the mode it was learned in.
type Objective struct {
	cfg    Config
	g      *kernel.Graph
	metric kernel.Metric
	heat   *kernel.Heat
	interp *ot.Interpolator
	reg    *Regularizer
	obs    [][][]float64

	theta, w, gw, gtheta []float64
	grec                 [][][]float64
	last                 Terms

	// Tolerance mode's state.
	accepted  ot.WarmStart // warm start of the last accepted point
	hasAcc    bool
	totals    Totals
	gmax      float64 // ‖∇F‖∞ of the last evaluation with a gradient
	gmax0     float64 // that of the first accepted point (LooseTol)
	tightened int     // tolerance tightenings so far (Tighten)
}

// Terms breaks an objective value down.
type Terms struct {
	Data        float64     // Σ losses (plus Correction)
	PerFrame    [][]float64 // loss of each frame of each sequence
	Correction  float64     // tolerance mode: the first-order correction included in Data (Config.Uncorrected); 0 otherwise
	FC, FS      float64     // regulariser terms without λ (counted once)
	Regularizer float64     // what the regularisers add to F
	F           float64     // total
}

// NewObjective builds the objective for sequences observed on graph g.
// Frames must be non-negative, finite and of length g.N(); each sequence
// needs at least 2 frames (3 or more to constrain anything).
func NewObjective(g *kernel.Graph, seqs []Sequence, cfg *Config) (*Objective, error) {
	o := &Objective{g: g}
	if cfg != nil {
		o.cfg = *cfg
	}
	if len(seqs) == 0 {
		return nil, errors.New("learn: no sequence to learn from")
	}
	var err error
	if o.metric, err = o.cfg.Metric.On(g); err != nil {
		return nil, err
	}
	if o.reg, err = NewRegularizer(g, o.metric, o.cfg.LambdaC, o.cfg.LambdaS, o.cfg.Smooth); err != nil {
		return nil, err
	}
	n := g.N()
	osq := make([]ot.Sequence, len(seqs))
	for s, sq := range seqs {
		if len(sq.Frames) < 2 {
			return nil, fmt.Errorf("learn: sequence %d has %d frames, need at least 2", s, len(sq.Frames))
		}
		if sq.Times != nil && len(sq.Times) != len(sq.Frames) {
			return nil, fmt.Errorf("learn: sequence %d: %d times for %d frames", s, len(sq.Times), len(sq.Frames))
		}
		frames := make([][]float64, len(sq.Frames))
		for j, f := range sq.Frames {
			if len(f) != n {
				return nil, fmt.Errorf("learn: sequence %d frame %d has length %d, want N=%d", s, j, len(f), n)
			}
			for i, v := range f {
				if !(v >= 0) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("learn: sequence %d frame %d entry %d is %v; frames must be finite and ≥ 0", s, j, i, v)
				}
			}
			frames[j] = append([]float64(nil), f...)
		}
		o.obs = append(o.obs, frames)
		osq[s] = ot.Sequence{Source: frames[0], Target: frames[len(frames)-1], Times: sq.Times, Frames: len(frames)}
	}
	if o.cfg.LooseTol < 0 || math.IsNaN(o.cfg.LooseTol) {
		return nil, fmt.Errorf("learn: LooseTol = %v, want ≥ 0", o.cfg.LooseTol)
	}
	if o.heat, err = kernel.NewHeat(g, &o.cfg.Heat); err != nil {
		return nil, fmt.Errorf("learn: %w", err)
	}
	o.cfg.Heat = o.heat.Options()
	if o.interp, err = ot.NewInterpolator(o.heat, osq, &o.cfg.Sinkhorn); err != nil {
		o.heat.Close()
		return nil, fmt.Errorf("learn: %w", err)
	}
	o.cfg.Sinkhorn = o.interp.Settings()
	if o.cfg.LooseTol > 0 && !o.Exact() {
		o.interp.SetTol(math.Max(o.cfg.LooseTol, o.cfg.Sinkhorn.Tol), math.Max(o.cfg.LooseTol, o.cfg.Sinkhorn.AdjointTol))
	}
	np, ne := o.metric.NumParams(), g.NumEdges()
	o.theta, o.gtheta = make([]float64, np), make([]float64, np)
	o.w, o.gw = make([]float64, ne), make([]float64, ne)
	o.grec = make([][][]float64, len(o.obs))
	o.last.PerFrame = make([][]float64, len(o.obs))
	for s := range o.obs {
		o.grec[s] = make([][]float64, len(o.obs[s]))
		o.last.PerFrame[s] = make([]float64, len(o.obs[s]))
		for j := range o.grec[s] {
			o.grec[s][j] = make([]float64, n)
		}
	}
	return o, nil
}

// ObjectiveBytes returns the bytes that an Objective holds besides its
// heat kernel and regulariser, for n vertices, params metric parameters,
// edges edges, and c interior columns and e endpoint frames of its
// Sinkhorn workspace under s (ot.Interpolator.Columns): that workspace,
// the frames and their loss gradients (c/2 + e of n values each), and θ
// and the edge weights with their gradients. Package limits estimates an
// Objective's memory with it before building one.
func ObjectiveBytes(n, params, edges, c, e int, s *ot.Settings) float64 {
	frames := float64(c/2 + e)
	return ot.WorkspaceBytes(n, c, e, s) + 16*(frames*float64(n)+float64(params)+float64(edges))
}

// MemoryBytes returns ObjectiveBytes of the objective's sizes and settings.
func (o *Objective) MemoryBytes() int {
	c, e := o.interp.Columns()
	return int(ObjectiveBytes(o.g.N(), len(o.theta), len(o.w), c, e, &o.cfg.Sinkhorn))
}

// Close releases the heat kernel's factorisation.
func (o *Objective) Close() error { return o.heat.Close() }

// Dim returns the number of optimisation variables (metric parameters).
func (o *Objective) Dim() int { return len(o.theta) }

// Config returns the configuration in effect, defaults filled in.
func (o *Objective) Config() Config { return o.cfg }

// Graph returns the graph.
func (o *Objective) Graph() *kernel.Graph { return o.g }

// Metric returns the metric parameterisation.
func (o *Objective) Metric() kernel.Metric { return o.metric }

// Heat returns the objective's heat kernel (for Info and diagnostics).
func (o *Objective) Heat() *kernel.Heat { return o.heat }

// Reconstructions returns the reconstructions of the last evaluation
// (read-only, overwritten by the next one).
func (o *Objective) Reconstructions() [][][]float64 { return o.interp.Recs() }

// LastTerms returns the breakdown of the last evaluation.
func (o *Objective) LastTerms() Terms { return o.last }

// Eval returns F(x) and, unless grad is nil, writes ∇_x F into grad (x =
// log θ). Errors: a metric out of range, a failed factorisation, and
// non-finite values (ot.ErrNonFinite, with the frame and a hint).
func (o *Objective) Eval(grad, x []float64) (float64, error) {
	if len(x) != len(o.theta) || (grad != nil && len(grad) != len(x)) {
		panic(fmt.Sprintf("learn: Eval: len(x)=%d, len(grad)=%d, want %d", len(x), len(grad), len(o.theta)))
	}
	for i, v := range x {
		o.theta[i] = math.Exp(v)
		if !(o.theta[i] > 0) || math.IsInf(o.theta[i], 0) {
			return 0, fmt.Errorf("learn: metric parameter %d = exp(%v) is not a positive finite number (add regularisation: λ_c, λ_s): %w", i, v, errMetricOverflow)
		}
	}
	o.metric.Weights(o.w, o.theta)
	if err := o.heat.SetWeights(o.w); err != nil {
		return 0, fmt.Errorf("learn: %w", err)
	}
	if o.hasAcc {
		o.interp.LoadWarm(&o.accepted)
	}
	o.totals.Evals++
	recs, err := o.interp.Forward()
	if err != nil {
		return 0, fmt.Errorf("learn: forward: %w", err)
	}
	o.countSolve(false)
	f, err := o.terms(recs, grad != nil)
	if err != nil || grad == nil {
		return f, err
	}
	o.totals.Gradients++
	clear(o.gw)
	err = o.interp.Backward(o.gw, o.grec)
	o.countSolve(true)
	if err != nil {
		return 0, fmt.Errorf("learn: backward: %w", err)
	}
	if err := o.pullBack(grad); err != nil {
		return 0, err
	}
	return o.correct(f, grad)
}

// terms returns F at the reconstructions recs and o.theta, recording its
// breakdown in o.last; withGrad leaves ∂F/∂rec in o.grec and the
// regularisers' ∂/∂θ in o.gtheta.
func (o *Objective) terms(recs [][][]float64, withGrad bool) (float64, error) {
	var data float64
	for s := range recs {
		for j, rec := range recs[s] {
			if o.cfg.SkipEndpoints && (j == 0 || j == len(recs[s])-1) {
				o.last.PerFrame[s][j] = 0
				clear(o.grec[s][j])
				continue
			}
			var g []float64
			if withGrad {
				g = o.grec[s][j]
			}
			v, err := o.cfg.Loss.Eval(g, rec, o.obs[s][j])
			if err != nil {
				var nf *ot.NonFiniteError
				if errors.As(err, &nf) {
					nf.Sequence, nf.Frame = s, j
				}
				return 0, fmt.Errorf("learn: loss of sequence %d frame %d: %w", s, j, err)
			}
			o.last.PerFrame[s][j] = v
			data += v
		}
	}
	reps := float64(len(o.obs))
	if o.cfg.RegularizeOnce {
		reps = 1
	}
	var regGrad []float64
	if withGrad {
		clear(o.gtheta)
		regGrad = o.gtheta
	}
	rv := o.reg.Eval(regGrad, o.theta)
	if withGrad && reps != 1 {
		for i := range o.gtheta {
			o.gtheta[i] *= reps
		}
	}
	o.last.FC, o.last.FS = o.reg.Terms(o.theta)
	o.last.Data, o.last.Correction, o.last.Regularizer = data, 0, reps*rv
	f := data + reps*rv
	o.last.F = f
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("learn: objective is %v: %w", f, ot.ErrNonFinite)
	}
	return f, nil
}

// pullBack adds the edge-weight gradient o.gw, pulled back to θ, to
// o.gtheta and writes the gradient with respect to x = log θ into grad.
func (o *Objective) pullBack(grad []float64) error {
	o.metric.WeightsAdjoint(o.gtheta, o.gw)
	for i, v := range o.gtheta {
		v *= o.theta[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("learn: gradient entry %d is %v: %w", i, v, ot.ErrNonFinite)
		}
		grad[i] = v
	}
	return nil
}

// Exp sets dst[i] = e^x[i], the metric θ of the optimisation variable x
// (the log metric), and returns dst; a nil dst is allocated.
func Exp(dst, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	for i, v := range x {
		dst[i] = math.Exp(v)
	}
	return dst
}

// LogOf returns log θ, the optimisation variable of the metric θ.
func LogOf(theta []float64) []float64 {
	x := make([]float64, len(theta))
	for i, v := range theta {
		x[i] = math.Log(v)
	}
	return x
}
