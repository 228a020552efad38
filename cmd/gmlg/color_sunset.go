package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"image"
	"io"
	"math"
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot"
	"github.com/gmlg/gmlg/ot/color"
	"github.com/gmlg/gmlg/ot/draw"
)

// colorSunsetOutputs are the files sunset writes in its -o folder.
var colorSunsetOutputs = []string{"params.json", "metric.png", "interp-hist-*.npy", "hists.png", "frame-*.png", "lut-*.cube", "frames.png"}

// colorSunsetOptions are sunset's flags.
type colorSunsetOptions struct {
	out           string
	force         bool
	run           string
	metricFile    string
	method        string
	prolong       int
	bins          int
	frames        int
	gammaHi       float64
	lHi           int
	mode          string  // barycenter model of -method learned; empty = the run's
	tol           float64 // fast mode's tolerance; 0 = the run's
	tHi           float64
	stepsHi       int
	sigmaCT       float64
	lCT           int
	dropSaturated bool
	noBilateral   bool
	interpolate   bool
	lutSize       int
	backend       string
	quiet         bool
}

func init() {
	register(&command{
		name:    "sunset",
		summary: "interpolate the colours of a day and a night image and transfer them onto the day image",
		usage: `[options] DAY NIGHT

Computes the RGB histograms of DAY and NIGHT at n_hi = 2^k(n−1)+1 bins per
channel (k = -prolong), interpolates between them at -frames times in [0,1]
(as the reference does; docs/method.md, "Histogram interpolation") with

  -method learned  the heat kernel of a metric learned by colorlearn (-run
                   DIR), prolonged from n to n_hi (alpha = (n_hi−1)²; t,
                   steps, L and the barycenter model, exact or fast,
                   from the run's params.json);
  -method euclid   the separable Euclidean kernel exp(−|x−x'|²/γ), γ = -gamma;
  -method linear   (1−t)·h_day + t·h_night;

and transfers every interpolated histogram onto DAY by OT barycentric
projection with a Euclidean kernel (γ = 2·-sigma-ct², -L-ct Sinkhorn
iterations) and cross-bilateral smoothing (docs/method.md,
"Colour transfer"). The -o directory receives frame-XX.png (the image
sequence), interp-hist-XX.npy ([n_hi,n_hi,n_hi], R,G,B), lut-XX.cube (each
frame's colour transfer as a 3-D LUT for video tools), hists.png (the
interpolated histograms), frames.png (a strip of the images), params.json
and, with a learned metric, metric.png (the metric before prolongation, per
axis). A folder that is not empty is refused unless -force, which replaces
a previous gmlg output there as a whole and never a file that gmlg did not
write.`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := &colorSunsetOptions{}
			fs.StringVar(&o.out, "o", "sunset-out", "output `directory`")
			fs.BoolVar(&o.force, "force", false, "write into a folder that is not empty, replacing the previous gmlg output there (other files stay)")
			fs.StringVar(&o.run, "run", "", "colorlearn run `directory` (for -method learned)")
			fs.StringVar(&o.metricFile, "metric", "", "metric `file`: a [3,N] .npy or a colorlearn checkpoint.gob (default RUN/metric.npy)")
			fs.StringVar(&o.method, "method", "", "interpolation: learned, euclid or linear (default learned with -run, else euclid)")
			fs.IntVar(&o.prolong, "prolong", 1, "prolongation `levels` k: n_hi = 2^k(n−1)+1")
			fs.IntVar(&o.bins, "n", 16, "base bins per channel for euclid/linear (learned takes the run's n); n_hi = 2^k(n−1)+1 at most "+fmt.Sprint(limits.MaxBins))
			fs.IntVar(&o.frames, "frames", 10, "number of `frames`, endpoints included, at most "+fmt.Sprint(limits.MaxFrames))
			fs.Float64Var(&o.gammaHi, "gamma", 0.001, "γ of the Euclidean interpolation kernel")
			fs.IntVar(&o.lHi, "L", 0, "Sinkhorn `iterations` of the interpolation (0: the run's L, or 50)")
			fs.StringVar(&o.mode, "mode", "", "barycenter `model` of -method learned: exact (L iterations) or fast (converged to -tol); empty: the run's, or exact when -L is given")
			fs.Float64Var(&o.tol, "tol", 0, "fast mode's Sinkhorn marginal `tolerance` (0: the run's)")
			fs.Float64Var(&o.tHi, "t", 0, "heat `time` of the learned kernel (0: the run's t)")
			fs.IntVar(&o.stepsHi, "steps", 0, "heat `steps` of the learned kernel (0: the run's)")
			fs.Float64Var(&o.sigmaCT, "sigma-ct", 0.05, "σ of the transfer's Euclidean kernel, γ = 2σ²")
			fs.IntVar(&o.lCT, "L-ct", 500, "Sinkhorn `iterations` of the transfer")
			fs.BoolVar(&o.dropSaturated, "drop-saturated", false, "drop pixels with a channel equal to 255 (reference-compatible histograms)")
			fs.BoolVar(&o.noBilateral, "no-bilateral", false, "no cross-bilateral smoothing of the colour correction")
			fs.BoolVar(&o.interpolate, "interpolate", false, "interpolate the per-bin correction between bins (gmlg extension) instead of the nearest bin")
			fs.IntVar(&o.lutSize, "lut-size", 0, "`nodes` per axis of the .cube LUTs (0: n_hi)")
			fs.StringVar(&o.backend, "backend", "", backendHelp("empty"))
			fs.BoolVar(&o.quiet, "q", false, "no progress output")
			return func(ctx context.Context, args []string) error {
				if len(args) != 2 {
					return usagef("want a day and a night image, got %d arguments", len(args))
				}
				_, logw := outputs(ctx)
				if o.quiet {
					logw = io.Discard
				}
				return colorSunset(ctx, args[0], args[1], o, logw)
			}
		},
	})
}

