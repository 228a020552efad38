package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/frames"
	"github.com/gmlg/gmlg/cmd/gmlg/internal/npyfile"
)

func init() {
	register(&command{
		name:    "render",
		summary: "redraw the pictures of a run folder (learn, synth or interp) from its .npy files",
		usage:   "[options] RUN_DIR",
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
	path := filepath.Join(dir, "params.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s is not a gmlg folder: %w", dir, err)
	}
	var head struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
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
	fmt.Fprintf(stdout, "gmlg render: redrew %d picture(s) in %s\n", len(drawn), dir)
	return nil
}

// readMetricArray reads a [d,N] metric file and returns d and n.
func readMetricArray(path string) (*npyfile.Array, int, int, error) {
	a, err := npyfile.ReadFile(path)
	if err != nil {
		return nil, 0, 0, err
	}
	if len(a.Shape) != 2 || a.Shape[0] < 2 || a.Shape[0] > 3 {
		return nil, 0, 0, fmt.Errorf("%s: shape %s is not a [d,N] metric with d = 2 or 3", path, npyfile.ShapeString(a.Shape))
	}
	d := a.Shape[0]
	n := int(math.Round(math.Pow(float64(a.Shape[1]), 1/float64(d))))
	if p := int(math.Pow(float64(n), float64(d))); p != a.Shape[1] {
		return nil, 0, 0, fmt.Errorf("%s: %d vertices is not a %d-D grid", path, a.Shape[1], d)
	}
	return a, d, n, nil
}

func renderLearn(ctx context.Context, dir string, raw []byte, stderr io.Writer) ([]string, error) {
	var p learnParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "params.json"), err)
	}
	var drawn []string
	metrics, _ := filepath.Glob(filepath.Join(dir, "metric-*.npy"))
	if _, err := os.Stat(filepath.Join(dir, "metric.npy")); err == nil {
		metrics = append(metrics, filepath.Join(dir, "metric.npy"))
	}
	var losses []float64
	if a, err := npyfile.ReadFile(filepath.Join(dir, "loss.npy")); err == nil {
		losses = a.Data
	} else if !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		return nil, err
	}
	for _, m := range metrics {
		if err := ctx.Err(); err != nil {
			return drawn, err
		}
		a, d, n, err := readMetricArray(m)
		if err != nil {
			return drawn, err
		}
		base := strings.TrimSuffix(filepath.Base(m), ".npy")
		title := "learned metric"
		var it int
		if _, err := fmt.Sscanf(base, "metric-%d", &it); err == nil {
			title = fmt.Sprintf("metric at iteration %d", it)
			if it >= 1 && it <= len(losses) {
				title += fmt.Sprintf(" (F = %.6g)", losses[it-1])
			}
		} else if len(losses) > 0 {
			title = fmt.Sprintf("learned metric (iteration %d, F = %.6g)", len(losses), losses[len(losses)-1])
		}
		out := strings.TrimSuffix(m, ".npy") + ".png"
		if err := metricPictureRaw(out, a.Data, d, n, title); err != nil {
			return drawn, err
		}
		drawn = append(drawn, out)
	}
	if a, d, n, err := readMetricArray(filepath.Join(dir, "metric.npy")); err == nil {
		out := filepath.Join(dir, "metric-vs-truth.png")
		ok, err := truthPicture(out, p.Data.Dir, a.Data, d, n, fmt.Sprintf("true metric (%s) and learned metric (iteration %d)", truthName, len(losses)))
		if err != nil {
			return drawn, err
		}
		if ok {
			drawn = append(drawn, out)
		}
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
		sort.Strings(recFiles)
		rs, err := frames.LoadFiles(recFiles, &frames.Options{MinFrames: 2})
		if err != nil {
			return drawn, err
		}
		var recs, obs [][][]float64
		for _, q := range rs.Sequences {
			var s [][]float64
			for _, f := range q.Frames {
				s = append(s, f.Data)
			}
			recs = append(recs, s)
		}
		if ds, err := loadData(p.Data.Dir, p.Data.Pattern, p.Data.Floor); err == nil && ds.set.N() == rs.N() {
			for _, s := range ds.seqs {
				obs = append(obs, s.Frames)
			}
		} else {
			fmt.Fprintf(stderr, "gmlg render: drawing the reconstructions without the observations (%v)\n", err)
		}
		out := filepath.Join(dir, "recs.png")
		if err := recStrip(out, obs, recs, rs.Dim(), rs.Side(), fmt.Sprintf("iteration %d", len(losses))); err != nil {
			return drawn, err
		}
		drawn = append(drawn, out)
	}
	return drawn, nil
}

func renderSynth(dir string, raw []byte) ([]string, error) {
	var p synthParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "params.json"), err)
	}
	a, _, n, err := readMetricArray(filepath.Join(dir, "a-metric.npy"))
	if err != nil {
		return nil, err
	}
	set, err := frames.Load(dir, nil)
	if err != nil {
		return nil, err
	}
	var seqs [][][]float64
	for _, q := range set.Sequences {
		var s [][]float64
		for _, f := range q.Frames {
			s = append(s, f.Data)
		}
		seqs = append(seqs, s)
	}
	if err := drawSynth(dir, n, a.Data, seqs, p.Truth); err != nil {
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
	sort.Strings(files)
	var recs [][]float64
	var shape []int
	for _, f := range files {
		a, err := frames.ReadFrame(f)
		if err != nil {
			return nil, err
		}
		if shape != nil && npyfile.ShapeString(shape) != npyfile.ShapeString(a.Shape) {
			return nil, fmt.Errorf("%s: shape %s differs from %s", f, npyfile.ShapeString(a.Shape), npyfile.ShapeString(shape))
		}
		shape = a.Shape
		recs = append(recs, a.Data)
	}
	title := p.Method + " interpolation"
	if p.Method == "metric" {
		title += " (" + filepath.Base(p.MetricFile) + ")"
	}
	out := filepath.Join(dir, "interp.png")
	if err := drawStrip(out, []stripPart{{"interpolated", [][][]float64{recs}}}, len(shape), shape[0], title); err != nil {
		return nil, err
	}
	return []string{out}, nil
}
