package color

import (
	"fmt"

	"github.com/gmlg/gmlg/ot"
)

// InterpOptions configures Interpolate. A nil pointer or zero fields mean
// the documented defaults.
type InterpOptions struct {
	// Iterations is the number L of Sinkhorn iterations; zero means
	// ot.DefaultIterations (50).
	Iterations int
}

// Interpolate returns the displacement interpolation between the colour
// histograms h0 and h1 under kernel k at the given times, one histogram per
// time, exactly as the reference's colour interpolation does (docs/method.md,
// "Histogram interpolation"): frame f is the Sinkhorn barycenter of (h0, h1)
// with weights (1−times[f], times[f]), computed by an ot.Interpolator with
// ot.Settings.IterateEndpoints. Unlike ot.Barycenter and the default
// Interpolator, every frame runs the full L-iteration loop, the endpoints
// included (the reference passes the weights as a Python list, so its
// endpoint special case never fires; an endpoint comes out as K(h/K·b) after
// L iterations, close to K(h/K·1)), and a term whose weight is exactly 0 is
// left out of the weighted geometric mean.
//
// All frames go through the kernel together, as one N×2F block per
// application. It returns an error wrapping ErrNonFinite, naming the frame
// and iteration, if a barycenter stops being finite and positive (the
// kernel underflowed: increase t, or γ for a Euclidean kernel).
func Interpolate(k ot.Kernel, h0, h1, times []float64, opt *InterpOptions) ([][]float64, error) {
	var o InterpOptions
	if opt != nil {
		o = *opt
	}
	if o.Iterations < 0 {
		return nil, fmt.Errorf("color: interpolate: negative iteration count %d", o.Iterations)
	}
	n := k.Size()
	if len(h0) != n || len(h1) != n {
		panic(fmt.Sprintf("color: Interpolate: histograms of length %d and %d for a kernel of size %d", len(h0), len(h1), n))
	}
	if len(times) == 0 {
		return nil, nil
	}
	ip, err := ot.NewInterpolator(k, []ot.Sequence{{Source: h0, Target: h1, Times: times}},
		&ot.Settings{Iterations: o.Iterations, ForwardOnly: true, IterateEndpoints: true})
	if err != nil {
		return nil, fmt.Errorf("color: interpolate: %w", err)
	}
	recs, err := ip.Forward()
	if err != nil {
		return nil, fmt.Errorf("color: interpolate: %w", err)
	}
	return recs[0], nil
}

// Linear returns the linear interpolation (1−t)·h0 + t·h1 at the given times
// (the reference's "linear" method; docs/method.md,
// "Histogram interpolation").
func Linear(h0, h1, times []float64) [][]float64 {
	if len(h0) != len(h1) {
		panic(fmt.Sprintf("color: Linear: histograms of length %d and %d", len(h0), len(h1)))
	}
	out := make([][]float64, len(times))
	for f, t := range times {
		h := make([]float64, len(h0))
		for i := range h {
			h[i] = (1-t)*h0[i] + t*h1[i]
		}
		out[f] = h
	}
	return out
}
