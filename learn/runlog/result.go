package runlog

import (
	"math"

	"github.com/gmlg/gmlg/learn"
)

// ResultName is the file of a finished run's Result.
const ResultName = "result.json"

// Result is the JSON record of a finished run: its status and counts, the
// objective's terms at the final point, the gradient norm, every level's
// report and the run's wall and CPU time.
type Result struct {
	Status      string      `json:"status"`
	Iterations  int         `json:"iterations"`
	Evaluations int         `json:"evaluations"`
	F           float64     `json:"F"`
	Data        float64     `json:"data_term"`
	Regularizer float64     `json:"regularizer"`
	PerFrame    [][]float64 `json:"loss_per_frame"`
	GradNorm    float64     `json:"grad_norm"`
	// FExact is, for a fast-mode run, the exact (reference, L iterations)
	// objective at the final metric: the number to compare with an
	// exact-mode run. F is then the fast objective (the exact one after a
	// polish, when the two are equal).
	FExact *float64 `json:"f_exact,omitempty"`
	// Fast holds the Sinkhorn and adjoint iteration totals of a
	// tolerance-mode objective.
	Fast *learn.Totals `json:"fast,omitempty"`
	// TruthCorrelation is the Pearson correlation of the learned edge
	// weights with those of the true metric, for data made by gmlg synth
	// (dataset.TruthCorrelation).
	TruthCorrelation *float64 `json:"truth_correlation,omitempty"`
	// TruthCorrelationMass is, for graph data made by gmlg synth --graph,
	// the same correlation over the edges that carry mass in the frames
	// (dataset.GraphTruthCorrelation): the edges whose weights the data
	// determine.
	TruthCorrelationMass *float64 `json:"truth_correlation_mass,omitempty"`
	// Levels reports every level of this invocation, coarsest first, the
	// polish last; PolishFrom is the finest-level iteration the polish
	// started from (0 without one, or when it was resumed).
	Levels     []LevelSummary `json:"levels"`
	PolishFrom int            `json:"polish_from,omitempty"`
	// Seconds and CPUSeconds are the wall and CPU time (all threads) of
	// this invocation.
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// LevelSummary reports one level of a run (learn.LevelReport).
type LevelSummary struct {
	Dims         []int   `json:"grid,omitempty"`
	Iter         int     `json:"iterations"`
	Evals        int     `json:"evals"`
	F            float64 `json:"f"`
	Status       string  `json:"status"`
	Sinkhorn     int     `json:"sinkhorn_iters"`
	Adjoint      int     `json:"adjoint_iters"`
	NotConverged int     `json:"not_converged"`
	Tightened    int     `json:"tightened"` // tolerance ÷10 after a failed line search
	Seconds      float64 `json:"seconds"`
	// Exact marks the polish, whose F is the exact objective.
	Exact bool `json:"exact,omitempty"`
}

// NewResult returns the record of res, whose last objective obj was last
// evaluated at the final point, after the time clock measured.
func NewResult(res *learn.RunResult, obj *learn.Objective, clock *Clock) *Result {
	st, terms := res.State, obj.LastTerms()
	gn := 0.0
	for _, v := range st.G {
		gn += v * v
	}
	r := &Result{Status: res.Status.String(), Iterations: st.Iter, Evaluations: st.Evals, F: st.F,
		Data: terms.Data, Regularizer: terms.Regularizer, PerFrame: terms.PerFrame, GradNorm: math.Sqrt(gn),
		Seconds: clock.Elapsed().Seconds(), CPUSeconds: clock.CPU().Seconds()}
	if !obj.Exact() {
		tot := obj.Totals()
		r.Fast = &tot
	}
	r.Levels, r.PolishFrom = levelSummaries(res.Levels)
	return r
}

// levelSummaries returns the summaries of the levels' reports, and the
// iteration the polish started from (0 without one).
func levelSummaries(levels []learn.LevelReport) (sums []LevelSummary, polishFrom int) {
	for _, l := range levels {
		if l.Exact {
			polishFrom = l.From
		}
		sums = append(sums, LevelSummary{Dims: l.Dims, Iter: l.Iter, Evals: l.Evals, F: l.F,
			Status: l.Status.String(), Sinkhorn: l.Totals.Sinkhorn, Adjoint: l.Totals.Adjoint,
			NotConverged: l.Totals.NotConverged, Tightened: l.Tightened, Seconds: l.Elapsed.Seconds(), Exact: l.Exact})
	}
	return sums, polishFrom
}
