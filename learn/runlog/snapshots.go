package runlog

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/ot/draw"
)

// Snapshots is the observer that writes the points of a run's level Finest,
// and of its exact polish (level Polish, when not 0), into the folder Dir:
// at the first iteration and every Every, metric-IIII.npy (θ = e^x, in
// Space's layout for Kind; the polish's metric-polish-IIII.npy) and .png,
// loss.npy and .png, and recs.png (the Observed frames above their
// reconstructions); Final writes the final point. A graph without
// coordinates gets no pictures of the metric and the frames.
type Snapshots struct {
	learn.NopObserver
	Dir      string
	Space    dataset.Space
	Kind     learn.MetricKind
	Finest   int
	Polish   int
	Every    int
	Observed [][][]float64
	// Period is the shortest time between two redraws of loss.png and
	// recs.png during the run (a good fraction of a second each); zero
	// draws them at every snapshot.
	Period time.Duration
	Saved  int // the last iteration whose metric was written

	obj    *learn.Objective
	prefix string // of the current level's snapshots: "" or "polish-"
	drawn  time.Time
}

// LevelStart keeps the level's objective for its reconstructions.
func (s *Snapshots) LevelStart(level int, _ []int, obj *learn.Objective) {
	s.obj, s.prefix = obj, ""
	if s.Polish > 0 && level == s.Polish {
		s.prefix, s.Saved = "polish-", 0
	}
}

// Iteration writes the snapshot of every Every-th iteration of level
// Finest or of the polish, and of its first.
func (s *Snapshots) Iteration(p *learn.Progress) error {
	if (p.Level == s.Finest || s.Polish > 0 && p.Level == s.Polish) && (p.Iter%s.Every == 0 || p.Iter == 1) {
		return s.Save(p.State, true)
	}
	return nil
}

// Save writes the metric of st's iteration with its picture, and the loss.
// During the run it redraws loss.png and (when the objective's last
// evaluation was at st's point) recs.png at most every Period.
func (s *Snapshots) Save(st *learn.State, during bool) error {
	theta := learn.Exp(nil, st.X)
	if st.Iter > 0 {
		base := filepath.Join(s.Dir, fmt.Sprintf("metric-%s%04d", s.prefix, st.Iter))
		if err := s.Space.WriteMetric(base+".npy", s.Kind, theta); err != nil {
			return err
		}
		img, err := s.Space.MetricImage(s.Kind, theta, fmt.Sprintf("metric at %s %d (F = %.6g)", s.stage(), st.Iter, st.F))
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

// exists reports whether a file is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// stage names the current level's iterations in titles.
func (s *Snapshots) stage() string {
	if s.prefix != "" {
		return "polish iteration"
	}
	return "iteration"
}

// Final writes the run's final point st, at which obj was last evaluated:
// its snapshot when not saved yet, metric.npy and .png, loss.npy and .png,
// and the reconstructions (WriteRecs). It returns the pictures drawn.
func (s *Snapshots) Final(st *learn.State, obj *learn.Objective) ([]string, error) {
	s.obj = obj
	// A snapshot taken here (also when a resumed run misses its file)
	// writes loss.npy and loss.png too.
	snapshot := st.Iter > 0 && (s.Saved != st.Iter || !exists(filepath.Join(s.Dir, fmt.Sprintf("metric-%s%04d.npy", s.prefix, st.Iter))))
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
	img, err := s.Space.MetricImage(s.Kind, theta, fmt.Sprintf("learned metric (%s %d, F = %.6g)", s.stage(), st.Iter, st.F))
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
	drew, err := WriteRecs(s.Dir, s.Space, s.Observed, obj.Reconstructions(), fmt.Sprintf("%s %d", s.stage(), st.Iter))
	if err != nil {
		return nil, err
	}
	if drew {
		pictures = append(pictures, "recs.png")
	}
	return append(pictures, "loss.png"), nil
}

// WriteRecs writes into dir the reconstructions recs of the observed
// histograms obs on sp (rec-TT.npy, or rec-SS-TT.npy for several
// sequences) and recs.png, the observations above the reconstructions
// under title; it reports whether it drew one (not on a graph without
// coordinates).
func WriteRecs(dir string, sp dataset.Space, obs, recs [][][]float64, title string) (bool, error) {
	if err := dataset.WriteSequences(dir, "rec", recs, sp.HistShape()); err != nil {
		return false, err
	}
	img, err := sp.RecsImage(obs, recs, title)
	return WriteImage(filepath.Join(dir, "recs.png"), img, err)
}

// lossTitle is the title of loss.png, or "" when it is not drawn.
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
	return true, dataset.SavePicture(path, img)
}

// MetricTitle is the title Snapshots gives the picture of the metric file
// base (metric-IIII.npy, or metric.npy), with F from the run's losses
// (entry k−1 for iteration k) where they know it.
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

// SaveLoss writes the objective per iteration, losses, to dir/loss.npy
// and, when title is not empty, its plot (draw.LossPlot) to dir/loss.png.
// Without losses it writes nothing.
func SaveLoss(dir string, losses []float64, title string) error {
	if len(losses) == 0 {
		return nil
	}
	if err := dataset.WriteNpyFile(filepath.Join(dir, "loss.npy"), &dataset.Array{Shape: []int{len(losses)}, Data: losses}); err != nil {
		return err
	}
	if title == "" {
		return nil
	}
	img, err := draw.LossPlot(losses, &draw.LossOptions{Title: title})
	if err != nil {
		return err
	}
	return dataset.SavePicture(filepath.Join(dir, "loss.png"), img)
}

// ReadMetric reads the metric θ of kind k on sp from path: a metric file
// (dataset.Space.ReadMetric), or a run's checkpoint (.gob), whose point x
// gives θ = e^x. Every value must be positive and finite, and a
// checkpoint's point must be a metric of sp (not of a coarser grid's
// level; a warm-up level on sp's grid gives its cheaper kernel's metric).
func ReadMetric(path string, sp dataset.Space, k learn.MetricKind) ([]float64, error) {
	if filepath.Ext(path) != ".gob" {
		return sp.ReadMetric(path, k)
	}
	ck, err := ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	m, err := k.On(sp.Graph)
	if err != nil {
		return nil, err
	}
	if got, want := len(ck.State.X), m.NumParams(); got != want {
		return nil, fmt.Errorf("checkpoint %s holds a metric of %d values, want %d (the %s metric of the data; a run stopped on a coarser grid has none)",
			path, got, want, k)
	}
	theta := learn.Exp(nil, ck.State.X)
	for i, v := range theta {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("checkpoint %s: metric value %d is %v, want positive and finite", path, i, v)
		}
	}
	return theta, nil
}

