package runlog

import (
	"fmt"
	"image"
	"math"
	"path/filepath"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
)

// Snapshots is the observer that writes the points of a run's level Finest
// into the folder Dir: every Every iterations and at the first, the
// metric metric-IIII.npy (θ = e^x, in Space's layout for Kind) with its
// picture metric-IIII.png, loss.npy with loss.png, and recs.png (the
// Observed frames above their reconstructions); Final writes the final
// point. A graph without coordinates gets no pictures of the metric and
// the frames.
type Snapshots struct {
	learn.NopObserver
	Dir      string
	Space    dataset.Space
	Kind     learn.MetricKind
	Finest   int
	Every    int
	Observed [][][]float64
	// Period is the shortest time between two redraws of loss.png and
	// recs.png during the run (drawing them takes a good fraction of a
	// second); zero draws them at every snapshot.
	Period time.Duration
	// Saved is the last iteration whose metric was written; a resumed
	// run sets it to the checkpoint's.
	Saved int

	obj   *learn.Objective
	drawn time.Time
}

// LevelStart keeps the level's objective for its reconstructions.
func (s *Snapshots) LevelStart(_ int, _ []int, obj *learn.Objective) { s.obj = obj }

// Iteration writes the snapshot of every Every-th iteration of level
// Finest, and of its first.
func (s *Snapshots) Iteration(p *learn.Progress) error {
	if p.Level == s.Finest && (p.Iter%s.Every == 0 || p.Iter == 1) {
		return s.Save(p.State, true)
	}
	return nil
}

// Save writes the metric of st's iteration with its picture, and the
// loss. With during (a snapshot of the running optimisation) it redraws
// loss.png and, when the objective's last evaluation was at st's point,
// recs.png at most every Period; without, it always draws loss.png.
func (s *Snapshots) Save(st *learn.State, during bool) error {
	theta := learn.Exp(nil, st.X)
	if st.Iter > 0 {
		base := filepath.Join(s.Dir, fmt.Sprintf("metric-%04d", st.Iter))
		if err := s.Space.WriteMetric(base+".npy", s.Kind, theta); err != nil {
			return err
		}
		img, err := s.Space.MetricImage(s.Kind, theta, fmt.Sprintf("metric at iteration %d (F = %.6g)", st.Iter, st.F))
		if _, err := WriteImage(base+".png", img, err); err != nil {
			return err
		}
		s.Saved = st.Iter
	}
	draw := !during || time.Since(s.drawn) >= s.Period
	if err := SaveLoss(s.Dir, st.Losses, lossTitle(draw)); err != nil {
		return err
	}
	if !draw {
		return nil
	}
	s.drawn = time.Now()
	if during && s.obj.LastTerms().F == st.F {
		img, err := s.Space.RecsImage(s.Observed, s.obj.Reconstructions(), fmt.Sprintf("iteration %d", st.Iter))
		if _, err := WriteImage(filepath.Join(s.Dir, "recs.png"), img, err); err != nil {
			return err
		}
	}
	return nil
}

// Final writes the run's final point st, at which obj was last evaluated:
// its snapshot when not saved yet, metric.npy and metric.png, loss.npy and
// loss.png, the reconstructions rec-JJ.npy (rec-SS-JJ.npy for several
// sequences) and recs.png. It returns the names of the pictures drawn.
func (s *Snapshots) Final(st *learn.State, obj *learn.Objective) ([]string, error) {
	s.obj = obj
	// A snapshot taken here also writes loss.npy and loss.png.
	snapshot := st.Iter > 0 && s.Saved != st.Iter
	if snapshot {
		if err := s.Save(st, false); err != nil {
			return nil, err
		}
	}
	theta := learn.Exp(nil, st.X)
	if err := s.Space.WriteMetric(filepath.Join(s.Dir, "metric.npy"), s.Kind, theta); err != nil {
		return nil, err
	}
	var pictures []string
	img, err := s.Space.MetricImage(s.Kind, theta, fmt.Sprintf("learned metric (iteration %d, F = %.6g)", st.Iter, st.F))
	if drew, err := WriteImage(filepath.Join(s.Dir, "metric.png"), img, err); err != nil {
		return nil, err
	} else if drew {
		pictures = append(pictures, "metric.png")
	}
	if !snapshot {
		if err := SaveLoss(s.Dir, st.Losses, lossTitle(true)); err != nil {
			return nil, err
		}
	}
	recs := obj.Reconstructions()
	for q, seq := range recs {
		for j, f := range seq {
			a := &dataset.Array{Shape: s.Space.HistShape(), Data: f}
			if err := dataset.WriteNpyFile(filepath.Join(s.Dir, RecName(len(recs), q, j)), a); err != nil {
				return nil, err
			}
		}
	}
	img, err = s.Space.RecsImage(s.Observed, recs, fmt.Sprintf("iteration %d", st.Iter))
	if drew, err := WriteImage(filepath.Join(s.Dir, "recs.png"), img, err); err != nil {
		return nil, err
	} else if drew {
		pictures = append(pictures, "recs.png")
	}
	return append(pictures, "loss.png"), nil
}

