package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/draw"
)

func init() {
	register(&command{
		name:    "render",
		summary: "redraw the pictures of a run folder (learn, synth or interp) from its .npy files",
		usage: `[options] RUN_DIR

RUN_DIR must hold the output of gmlg learn, synth or interp (its
.gmlg-manifest.json says which; in a folder without one, its params.json).
A folder that another gmlg process is writing is refused, naming it.`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("expected one folder written by gmlg learn, synth or interp, got %d arguments", len(args))
				}
				stdout, stderr := outputs(ctx)
				return runRender(ctx, args[0], stdout, stderr)
			}
		},
	})
}

func runRender(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	od, err := openRunDir(ctx, dir, "gmlg render", learnSpec, synthSpec, interpSpec)
	if err != nil {
		return err
	}
	defer od.Close()
	path := filepath.Join(dir, "params.json")
	raw, err := rundir.ReadInput(path)
	if err != nil {
		return fmt.Errorf("%s is not a gmlg folder: %w", dir, err)
	}
	var head struct {
		Command string `json:"command"`
	}
	// Checked once here: the per-command readers below decode the same raw.
	if err := rundir.DecodeChecked(raw, &head); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var drawn []string
	switch head.Command {
	case "learn":
		drawn, err = renderLearn(ctx, dir, raw, stderr)
	case "synth":
		drawn, err = renderSynth(dir, raw)
	case "interp":
		drawn, err = renderInterp(dir, raw)
	default:
		return fmt.Errorf("%s: nothing to redraw for a %q folder", path, head.Command)
	}
	if err != nil {
		return err
	}
	if line := recordedModelLine(raw, path); line != "" {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "gmlg render: redrew %d picture(s) in %s\n", len(drawn), dir)
	return nil
}

// recordedModelLine is the model line (modelLine) of the barycenter model
// that a learn or interp folder's .npy files were computed with, as its
// params.json (raw, read from path) records it; empty for a folder without
// one (synth, or a linear interpolation). render only redraws those files,
// so the line says which model the pictures show.
func recordedModelLine(raw []byte, path string) string {
	var rec struct {
		Method string       `json:"method"`
		Model  *modelParams `json:"model"`
	}
	if json.Unmarshal(raw, &rec) != nil || rec.Model == nil || rec.Method == "linear" {
		return ""
	}
	return rec.Model.Line("from " + path)
}

func renderLearn(ctx context.Context, dir string, raw []byte, stderr io.Writer) ([]string, error) {
	var p runlog.LearnRun
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "params.json"), err)
	}
	if err := checkInputs(dir, p.Data.Dir); err != nil {
		return nil, err
	}
	var losses []float64
	if a, err := dataset.ReadNpyFile(filepath.Join(dir, "loss.npy")); err == nil {
		losses = a.Data
	} else if !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		return nil, err
	}
	sp, err := p.Data.Space(limits.Memory)
	if err != nil {
		return nil, err
	}
	drawn, err := renderLearnMetrics(ctx, dir, &p, sp, losses)
	if err != nil {
		return drawn, err
	}
	if len(losses) > 0 {
		out := filepath.Join(dir, "loss.png")
		if err := lossPicture(out, losses, "objective F per iteration"); err != nil {
			return drawn, err
		}
		drawn = append(drawn, out)
	}
	recFiles, _ := filepath.Glob(filepath.Join(dir, "rec-*.npy"))
	if len(recFiles) > 0 {
		opt := &dataset.Options{Memory: limits.Memory, MinFrames: 2}
		if sp.IsGraph() {
			opt.Length = sp.Graph.N()
		}
		dataset.Sort(recFiles)
		rs, err := dataset.LoadFiles(recFiles, opt)
		if err != nil {
			return drawn, err
		}
		var obs [][][]float64
		if ds, err := loadData(p.Data.Dir, p.Data.Pattern, p.Data.Floor); err == nil && ds.set.N() == rs.N() {
			obs = ds.set.Frames()
		} else {
			fmt.Fprintf(stderr, "gmlg render: drawing the reconstructions without the observations (%v)\n", err)
		}
		out := filepath.Join(dir, "recs.png")
		if ok, err := recsPicture(sp, out, obs, rs.Frames(), fmt.Sprintf("iteration %d", len(losses))); err != nil || !ok {
			return drawn, err
		}
		drawn = append(drawn, out)
	}
	return drawn, nil
}