// TruthPicture draws into dir/metric-vs-truth.png the true metric of the
// grid data d (when its folder holds one) beside θ of kind k on sp, learned
// at iteration iter; it returns the picture's path, "" when it drew none.
func TruthPicture(dir string, d *Data, sp dataset.Space, k learn.MetricKind, theta []float64, iter int) (string, error) {
	truth, ok := dataset.ReadTruth(d.Dir, d.Dim, sp.Graph.N())
	if !ok {
		return "", nil
	}
	out := filepath.Join(dir, "metric-vs-truth.png")
	img, err := draw.CompareMetrics(truth, dataset.PadMetric(sp.Graph, k, theta), d.Dim, d.Side,
		fmt.Sprintf("true metric (%s) and learned metric (iteration %d)", dataset.TruthFile, iter))
	if ok, err := WriteImage(out, img, err); !ok {
		return "", err
	}
	return out, nil
}

// Redraw draws again, and returns, the pictures of the run that rec
// records from the files of its folder dir: of every metric-*.npy and
// metric.npy (one that does not fit the run's grid or graph, or holds no
// positive finite metric, is an error naming it, never skipped),
// loss.png, recs.png (RedrawRecs) and metric-vs-truth.png (TruthPicture).
func Redraw(ctx context.Context, dir string, rec *Record, notes io.Writer) ([]string, error) {
	var losses []float64
	if a, err := dataset.ReadNpyFile(filepath.Join(dir, "loss.npy")); err == nil {
		losses = a.Data
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	sp, err := rec.Data.Space(limits.Memory)
	if err != nil {
		return nil, err
	}
	kind, err := learn.ParseMetricKind(rec.Model.Metric)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ParamsName), err)
	}
	metrics, _ := filepath.Glob(filepath.Join(dir, "metric-*.npy"))
	final := filepath.Join(dir, "metric.npy")
	if exists(final) {
		metrics = append(metrics, final)
	}
	var drawn []string
	var last []float64
	for _, m := range metrics {
		if err := ctx.Err(); err != nil {
			return drawn, err
		}
		theta, err := sp.ReadMetric(m, kind)
		if err != nil {
			return drawn, err
		}
		out := strings.TrimSuffix(m, ".npy") + ".png"
		img, err := sp.MetricImage(kind, theta, MetricTitle(filepath.Base(m), losses))
		if ok, err := WriteImage(out, img, err); err != nil {
			return drawn, err
		} else if ok {
			drawn = append(drawn, out)
		}
		if m == final {
			last = theta
		}
	}
	if len(losses) > 0 {
		if err := SaveLoss(dir, losses, lossTitle(true)); err != nil {
			return drawn, err
		}
		drawn = append(drawn, filepath.Join(dir, "loss.png"))
	}
	if out, err := RedrawRecs(dir, &rec.Data, sp, fmt.Sprintf("iteration %d", len(losses)), notes); err != nil {
		return drawn, err
	} else if out != "" {
		drawn = append(drawn, out)
	}
	if last == nil || sp.IsGraph() || rec.Data.Kind != Frames {
		return drawn, nil
	}
	out, err := TruthPicture(dir, &rec.Data, sp, kind, last, len(losses))
	if out != "" {
		drawn = append(drawn, out)
	}
	return drawn, err
}

// RedrawRecs draws recs.png again from the reconstructions rec-*.npy of
// dir and the observations of the data d on sp (without them, with a note
// on notes, when the data cannot be read); it returns the picture drawn,
// "" when dir holds no reconstructions.
func RedrawRecs(dir string, d *Data, sp dataset.Space, title string, notes io.Writer) (string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "rec-*.npy"))
	if len(files) == 0 {
		return "", nil
	}
	opt := &dataset.Options{Memory: limits.Memory, MinFrames: 2}
	if sp.IsGraph() {
		opt.Length = sp.Graph.N()
	}
	dataset.Sort(files)
	rs, err := dataset.LoadFiles(files, opt)
	if err != nil {
		return "", err
	}
	var obs [][][]float64
	data := *d
	switch src, err := data.Read(nil); {
	case err != nil:
		fmt.Fprintf(notes, "drawing the reconstructions without the observations (%v)\n", err)
	case len(src.Seqs) != len(rs.Sequences):
		fmt.Fprintf(notes, "drawing the reconstructions without the observations (%d sequences in the data, %d reconstructed)\n",
			len(src.Seqs), len(rs.Sequences))
	default:
		obs = src.Observed()
	}
	out := filepath.Join(dir, "recs.png")
	img, err := sp.RecsImage(obs, rs.Frames(), title)
	if ok, err := WriteImage(out, img, err); err != nil || !ok {
		return "", err
	}
	return out, nil
}