// colorSunset runs sunset.
func colorSunset(ctx context.Context, dayPath, nightPath string, o *colorSunsetOptions, logw io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	inputs := []string{dayPath, nightPath, o.run, o.metricFile}
	if err := checkInputs(o.out, inputs...); err != nil {
		return err
	}
	day, err := colorLoadImage(dayPath, limits.ColourTransferPixelBytes)
	if err != nil {
		return err
	}
	night, err := colorLoadImage(nightPath, 0)
	if err != nil {
		return err
	}
	od, err := takeOutDir(ctx, o.out, sunsetSpec, o.force, inputs...)
	if err != nil {
		return err
	}
	defer od.Close()
	params := map[string]any{
		"command": "sunset", "version": rundir.Version(), "day": dayPath, "night": nightPath, "method": o.method,
		"prolong": o.prolong, "frames": o.frames, "sigma_ct": o.sigmaCT, "gamma_ct": color.GammaFromSigma(o.sigmaCT),
		"L_ct": o.lCT, "drop_saturated": o.dropSaturated, "bilateral": !o.noBilateral, "interpolate": o.interpolate,
	}
	n := o.bins
	var run *runlog.ColourRun
	var theta []float64
	if o.method == "learned" {
		if run, theta, err = colorSunsetMetric(o, params); err != nil {
			return err
		}
		n = run.Bins
	}
	nHi := color.ProlongedSize(n, o.prolong)
	if err := checkSunsetSize(o, n, nHi); err != nil {
		return err
	}
	params["n"], params["n_hi"] = n, nHi
	fmt.Fprintf(logw, "sunset: %s interpolation at %d³ bins, %d frames\n", o.method, nHi, o.frames)
	sopt, err := colorSunsetSettings(o, run, theta, nHi, params, logw)
	if err != nil {
		return err
	}
	if c, ok := sopt.Kernel.(io.Closer); ok {
		defer c.Close()
	}
	s, err := color.NewSunset(day, night, sopt)
	if err != nil {
		return fmt.Errorf("-method %s: %w", o.method, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := rundir.WriteChecked(filepath.Join(o.out, "params.json"), params); err != nil {
		return err
	}
	if err := colorSunsetHists(o.out, s.Hists, s.Times, nHi); err != nil {
		return err
	}
	if err := colorSunsetFrames(ctx, o, s, logw); err != nil {
		return err
	}
	fmt.Fprintf(logw, "done: %d frames in %s\n", len(s.Hists), o.out)
	return nil
}

// check fills in the default -method (learned with a -run or -metric,
// euclid otherwise) and validates sunset's options, as usage errors.
func (o *colorSunsetOptions) check() error {
	if o.method == "" {
		o.method = "euclid"
		if o.run != "" || o.metricFile != "" {
			o.method = "learned"
		}
	}
	switch {
	case o.method != "learned" && o.method != "euclid" && o.method != "linear":
		return usagef("-method must be learned, euclid or linear, got %q", o.method)
	case o.method == "learned" && o.run == "":
		return usagef("-method learned needs -run DIR (a colorlearn run)")
	case o.prolong < 0 || o.prolong > 4:
		return usagef("-prolong must be in 0..4, got %d", o.prolong)
	case o.frames < 2:
		return usagef("-frames must be at least 2, got %d", o.frames)
	case o.bins < 2:
		return usagef("-n must be at least 2, got %d", o.bins)
	case !(o.gammaHi > 0) || !(o.sigmaCT > 0):
		return usagef("-gamma and -sigma-ct must be positive")
	case o.mode != "" && o.mode != "exact" && o.mode != "fast":
		return usagef("-mode must be exact or fast, got %q", o.mode)
	case !(o.tol >= 0) || math.IsInf(o.tol, 0):
		return usagef("-tol must be a finite number ≥ 0, got %g", o.tol)
	case o.lHi < 0 || o.lCT < 1 || o.tHi < 0 || o.stepsHi < 0 || o.lutSize < 0 || o.lutSize == 1:
		return usagef("-L, -L-ct, -t, -steps and -lut-size must be valid (non-negative; -L-ct ≥ 1; -lut-size 0 or ≥ 2)")
	}
	if err := checkFrames("-frames", o.frames); err != nil {
		return err
	}
	return checkBins("-n", o.bins)
}

// colorSunsetMetric reads the colorlearn run of -run and its learned metric
// (-metric, or the run's metric.npy), refuses a t or a metric too large for
// the heat matrix on the prolonged grid before anything else is written,
// records both in params and draws metric.png.
func colorSunsetMetric(o *colorSunsetOptions, params map[string]any) (*runlog.ColourRun, []float64, error) {
	run, err := runlog.ReadColourRun(filepath.Join(o.run, colorParamsFile))
	if err != nil {
		return nil, nil, fmt.Errorf("-run: %w", err)
	}
	n := run.Bins
	mf := o.metricFile
	if mf == "" {
		mf = filepath.Join(o.run, "metric.npy")
	}
	theta, err := run.ReadMetric(mf)
	if err != nil {
		return nil, nil, fmt.Errorf("-metric: %w", err)
	}
	// Prolongation interpolates, so it keeps the metric's largest value.
	m := run.Interpolation(o.override())
	nHi := color.ProlongedSize(n, o.prolong)
	if err := checkHeatT("-t", m.T, m.Steps, 3, nHi); err != nil {
		return nil, nil, err
	}
	if err := kernel.GridHeatBound(3, nHi).CheckMetric(mf, theta, m.T, m.Steps); err != nil {
		return nil, nil, err
	}
	params["run"], params["metric"] = o.run, mf
	pic, err := draw.MetricMaps(theta, 3, n, "metric "+filepath.Base(mf), 240)
	if err != nil {
		return nil, nil, err
	}
	if err := runlog.SavePicture(filepath.Join(o.out, "metric.png"), pic); err != nil {
		return nil, nil, err
	}
	return run, theta, nil
}

// colorSunsetSettings returns the library settings of sunset's flags:
// the interpolation kernel of -method (the learned metric theta of run,
// prolonged to n_hi, for learned; the caller closes it) and its model,
// which it records in params and, for a learned metric, names on logw.
func colorSunsetSettings(o *colorSunsetOptions, run *runlog.ColourRun, theta []float64, nHi int, params map[string]any, logw io.Writer) (*color.SunsetOptions, error) {
	sopt := &color.SunsetOptions{Bins: nHi, Frames: o.frames, DropSaturated: o.dropSaturated, SigmaTransfer: o.sigmaCT,
		Transfer: color.TransferOptions{Iterations: o.lCT, NoBilateral: o.noBilateral, Interpolate: o.interpolate}}
	switch o.method {
	case "linear":
		return sopt, nil
	case "euclid":
		k, err := color.NewEuclidean(nHi, o.gammaHi)
		if err != nil {
			return nil, err
		}
		sopt.Kernel, sopt.Iterations = k, cmp.Or(o.lHi, ot.DefaultIterations)
		params["gamma"], params["L"] = o.gammaHi, sopt.Iterations
		return sopt, nil
	}
	m := run.Interpolation(o.override())
	heat, err := colorLearnedKernel(theta, run.Bins, m, o, params)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(logw, m.Line(filepath.Join(o.run, colorParamsFile)))
	sopt.Kernel, sopt.Iterations = heat, m.Iterations
	params["mode"] = "exact"
	if m.Fast {
		params["mode"], params["tol"] = "fast", m.Tol
		sopt.Tol, sopt.Anderson = cmp.Or(m.Tol, learn.DefaultTol), m.Anderson
	}
	return sopt, nil
}

// colorSunsetHists writes the interpolated histograms into dir, one
// interp-hist-XX.npy each, and their strip hists.png.
func colorSunsetHists(dir string, hists [][]float64, times []float64, nHi int) error {
	titles := make([]string, len(times))
	for f, t := range times {
		titles[f] = fmt.Sprintf("t=%.2f", t)
		a := &dataset.Array{Shape: []int{nHi, nHi, nHi}, Data: hists[f]}
		if err := dataset.WriteNpyFile(filepath.Join(dir, fmt.Sprintf("interp-hist-%02d.npy", f)), a); err != nil {
			return err
		}
	}
	strip, err := draw.HistogramStrip(hists, nHi, titles, &draw.HistogramOptions{Size: 200})
	if err != nil {
		return err
	}
	return runlog.SavePicture(filepath.Join(dir, "hists.png"), strip)
}

// colorSunsetFrames renders every frame of s, writing frame-XX.png, its
// LUT lut-XX.cube and the strip frames.png.
func colorSunsetFrames(ctx context.Context, o *colorSunsetOptions, s *color.Sunset, logw io.Writer) error {
	thumbs := make([]image.Image, len(s.Hists))
	for f, t := range s.Times {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, m, err := s.Frame(f)
		if err != nil {
			return fmt.Errorf("transfer of frame %d: %w", f, err)
		}
		rgba := out.NRGBA()
		if err := colorSaveFrame(filepath.Join(o.out, fmt.Sprintf("frame-%02d.png", f)), rgba); err != nil {
			return err
		}
		if err := colorWriteLUT(filepath.Join(o.out, fmt.Sprintf("lut-%02d.cube", f)), m, o.lutSize,
			fmt.Sprintf("gmlg sunset %s frame %d t=%.4f", o.method, f, t)); err != nil {
			return err
		}
		thumbs[f] = draw.Thumbnail(rgba, 200)
		fmt.Fprintf(logw, "frame %d/%d (t = %.3f): transfer marginal error %.3g\n", f+1, len(s.Hists), t, m.MarginalErr)
	}
	return runlog.SavePicture(filepath.Join(o.out, "frames.png"), draw.Row(thumbs...))
}

// colorLearnedKernel builds the heat kernel of the learned metric theta
// on n³ bins prolonged by -prolong levels, under the model m, and records
// it in params.
func colorLearnedKernel(theta []float64, n int, m runlog.ColourModel, o *colorSunsetOptions, params map[string]any) (*kernel.Heat, error) {
	hopt := kernel.HeatOptions{T: m.T, Steps: m.Steps}
	if o.backend != "" {
		var err error
		if hopt.Backend, err = kernel.Backend(o.backend); err != nil {
			return nil, usagef("-backend: %v", err)
		}
	}
	heat, err := color.NewLearnedKernel(theta, n, &color.LearnedOptions{Levels: o.prolong, Heat: hopt})
	if err != nil {
		return nil, fmt.Errorf("learned metric: %w", kernel.ExplainNotPosDef(err, "the learned metric", "-t, -steps"))
	}
	params["t_heat"], params["k_heat"], params["L"], params["alpha"] = m.T, m.Steps, m.Iterations, heat.Options().Alpha
	return heat, nil
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

// override is what sunset's flags change of a run's interpolation model.
func (o *colorSunsetOptions) override() runlog.ColourOverride {
	return runlog.ColourOverride{T: o.tHi, Steps: o.stepsHi, Iterations: o.lHi, Mode: o.mode, Tol: o.tol}
}
