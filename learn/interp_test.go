package learn

import (
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// TestNewKernelIsObjectiveForwardModel checks that ot.Interpolate under
// NewKernel gives the frames an Objective of the same Config reconstructs
// (bitwise, in exact mode), and that a nil metric means unit edge weights.
func TestNewKernelIsObjectiveForwardModel(t *testing.T) {
	t.Parallel()
	const n, frames = 6, 4
	g, err := kernel.Cube(2, n)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := make([]float64, g.N()), make([]float64, g.N())
	for i := range src {
		src[i] = 1 + float64(i%n)
		dst[i] = 1 + float64(i/n)
	}
	normalize(src)
	normalize(dst)
	cfg := &Config{Heat: kernel.HeatOptions{T: 1e-2, Steps: 3}, Sinkhorn: ot.Settings{Iterations: 20}}
	theta := make([]float64, 2*g.N())
	for i := range theta {
		theta[i] = 1
	}
	interpolate := func(theta []float64) [][]float64 {
		h, err := NewKernel(g, theta, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		recs, err := ot.Interpolate(h, []ot.Sequence{{Source: src, Target: dst, Frames: frames}}, &cfg.Sinkhorn)
		if err != nil {
			t.Fatal(err)
		}
		return recs[0]
	}
	got, uniform := interpolate(theta), interpolate(nil)
	obj, err := NewObjective(g, []Sequence{{Frames: [][]float64{src, src, src, dst}}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if _, err := obj.Eval(nil, make([]float64, 2*g.N())); err != nil {
		t.Fatal(err)
	}
	recs := obj.Reconstructions()[0]
	for j := range frames {
		for i := range got[j] {
			if got[j][i] != recs[j][i] || uniform[j][i] != got[j][i] {
				t.Fatalf("frame %d value %d: Interpolate %v, uniform %v, objective %v", j, i, got[j][i], uniform[j][i], recs[j][i])
			}
		}
	}
}

func normalize(h []float64) {
	s := 0.0
	for _, v := range h {
		s += v
	}
	for i := range h {
		h[i] /= s
	}
}