// RecName is the file of reconstruction j of sequence q among nseq.
func RecName(nseq, q, j int) string {
	if nseq > 1 {
		return fmt.Sprintf("rec-%02d-%02d.npy", q, j)
	}
	return fmt.Sprintf("rec-%02d.npy", j)
}

// lossTitle is the title of loss.png, or "" (no picture) when it is not
// drawn.
func lossTitle(draw bool) string {
	if draw {
		return "objective F per iteration"
	}
	return ""
}

// WriteImage saves img, the result of a drawing that returned err, to
// path; a nil img (no picture) writes nothing and reports false.
func WriteImage(path string, img image.Image, err error) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if img == nil {
		return false, nil
	}
	return true, SavePicture(path, img)
}

// Result is the JSON record of a finished single-grid run: its status and
// counts, the objective's terms at the final point and the gradient norm.
type Result struct {
	Status      string      `json:"status"`
	Iterations  int         `json:"iterations"`
	Evaluations int         `json:"evaluations"`
	F           float64     `json:"F"`
	Data        float64     `json:"data_term"`
	Regularizer float64     `json:"regularizer"`
	PerFrame    [][]float64 `json:"loss_per_frame"`
	GradNorm    float64     `json:"grad_norm"`
	// TruthCorrelation is the Pearson correlation of the learned edge
	// weights with those of the true metric, for data made by gmlg synth
	// (dataset.TruthCorrelation).
	TruthCorrelation *float64 `json:"truth_correlation,omitempty"`
	// TruthCorrelationMass is, for graph data made by gmlg synth --graph,
	// the same correlation over the edges that carry mass in the frames
	// (dataset.GraphTruthCorrelation): the edges whose weights the data
	// determine.
	TruthCorrelationMass *float64 `json:"truth_correlation_mass,omitempty"`
	// Fast holds the Sinkhorn and adjoint iteration totals of a
	// tolerance-mode objective.
	Fast *learn.Totals `json:"fast,omitempty"`
}

// NewResult returns the record of res, whose objective obj was last
// evaluated at the final point.
func NewResult(res *learn.Result, obj *learn.Objective) *Result {
	st, terms := res.State, obj.LastTerms()
	gn := 0.0
	for _, v := range st.G {
		gn += v * v
	}
	r := &Result{Status: res.Status.String(), Iterations: st.Iter, Evaluations: st.Evals, F: st.F,
		Data: terms.Data, Regularizer: terms.Regularizer, PerFrame: terms.PerFrame, GradNorm: math.Sqrt(gn)}
	if !obj.Exact() {
		tot := obj.Totals()
		r.Fast = &tot
	}
	return r
}

// MetricTitle is the title of the picture of the metric file named base
// (metric-IIII.npy, or metric.npy for the final metric), with F from the
// run's losses (entry k−1 for iteration k) where they know it: the title
// Snapshots gives the picture of the same point.
func MetricTitle(base string, losses []float64) string {
	var it int
	if _, err := fmt.Sscanf(base, "metric-%d", &it); err == nil {
		title := fmt.Sprintf("metric at iteration %d", it)
		if it >= 1 && it <= len(losses) {
			title += fmt.Sprintf(" (F = %.6g)", losses[it-1])
		}
		return title
	}
	if len(losses) > 0 {
		return fmt.Sprintf("learned metric (iteration %d, F = %.6g)", len(losses), losses[len(losses)-1])
	}
	return "learned metric"
}
