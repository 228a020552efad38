package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/color"
	"github.com/gmlg/gmlg/ot/draw"
)

// sunsetSpec names every file sunset writes (see learnSpec).
var sunsetSpec = rundir.Spec{Command: "sunset", Outputs: []string{"params.json", "metric.png", "interp-hist-*.npy", "hists.png", "frame-*.png", "lut-*.cube", "frames.png"}}

// sunsetParams are sunset's settings, recorded in its params.json.
type sunsetParams struct {
	Command    string       `json:"command"`
	Version    string       `json:"version"`
	Day        string       `json:"day"`
	Night      string       `json:"night"`
	Method     string       `json:"method"`
	Run        string       `json:"run,omitempty"`
	MetricFile string       `json:"metric_file,omitempty"`
	Model      runlog.Model `json:"model"` // the interpolation's kernel and barycenter model
	Bins       int          `json:"bins"`  // of the metric (learned) or the histograms (euclid, linear)
	BinsHi     int          `json:"bins_hi"`
	Prolong    int          `json:"prolong"`
	Frames     int          `json:"frames"`
	Gamma      float64      `json:"gamma,omitempty"` // euclid's kernel
	colourTransfer
	// from says where Model's barycenter settings come from (modelSource).
	from string
}

func init() {
	register(&command{
		name:    "sunset",
		summary: "interpolate the colours of a day and a night image and transfer them onto the day image",
		usage: `[options] DAY NIGHT

Computes the RGB histograms of DAY and NIGHT at n_hi = 2^k(n−1)+1 bins per
channel (k = --prolong), interpolates between them at --frames times in
[0,1] (as the reference does; docs/method.md, "Histogram interpolation")
with

  --method learned  the heat kernel of a metric learned by gmlg learn
                    --preset colour (--run DIR), prolonged from n to n_hi
                    (α = (n_hi−1)²), under the run's model (its t, steps,
                    L and mode) unless the options here change it;
  --method euclid   the separable Euclidean kernel exp(−|x−x'|²/γ),
                    γ = --gamma, n = --bins;
  --method linear   (1−t)·h_day + t·h_night, n = --bins;

and transfers every interpolated histogram onto DAY by OT barycentric
projection with a Euclidean kernel (σ = --transfer-sigma,
--transfer-iters Sinkhorn iterations) and cross-bilateral smoothing
(docs/method.md, "Colour transfer"). The -o folder receives frame-XX.png
(the image sequence), interp-hist-XX.npy ([n_hi,n_hi,n_hi], R,G,B),
lut-XX.cube (each frame's colour transfer as a 3-D LUT for video tools),
hists.png, frames.png, params.json and, with a learned metric, metric.png.`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			p := &sunsetParams{Model: runlog.DefaultModel()}
			var out, progress string
			var force bool
			outFlags(fs, &out, &force, "sunset", "output `folder`")
			fs.StringVar(&p.Run, "run", "", "colour learning `RUN_DIR` (for --method learned): its metric.npy and its model")
			fs.StringVar(&p.MetricFile, "metric-file", "", "metric `FILE.npy` [3,N] of the run's bins, or a run's checkpoint.gob (default RUN_DIR/metric.npy)")
			fs.StringVar(&p.Method, "method", "", "interpolation: learned, euclid or linear (default learned with --run, else euclid)")
			fs.IntVar(&p.Prolong, "prolong", 1, "prolongation `levels` k: n_hi = 2^k(n−1)+1, 0 to 4")
			binsFlag(fs, &p.Bins)
			fs.IntVar(&p.Frames, "frames", 10, "number of `frames` from t = 0 to t = 1, ≥ 2 and at most "+fmt.Sprint(limits.MaxFrames))
			fs.Float64Var(&p.Gamma, "gamma", 0.001, "γ of the Euclidean interpolation kernel (--method euclid)")
			interpFlags(&p.Model, fs)
			p.flags(fs, "n_hi")
			progressFlag(fs, &progress)
			return func(ctx context.Context, args []string) error {
				if len(args) != 2 {
					return usagef("want a day and a night image, got %d arguments", len(args))
				}
				if err := checkProgress(progress); err != nil {
					return err
				}
				set := flagsGiven(fs)
				if p.Run != "" {
					rp, err := runParams(fs, p.Run, interpFlags)
					if err != nil {
						return err
					}
					if rp.Data.Kind != runlog.Colour {
						return usagef("--run: %s learned from %s, not from colour images (gmlg learn --preset colour)", p.Run, rp.Data.Kind)
					}
					p.Model, p.Bins = rp.Model, rp.Data.Bins
				}
				p.from = modelSource(p.Run, set)
				p.Day, p.Night = args[0], args[1]
				return colorSunset(ctx, p, out, force, progressWriter(ctx, progress))
			}
		},
	})
}

