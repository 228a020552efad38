package color

import (
	"cmp"
	"fmt"
	"image"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// DefaultSunsetFrames is the number of frames of a sunset when
// SunsetOptions.Frames is zero.
const DefaultSunsetFrames = 10

// DefaultSigmaTransfer is σ of the transfer kernel of a sunset when
// SunsetOptions.SigmaTransfer is zero (γ = 2σ² = 0.005).
const DefaultSigmaTransfer = 0.05

// SunsetOptions configures NewSunset. A nil *SunsetOptions or zero fields
// mean the documented defaults.
type SunsetOptions struct {
	// Bins is the number n of histogram bins per channel. Zero means the side
	// of Kernel's grid (the cube root of its size), or 16 without a Kernel.
	Bins int
	// Frames is the number of frames, the endpoints included, at the times
	// ot.Linspace(Frames); zero means DefaultSunsetFrames.
	Frames int
	// DropSaturated selects the reference-compatible histograms (see
	// HistOptions).
	DropSaturated bool
	// Kernel is the ground kernel of the displacement interpolation on the
	// Bins³ grid: a learned heat kernel (NewLearnedKernel) or a *Euclidean.
	// nil means the linear interpolation (1−t)·day + t·night (ot.Linear).
	Kernel ot.Kernel
	// Iterations is L, the Sinkhorn iterations of every barycenter of the
	// reference's model, in which the endpoints too run the loop
	// (ot.Settings.IterateEndpoints); zero means ot.DefaultIterations.
	Iterations int
	// Tol, when positive, selects the converged model of a metric learned
	// in tolerance mode instead: every barycenter runs Sinkhorn until its
	// marginal violation is at most Tol, with Anderson mixing of depth
	// Anderson (zero means none), and the endpoint frames are K·(h/K·1).
	// Zero means the L-iteration model.
	Tol      float64
	Anderson int
	// SigmaTransfer is σ of the Euclidean kernel of the colour transfer,
	// γ = 2σ² (GammaFromSigma); zero means DefaultSigmaTransfer.
	SigmaTransfer float64
	// Transfer configures the colour transfer of every frame; its zero
	// Iterations means DefaultIterations, as for Transfer.Apply.
	Transfer TransferOptions
}

// Sunset is the paper's sunset pipeline (docs/method.md, "Colour
// pipeline"): the colour histograms of a day and a night image, their
// displacement interpolation at evenly spaced times, and (Frame, one at a
// time, so that a caller can write each as it comes) the transfer of every
// interpolated histogram onto the day image. A Sunset must not be used
// from several goroutines at once.
type Sunset struct {
	// Times are the frame times in [0,1], the endpoints included.
	Times []float64
	// Day and Night are the histograms of the two images.
	Day, Night []float64
	// Hists are the interpolated histograms, Hists[f] at Times[f].
	Hists [][]float64

	im   *Image
	tr   *Transfer
	topt TransferOptions
}

// NewSunset computes the histograms of day and night and interpolates
// between them as opt says. A nil opt means all defaults.
func NewSunset(day, night image.Image, opt *SunsetOptions) (*Sunset, error) {
	o := *cmp.Or(opt, &SunsetOptions{})
	if err := o.fill(); err != nil {
		return nil, fmt.Errorf("color: sunset: %w", err)
	}
	s := &Sunset{Times: ot.Linspace(o.Frames), topt: o.Transfer}
	hopt := &HistOptions{Bins: o.Bins, DropSaturated: o.DropSaturated}
	var err error
	if s.Day, err = Histogram(day, hopt); err != nil {
		return nil, fmt.Errorf("color: sunset: day image: %w", err)
	}
	if s.Night, err = Histogram(night, hopt); err != nil {
		return nil, fmt.Errorf("color: sunset: night image: %w", err)
	}
	if s.Hists, err = o.interpolate(s.Day, s.Night, s.Times); err != nil {
		return nil, fmt.Errorf("color: sunset: %w", err)
	}
	ek, err := NewEuclidean(o.Bins, GammaFromSigma(o.SigmaTransfer))
	if err != nil {
		return nil, fmt.Errorf("color: sunset: transfer kernel: %w", err)
	}
	if s.tr, err = NewTransfer(ek, o.Bins); err != nil {
		return nil, err
	}
	s.im = FromImage(day)
	return s, nil
}

// fill replaces the zero fields of o by their defaults and checks o.
func (o *SunsetOptions) fill() error {
	if o.Bins == 0 {
		o.Bins = 16
		if o.Kernel != nil {
			o.Bins = int(math.Round(math.Cbrt(float64(o.Kernel.Size()))))
		}
	}
	o.Frames = cmp.Or(o.Frames, DefaultSunsetFrames)
	o.SigmaTransfer = cmp.Or(o.SigmaTransfer, DefaultSigmaTransfer)
	switch {
	case o.Bins < 2:
		return fmt.Errorf("bins = %d, want ≥ 2", o.Bins)
	case o.Frames < 2:
		return fmt.Errorf("frames = %d, want ≥ 2", o.Frames)
	case !(o.SigmaTransfer > 0) || math.IsInf(o.SigmaTransfer, 0):
		return fmt.Errorf("sigma of the transfer = %v, want positive and finite", o.SigmaTransfer)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0) || o.Anderson < 0:
		return fmt.Errorf("tol = %v, anderson = %d, want a finite tol ≥ 0 and anderson ≥ 0", o.Tol, o.Anderson)
	case o.Iterations < 0:
		return fmt.Errorf("negative iteration count %d", o.Iterations)
	case o.Kernel != nil && o.Kernel.Size() != o.Bins*o.Bins*o.Bins:
		return fmt.Errorf("kernel of size %d for %d³ bins", o.Kernel.Size(), o.Bins)
	}
	return nil
}

