package color

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/ot"
)

// InterpOptions configures Interpolate. A nil pointer or zero fields mean
// the documented defaults.
type InterpOptions struct {
	// Iterations is the number L of Sinkhorn iterations; zero means
	// ot.DefaultIterations (50).
	Iterations int
}

// Times returns f frame times spread evenly over [0,1] as numpy.linspace
// does (f ≥ 2), the reference's t = linspace(0, 1, num_interp).
func Times(f int) []float64 {
	if f < 2 {
		panic(fmt.Sprintf("color: Times needs at least 2 frames, got %d", f))
	}
	return ot.Linspace(f)
}

// Interpolate returns the displacement interpolation between the colour
// histograms h0 and h1 under kernel k at the given times, one histogram per
// time, exactly as the reference's colour interpolation does (docs/method.md,
// "Histogram interpolation"): frame f is the Sinkhorn barycenter of (h0, h1)
// with weights (1−times[f], times[f]), and, unlike ot.Barycenter and
// ot.Interpolator, every frame runs the full L-iteration loop, the endpoints
// included (the reference passes the weights as a Python list, so its
// endpoint special case never fires; an endpoint comes out as K(h/K·b) after
// L iterations, close to K(h/K·1)). A term whose weight is exactly 0 is left
// out of the weighted geometric mean instead of contributing 0·log(K·a).
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
	if o.Iterations == 0 {
		o.Iterations = ot.DefaultIterations
	}
	if o.Iterations < 0 {
		return nil, fmt.Errorf("color: interpolate: negative iteration count %d", o.Iterations)
	}
	n := k.Size()
	if len(h0) != n || len(h1) != n {
		panic(fmt.Sprintf("color: Interpolate: histograms of length %d and %d for a kernel of size %d", len(h0), len(h1), n))
	}
	for i, h := range [][]float64{h0, h1} {
		for _, v := range h {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("color: interpolate: histogram %d has a negative or non-finite entry", i)
			}
		}
	}
	for f, t := range times {
		if !(t >= 0 && t <= 1) {
			return nil, fmt.Errorf("color: interpolate: time %d is %g, outside [0,1]", f, t)
		}
	}
	nf := len(times)
	if nf == 0 {
		return nil, nil
	}
	cols := 2 * nf
	b := make([]float64, n*cols)
	a := make([]float64, n*cols)
	kb := make([]float64, n*cols)
	ka := make([]float64, n*cols)
	q := make([]float64, n*nf)
	for i := range b {
		b[i] = 1
	}
	poles := [2][]float64{h0, h1}
	for it := 1; it <= o.Iterations; it++ {
		if err := k.Apply(kb, b, cols); err != nil {
			return nil, fmt.Errorf("color: interpolate: kernel: %w", err)
		}
		for c := 0; c < cols; c++ {
			p := poles[c%2]
			ac, kc := a[c*n:(c+1)*n], kb[c*n:(c+1)*n]
			for i := range ac {
				ac[i] = p[i] / kc[i]
			}
		}
		if err := k.Apply(ka, a, cols); err != nil {
			return nil, fmt.Errorf("color: interpolate: kernel: %w", err)
		}
		for f, t := range times {
			w0, w1 := 1-t, t
			k0, k1 := ka[2*f*n:(2*f+1)*n], ka[(2*f+1)*n:(2*f+2)*n]
			qf := q[f*n : (f+1)*n]
			mass := 0.0
			for i := range qf {
				s := 0.0
				if w0 != 0 {
					s += w0 * math.Log(k0[i])
				}
				if w1 != 0 {
					s += w1 * math.Log(k1[i])
				}
				qf[i] = math.Exp(s)
				mass += qf[i]
			}
			if !(mass > 0) || math.IsInf(mass, 0) {
				return nil, fmt.Errorf("color: interpolate: %w", &ot.NonFiniteError{Op: "barycenter", Sequence: -1, Frame: f,
					Iteration: it, Hint: "the kernel underflowed: increase the diffusion time t (or γ of a Euclidean kernel) or lower the Sinkhorn iterations"})
			}
			b0, b1 := b[2*f*n:(2*f+1)*n], b[(2*f+1)*n:(2*f+2)*n]
			for i := range qf {
				b0[i] = qf[i] / k0[i]
				b1[i] = qf[i] / k1[i]
			}
		}
	}
	out := make([][]float64, nf)
	for f := range out {
		out[f] = q[f*n : (f+1)*n : (f+1)*n]
	}
	return out, nil
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