// colorSunset runs sunset.
func colorSunset(ctx context.Context, p *sunsetParams, out string, force bool, logw io.Writer) error {
	if err := p.check(); err != nil {
		return err
	}
	inputs := []string{p.Day, p.Night, p.Run, p.MetricFile}
	if err := checkInputs(out, inputs...); err != nil {
		return err
	}
	applyThreads(p.Model.Threads)
	day, err := colorLoadImage(p.Day, limits.ColourTransferPixelBytes)
	if err != nil {
		return err
	}
	night, err := colorLoadImage(p.Night, 0)
	if err != nil {
		return err
	}
	var theta []float64
	if p.Method == "learned" {
		if theta, err = p.metric(); err != nil {
			return err
		}
	}
	if err := checkSunsetSize(p); err != nil {
		return err
	}
	sopt, err := p.settings(theta, logw)
	if err != nil {
		return err
	}
	if c, ok := sopt.Kernel.(io.Closer); ok {
		defer c.Close()
	}
	s, err := color.NewSunset(day, night, sopt)
	if err != nil {
		return fmt.Errorf("--method %s: %w", p.Method, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p.Command, p.Version = "sunset", rundir.Version()
	od, err := takeOutDir(ctx, out, sunsetSpec, force, p, inputs...)
	if err != nil {
		return err
	}
	defer od.Close()
	if theta != nil {
		if err := colorMetricPicture(filepath.Join(out, "metric.png"), theta, p.Bins, p.MetricFile); err != nil {
			return err
		}
	}
	if err := colorSunsetHists(out, s.Hists, s.Times, p.BinsHi, true); err != nil {
		return err
	}
	if err := colorSunsetFrames(ctx, p, out, s, logw); err != nil {
		return err
	}
	fmt.Fprintf(logw, "done: %d frames in %s\n", len(s.Hists), out)
	return nil
}

// check fills in the default --method (learned with a --run, euclid
// otherwise) and n_hi, and validates sunset's options, as usage errors.
func (p *sunsetParams) check() error {
	if p.Method == "" {
		p.Method = "euclid"
		if p.Run != "" {
			p.Method = "learned"
		}
	}
	switch {
	case p.Method != "learned" && p.Method != "euclid" && p.Method != "linear":
		return usagef("--method must be learned, euclid or linear, got %q", p.Method)
	case p.Method == "learned" && p.Run == "":
		return usagef("--method learned needs --run RUN_DIR (a run of gmlg learn --preset colour)")
	case p.Prolong < 0 || p.Prolong > 4:
		return usagef("--prolong must be in 0..4, got %d", p.Prolong)
	case p.Frames < 2:
		return usagef("--frames must be at least 2, got %d", p.Frames)
	case p.Bins < 2:
		return usagef("--bins must be at least 2, got %d", p.Bins)
	case !(p.Gamma > 0) || !(p.TransferSigma > 0) || math.IsInf(p.Gamma+p.TransferSigma, 0):
		return usagef("--gamma and --transfer-sigma must be positive and finite")
	case p.TransferIters < 1 || p.LUTSize < 0 || p.LUTSize == 1:
		return usagef("--transfer-iters must be ≥ 1 and --lut-size 0 or ≥ 2")
	}
	if err := checkModel(&p.Model); err != nil {
		return err
	}
	if err := checkFrames("--frames", p.Frames); err != nil {
		return err
	}
	if p.MetricFile == "" && p.Run != "" {
		p.MetricFile = filepath.Join(p.Run, "metric.npy")
	}
	p.BinsHi = color.ProlongedSize(p.Bins, p.Prolong)
	return checkBins("--bins", p.Bins)
}

// metric reads the learned metric of --metric-file and refuses a t or a
// metric too large for the heat matrix on the prolonged grid.
func (p *sunsetParams) metric() ([]float64, error) {
	g, err := kernel.Cube(3, p.Bins)
	if err != nil {
		return nil, fmt.Errorf("--bins: %w", err)
	}
	theta, err := runlog.ReadMetric(p.MetricFile, dataset.Space{Graph: g, Colour: true}, learn.VertexMetric)
	if err != nil {
		return nil, fmt.Errorf("--metric-file: %w", err)
	}
	if p.BinsHi <= limits.MaxBins {
		bound := kernel.GridHeatBound(3, p.BinsHi)
		if err := flagLimit(bound.CheckTime("--t", p.Model.T, p.Model.Steps)); err != nil {
			return nil, err
		}
		// Prolongation interpolates, so it keeps the metric's largest value.
		if err := bound.CheckMetric(p.MetricFile, theta, p.Model.T, p.Model.Steps); err != nil {
			return nil, err
		}
	}
	return theta, nil
}

// settings returns the library settings of sunset's options: the
// interpolation kernel of --method (the learned metric theta prolonged to
// n_hi for learned, whose model it names on logw; the caller closes it).
func (p *sunsetParams) settings(theta []float64, logw io.Writer) (*color.SunsetOptions, error) {
	sopt := &color.SunsetOptions{Bins: p.BinsHi, Frames: p.Frames, DropSaturated: p.DropSaturated, SigmaTransfer: p.TransferSigma,
		Iterations: p.Model.SinkhornIters, Transfer: p.options()}
	switch p.Method {
	case "linear":
		return sopt, nil
	case "euclid":
		k, err := color.NewEuclidean(p.BinsHi, p.Gamma)
		if err != nil {
			return nil, err
		}
		sopt.Kernel = k
		return sopt, nil
	}
	hopt := p.Model.HeatOptions()
	hopt.Threads, hopt.Serial = 0, false
	heat, err := color.NewLearnedKernel(theta, p.Bins, &color.LearnedOptions{Levels: p.Prolong, Heat: hopt})
	if err != nil {
		return nil, fmt.Errorf("learned metric: %w", kernel.ExplainNotPosDef(err, "the learned metric", "--t, --steps"))
	}
	fmt.Fprintln(logw, p.Model.Line(p.from))
	sopt.Kernel = heat
	if p.Model.Mode == "fast" {
		sopt.Tol, sopt.Anderson = p.Model.FastSinkhorn().Tol, p.Model.Anderson
	}
	return sopt, nil
}

// colorMetricPicture draws the learned colour metric theta on n³ bins,
// read from the file mf, into path.
func colorMetricPicture(path string, theta []float64, n int, mf string) error {
	pic, err := draw.MetricMaps(theta, 3, n, "metric "+filepath.Base(mf), 240)
	if err != nil {
		return err
	}
	return dataset.SavePicture(path, pic)
}

// colorSunsetHists writes the strip hists.png of the interpolated
// histograms into dir, and with npy each as interp-hist-XX.npy.
func colorSunsetHists(dir string, hists [][]float64, times []float64, nHi int, npy bool) error {
	titles := make([]string, len(times))
	for f, t := range times {
		titles[f] = fmt.Sprintf("t=%.2f", t)
		a := &dataset.Array{Shape: []int{nHi, nHi, nHi}, Data: hists[f]}
		if npy {
			if err := dataset.WriteNpyFile(filepath.Join(dir, fmt.Sprintf("interp-hist-%02d.npy", f)), a); err != nil {
				return err
			}
		}
	}
	strip, err := draw.HistogramStrip(hists, nHi, titles, &draw.HistogramOptions{Size: 200})
	if err != nil {
		return err
	}
	return dataset.SavePicture(filepath.Join(dir, "hists.png"), strip)
}

// colorSunsetFrames renders every frame of s into dir, writing
// frame-XX.png, its LUT lut-XX.cube and the strip frames.png.
func colorSunsetFrames(ctx context.Context, p *sunsetParams, dir string, s *color.Sunset, logw io.Writer) error {
	for f, t := range s.Times {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, m, err := s.Frame(f)
		if err != nil {
			return fmt.Errorf("transfer of frame %d: %w", f, err)
		}
		if err := colorSaveFrame(filepath.Join(dir, fmt.Sprintf("frame-%02d.png", f)), out.NRGBA()); err != nil {
			return err
		}
		if err := colorWriteLUT(filepath.Join(dir, fmt.Sprintf("lut-%02d.cube", f)), m, p.LUTSize,
			fmt.Sprintf("gmlg sunset %s frame %d t=%.4f", p.Method, f, t)); err != nil {
			return err
		}
		fmt.Fprintf(logw, "frame %d/%d (t = %.3f): transfer marginal error %.3g\n", f+1, len(s.Hists), t, m.MarginalErr)
	}
	return thumbnailStrip(filepath.Join(dir, "frames.png"), filepath.Join(dir, "frame-*.png"))
}

// colorWriteLUT writes a map as a .cube file.
func colorWriteLUT(path string, m *color.Map, size int, title string) error {
	c, err := m.Cube(size, title)
	if err != nil {
		return err
	}
	return rundir.Write(path, 0o644, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}
