package learn

import (
	"math"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// TestInterpolateIsObjectiveForwardModel checks that Interpolate gives the
// frames an Objective of the same Config reconstructs (bitwise, in exact
// mode), that a nil metric means unit edge weights, and the linear
// interpolation's end points.
func TestInterpolateIsObjectiveForwardModel(t *testing.T) {
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
	got, err := Interpolate(g, theta, src, dst, frames, cfg)
	if err != nil {
		t.Fatal(err)
	}
	uniform, err := Interpolate(g, nil, src, dst, frames, cfg)
	if err != nil {
		t.Fatal(err)
	}
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
	// The middle frame is 0.5·src + 0.5·dst = (src+dst)/2 up to round-off:
	// 1e-17 is two to three ulps of these values (0.008 to 0.05).
	lin := InterpolateLinear(src, dst, 3)
	for i := range src {
		if lin[0][i] != src[i] || lin[2][i] != dst[i] || math.Abs(lin[1][i]-(src[i]+dst[i])/2) > 1e-17 {
			t.Fatalf("linear interpolation at %d: %v, %v, %v", i, lin[0][i], lin[1][i], lin[2][i])
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