// interpolate returns the histograms between h0 and h1 at times under o's
// kernel and model: the reference's colour interpolation (L iterations,
// endpoints through the loop) or the converged one, whose endpoints are
// K·(h/K·1) as the tolerance-mode objective reconstructs them.
func (o *SunsetOptions) interpolate(h0, h1, times []float64) ([][]float64, error) {
	if o.Kernel == nil {
		return ot.Linear(h0, h1, times), nil
	}
	set := &ot.Settings{Iterations: o.Iterations, IterateEndpoints: true}
	if o.Tol > 0 {
		set = &ot.Settings{Tol: o.Tol, Anderson: o.Anderson}
	}
	recs, err := ot.Interpolate(o.Kernel, []ot.Sequence{{Source: h0, Target: h1, Times: times}}, set)
	if err != nil {
		return nil, err
	}
	return recs[0], nil
}

// Frame transfers the interpolated histogram Hists[f] onto the day image
// (Transfer.ApplyMap) and returns the new image with the per-bin colour map,
// whose Cube is the frame's LUT.
func (s *Sunset) Frame(f int) (*Image, *Map, error) {
	if f < 0 || f >= len(s.Hists) {
		return nil, nil, fmt.Errorf("color: sunset: frame %d of %d", f, len(s.Hists))
	}
	return s.tr.ApplyMap(s.im, s.Day, s.Hists[f], &s.topt)
}

// LearnedOptions configures NewLearnedKernel. A nil *LearnedOptions or
// zero fields mean the documented defaults.
type LearnedOptions struct {
	// Levels is the number k of prolongations of the metric
	// (kernel.ProlongVertexMetric) before the kernel is built on
	// n_hi = 2^k(n−1)+1 bins per channel; zero keeps the metric's grid.
	Levels int
	// Heat configures the heat kernel as for kernel.NewHeat (zero T and
	// Steps mean its defaults). Its zero Alpha means (n_hi−1)² after a
	// prolongation, the reference's rescaling, and kernel.GridAlpha(n),
	// the value the metric was learned with, without one.
	Heat kernel.HeatOptions
}

// NewLearnedKernel returns the heat kernel on the colour cube of a learned
// per-vertex metric theta of shape [3, n³] (row p weighs the edges along
// axis p), prolonged to n_hi bins per channel as opt says. The caller
// closes it. A metric too large for the heat matrix gives an error that
// matches factor.ErrNotPosDef.
func NewLearnedKernel(theta []float64, n int, opt *LearnedOptions) (*kernel.Heat, error) {
	o := *cmp.Or(opt, &LearnedOptions{})
	th, nHi, err := prolong(theta, n, o.Levels)
	if err != nil {
		return nil, fmt.Errorf("color: learned kernel: %w", err)
	}
	if o.Heat.Alpha == 0 && o.Levels > 0 {
		o.Heat.Alpha = float64((nHi - 1) * (nHi - 1))
	}
	g, err := kernel.Cube(3, nHi)
	if err != nil {
		return nil, fmt.Errorf("color: learned kernel: %w", err)
	}
	heat, err := kernel.NewHeat(g, &o.Heat)
	if err != nil {
		return nil, fmt.Errorf("color: learned kernel: %w", err)
	}
	w := make([]float64, g.NumEdges())
	kernel.VertexMetric{G: g}.Weights(w, th)
	if err := heat.SetWeights(w); err != nil {
		heat.Close()
		return nil, fmt.Errorf("color: learned kernel: %w", err)
	}
	return heat, nil
}
