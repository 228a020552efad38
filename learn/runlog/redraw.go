package runlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
)

// Redraw draws again the pictures of the run that rec records from the
// files of its folder dir: every metric-*.npy and metric.npy (each must fit
// the run's grid or graph and hold a positive finite metric: a file that
// does not is an error naming it, never skipped), loss.png, recs.png
// (RedrawRecs) and, for data made by gmlg synth, metric-vs-truth.png. It
// returns the pictures drawn.
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
	d := &rec.Data
	if last == nil || sp.IsGraph() || d.Kind != Frames {
		return drawn, nil
	}
	out := filepath.Join(dir, "metric-vs-truth.png")
	ok, err := TruthPicture(out, d.Dir, dataset.PadMetric(sp.Graph, kind, last), d.Dim, d.Side,
		fmt.Sprintf("true metric (%s) and learned metric (iteration %d)", dataset.TruthFile, len(losses)))
	if ok {
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
	if src, err := data.Read(nil); err == nil && len(src.Seqs) == len(rs.Sequences) {
		obs = src.Observed()
	} else {
		fmt.Fprintf(notes, "drawing the reconstructions without the observations (%v)\n", err)
	}
	out := filepath.Join(dir, "recs.png")
	img, err := sp.RecsImage(obs, rs.Frames(), title)
	if ok, err := WriteImage(out, img, err); err != nil || !ok {
		return "", err
	}
	return out, nil
}
