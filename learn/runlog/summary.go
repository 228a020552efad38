package runlog

import (
	"time"

	"github.com/gmlg/gmlg/learn"
)

// Summary is the JSON record of a finished run of levels (learn.Run with
// coarse levels, and a polish or not): per level its counts, and the
// objective of the final metric under the run's fast model and the exact
// one.
type Summary struct {
	Mode   string         `json:"mode"`
	Status string         `json:"status"`
	Levels []LevelSummary `json:"levels"`
	// FFast is the fast objective at the finest fast level's last iterate
	// (0 when a resumed polish ran alone); FExact the exact (reference, L
	// iterations) objective at the final metric, the number to compare
	// with an exact-mode run.
	FFast  float64 `json:"f_fast"`
	FExact float64 `json:"f_exact"`
	// PolishFrom is the finest-level iteration the polish started from, 0
	// without one (or when it was resumed).
	PolishFrom int `json:"polish_from,omitempty"`
	// Seconds and CPUSeconds are the wall and CPU time (all threads) of
	// the run as its Clock measured them.
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// LevelSummary reports one level of a run (learn.LevelReport).
type LevelSummary struct {
	Bins         int     `json:"n"`
	Iter         int     `json:"iterations"`
	Evals        int     `json:"evals"`
	F            float64 `json:"f_fast"`
	Status       string  `json:"status"`
	Sinkhorn     int     `json:"sinkhorn_iters"`
	Adjoint      int     `json:"adjoint_iters"`
	NotConverged int     `json:"not_converged"`
	Tightened    int     `json:"tightened"` // tolerance ÷10 after a failed line search
	Seconds      float64 `json:"seconds"`
	// Exact marks the polish, whose f_fast is the exact objective.
	Exact bool `json:"exact,omitempty"`
}

// Summarize returns the summary of the fast-mode run res whose final
// metric scores fExact on the exact objective, after the wall and CPU
// times given.
func Summarize(res *learn.RunResult, fExact float64, wall, cpu time.Duration) Summary {
	s := Summary{Mode: "fast", Status: res.Status.String(), FExact: fExact, Seconds: wall.Seconds(), CPUSeconds: cpu.Seconds()}
	for _, l := range res.Levels {
		if l.Exact {
			s.PolishFrom = l.From
		} else {
			s.FFast = l.F // the finest fast level's is the last
		}
		s.Levels = append(s.Levels, LevelSummary{Bins: firstDim(l.Dims), Iter: l.Iter, Evals: l.Evals, F: l.F,
			Status: l.Status.String(), Sinkhorn: l.Totals.Sinkhorn, Adjoint: l.Totals.Adjoint,
			NotConverged: l.Totals.NotConverged, Tightened: l.Tightened, Seconds: l.Elapsed.Seconds(), Exact: l.Exact})
	}
	return s
}