// renderLearnMetrics redraws every metric-XXXX.npy and metric.npy of a
// learn run and, when the data folder holds the true metric, the comparison
// with it. Each file must fit the run's grid and hold a positive finite
// metric: a file that does not is an error naming it, never skipped. sp
// is the run's grid or graph.
func renderLearnMetrics(ctx context.Context, dir string, p *runlog.LearnRun, sp dataset.Space, losses []float64) ([]string, error) {
	kind, err := learn.ParseMetricKind(p.Model.Metric)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "params.json"), err)
	}
	metrics, _ := filepath.Glob(filepath.Join(dir, "metric-*.npy"))
	final := filepath.Join(dir, "metric.npy")
	if _, err := os.Stat(final); err == nil {
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
		ok, err := metricPicture(sp, out, kind, theta, runlog.MetricTitle(filepath.Base(m), losses))
		if err != nil {
			return drawn, err
		}
		if ok {
			drawn = append(drawn, out)
		}
		if m == final {
			last = theta
		}
	}
	if last == nil || sp.IsGraph() {
		return drawn, nil
	}
	out := filepath.Join(dir, "metric-vs-truth.png")
	ok, err := truthPicture(out, p.Data.Dir, dataset.PadMetric(sp.Graph, kind, last), p.Data.Dim, p.Data.Side,
		fmt.Sprintf("true metric (%s) and learned metric (iteration %d)", dataset.TruthFile, len(losses)))
	if ok {
		drawn = append(drawn, out)
	}
	return drawn, err
}

func renderSynth(dir string, raw []byte) ([]string, error) {
	var p synthParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "params.json"), err)
	}
	if p.Graph != "" {
		sp, set, err := dataset.LoadSpace(dir, &dataset.Options{Memory: limits.Memory})
		if err != nil {
			return nil, err
		}
		w, err := sp.ReadMetric(filepath.Join(dir, dataset.GraphTruthFile), learn.EdgeMetric)
		if err != nil {
			return nil, err
		}
		return drawSynthGraph(dir, sp, w, set.Frames())
	}
	g, err := kernel.Cube(2, p.N)
	if err != nil {
		return nil, fmt.Errorf("%s: the dataset's grid (side %d): %w", filepath.Join(dir, "params.json"), p.N, err)
	}
	theta, err := dataset.ReadMetric(filepath.Join(dir, dataset.TruthFile), g, learn.VertexMetric)
	if err != nil {
		return nil, err
	}
	set, err := dataset.Load(dir, &dataset.Options{Memory: limits.Memory})
	if err != nil {
		return nil, err
	}
	if err := drawSynth(dir, p.N, theta, set.Frames(), p.Truth); err != nil {
		return nil, err
	}
	return []string{filepath.Join(dir, "a-metric.png"), filepath.Join(dir, "frames.png")}, nil
}

func renderInterp(dir string, raw []byte) ([]string, error) {
	var p interpParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "params.json"), err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "interp-*.npy"))
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no interp-*.npy files", dir)
	}
	dataset.Sort(files)
	// Frames on a graph are 1-D, one value per vertex of the graph folder
	// that held the source; on a grid their shape gives the grid.
	opt := &dataset.Options{Memory: limits.Memory}
	var sp space
	if folder := filepath.Dir(p.Source); p.Source != "" && dataset.IsGraphFolder(folder) {
		var err error
		if sp, err = dataset.ReadGraphFolder(folder, limits.Memory); err != nil {
			return nil, fmt.Errorf("the interpolation's graph: %w", err)
		}
		opt.Length = sp.Graph.N()
	}
	var recs [][]float64
	var shape []int
	for _, f := range files {
		a, err := dataset.ReadFrame(f, opt)
		if err != nil {
			return nil, err
		}
		if shape != nil && dataset.ShapeString(shape) != dataset.ShapeString(a.Shape) {
			return nil, fmt.Errorf("%s: shape %s differs from %s", f, dataset.ShapeString(a.Shape), dataset.ShapeString(shape))
		}
		shape = a.Shape
		recs = append(recs, a.Data)
	}
	if sp.Graph == nil {
		var err error
		if sp.Graph, err = kernel.Cube(len(shape), shape[0]); err != nil {
			return nil, fmt.Errorf("%s: %w", files[0], err)
		}
	}
	title := p.Method + " interpolation"
	if p.Method == "metric" {
		title += " (" + filepath.Base(p.MetricFile) + ")"
	}
	out := filepath.Join(dir, "interp.png")
	drew, err := framesPicture(sp, out, []draw.Frames{{Name: "interpolated", Frames: [][][]float64{recs}}}, title)
	if err != nil || !drew {
		return nil, err
	}
	return []string{out}, nil
}
