package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/draw"
)

// renderers redraw the pictures of each kind of folder from its files and
// its record (raw, the checked content of params.json, or eval.json for
// eval), and return the pictures drawn.
var renderers = map[string]renderFunc{
	"learn": renderer(renderLearn), "synth": renderer(renderSynth), "interp": renderer(renderInterp),
	"eval": renderer(renderEval), "sunset": renderer(renderSunset), "transfer": renderer(renderTransfer),
}

type renderFunc func(ctx context.Context, dir string, raw []byte, stderr io.Writer) ([]string, error)

// renderer is the renderFunc that decodes the record into a T for fn.
func renderer[T any](fn func(ctx context.Context, dir string, p *T, stderr io.Writer) ([]string, error)) renderFunc {
	return func(ctx context.Context, dir string, raw []byte, stderr io.Writer) ([]string, error) {
		p := new(T)
		if err := json.Unmarshal(raw, p); err != nil {
			return nil, fmt.Errorf("the record of %s: %w", dir, err)
		}
		return fn(ctx, dir, p, stderr)
	}
}

func init() {
	register(&command{
		name:    "render",
		summary: "redraw the pictures of any folder gmlg writes (learn, synth, interp, eval, sunset, transfer) from its files",
		usage: `[options] DIR

DIR must hold the output of a gmlg command (its .gmlg-manifest.json says
which; in a folder without one, its params.json). A folder that another
gmlg process is writing is refused, naming it.`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("expected one folder written by gmlg, got %d arguments", len(args))
				}
				stdout, stderr := outputs(ctx)
				return runRender(ctx, args[0], stdout, stderr)
			}
		},
	})
}

func runRender(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	od, err := openRunDir(ctx, dir, "gmlg render", allSpecs...)
	if err != nil {
		return err
	}
	defer od.Close()
	name := "params.json"
	if od.Command() == "eval" {
		name = "eval.json"
	}
	path := filepath.Join(dir, name)
	raw, err := rundir.ReadInput(path)
	if err != nil {
		return fmt.Errorf("%s is not a gmlg folder: %w", dir, err)
	}
	// Checked once here: the per-command readers below decode the same raw.
	var head struct{}
	if err := rundir.DecodeChecked(raw, &head); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	drawn, err := renderers[od.Command()](ctx, dir, raw, stderr)
	if err != nil {
		return err
	}
	// The model line of the barycenter model that the files were computed
	// with, when the record holds one (synth's made its frames; transfer
	// and a linear interpolation have none): render only redraws them.
	var rec struct {
		Method string        `json:"method"`
		Model  *runlog.Model `json:"model"`
	}
	if json.Unmarshal(raw, &rec) == nil && rec.Model != nil && rec.Method != "linear" {
		fmt.Fprintln(stdout, rec.Model.Line("from "+path))
	}
	fmt.Fprintf(stdout, "gmlg render: redrew %d picture(s) in %s\n", len(drawn), dir)
	return nil
}

func renderLearn(ctx context.Context, dir string, p *runlog.Record, stderr io.Writer) ([]string, error) {
	if err := checkInputs(dir, p.Data.Dir); err != nil {
		return nil, err
	}
	return runlog.Redraw(ctx, dir, p, stderr)
}

func renderSynth(_ context.Context, dir string, p *synthParams, _ io.Writer) ([]string, error) {
	sp, set, err := dataset.LoadSpace(dir, &dataset.Options{Memory: limits.Memory})
	if err != nil {
		return nil, err
	}
	file, kind := dataset.TruthFile, learn.VertexMetric
	if sp.IsGraph() {
		file, kind = dataset.GraphTruthFile, learn.EdgeMetric
	}
	theta, err := sp.ReadMetric(filepath.Join(dir, file), kind)
	if err != nil {
		return nil, err
	}
	return dataset.DrawSynthetic(dir, sp, theta, set.Frames(), p.Truth)
}

func renderInterp(_ context.Context, dir string, p *interpParams, _ io.Writer) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "interp-*.npy"))
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no interp-*.npy files", dir)
	}
	dataset.Sort(files)
	// Frames on a graph are 1-D, one value per vertex of the graph folder
	// that held the source; on a grid their shape gives the grid.
	opt := &dataset.Options{Memory: limits.Memory}
	var sp dataset.Space
	if folder := filepath.Dir(p.Source); p.Source != "" && dataset.IsGraphFolder(folder) {
		var err error
		if sp, err = dataset.ReadGraphFolder(folder, limits.Memory); err != nil {
			return nil, fmt.Errorf("the interpolation's graph: %w", err)
		}
		opt.Length = sp.Graph.N()
	}
	set, err := dataset.LoadFiles(files, &dataset.Options{Memory: opt.Memory, Length: opt.Length, MinFrames: 2})
	if err != nil {
		return nil, err
	}
	if sp.Graph == nil {
		if sp.Graph, err = set.Graph(); err != nil {
			return nil, err
		}
	}
	out := filepath.Join(dir, "interp.png")
	drew, err := framesPicture(sp, out, []draw.Frames{{Name: "interpolated", Frames: set.Frames()}}, p.title())
	if err != nil || !drew {
		return nil, err
	}
	return []string{out}, nil
}

func renderEval(_ context.Context, dir string, p *evalParams, stderr io.Writer) ([]string, error) {
	sp, err := p.Data.Space(limits.Memory)
	if err != nil {
		return nil, err
	}
	out, err := runlog.RedrawRecs(dir, &p.Data, sp, "reconstructions at "+filepath.Base(p.MetricFile), stderr)
	if out == "" {
		return nil, err
	}
	return []string{out}, err
}

func renderSunset(_ context.Context, dir string, p *sunsetParams, _ io.Writer) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "interp-hist-*.npy"))
	dataset.Sort(files)
	hists := make([][]float64, len(files))
	times := make([]float64, len(files))
	for f, name := range files {
		a, err := dataset.ReadFrame(name, &dataset.Options{Memory: limits.Memory})
		if err != nil {
			return nil, err
		}
		hists[f], times[f] = a.Data, float64(f)/float64(max(len(files)-1, 1))
	}
	drawn := []string{filepath.Join(dir, "hists.png"), filepath.Join(dir, "frames.png")}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no interp-hist-*.npy files", dir)
	}
	if err := colorSunsetHists(dir, hists, times, p.BinsHi, false); err != nil {
		return nil, err
	}
	if err := thumbnailStrip(drawn[1], filepath.Join(dir, "frame-*.png")); err != nil {
		return nil, err
	}
	if p.Method == "learned" {
		theta, err := p.metric()
		if err != nil {
			return nil, err
		}
		out := filepath.Join(dir, "metric.png")
		if err := colorMetricPicture(out, theta, p.Bins, p.MetricFile); err != nil {
			return nil, err
		}
		drawn = append(drawn, out)
	}
	return drawn, nil
}

func renderTransfer(_ context.Context, dir string, _ *struct{}, _ io.Writer) ([]string, error) {
	out := filepath.Join(dir, "transfers.png")
	return []string{out}, thumbnailStrip(out, filepath.Join(dir, "transfer-*.png"))
}
