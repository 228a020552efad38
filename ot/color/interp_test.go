package color

import (
	"errors"
	"math"
	"testing"

	"github.com/gmlg/gmlg/ot"
)

// interpPoles returns closed-form test histograms on n³ bins, like those of
// docs/method.md, "Reference values": p ∝ 1.2+sin(0.7i) and
// q ∝ 1.2+cos(0.4i).
func interpPoles(n int) (p, q []float64) {
	N := n * n * n
	p, q = make([]float64, N), make([]float64, N)
	sp, sq := 0.0, 0.0
	for i := range N {
		p[i] = 1.2 + math.Sin(0.7*float64(i))
		q[i] = 1.2 + math.Cos(0.4*float64(i))
		sp += p[i]
		sq += q[i]
	}
	for i := range N {
		p[i] /= sp
		q[i] /= sq
	}
	return p, q
}

// TestInterpolateMatchesBarycenter: interior frames are exactly the Sinkhorn
// barycenters of package ot; endpoints run the full loop (docs/method.md,
// "Histogram interpolation"), which for weights (1,0) keeps b = 1 and so
// equals the endpoint rule K(P/K·1) up to the round-off of exp(log x).
func TestInterpolateMatchesBarycenter(t *testing.T) {
	const n = 5
	k, err := NewEuclidean(n, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	p, q := interpPoles(n)
	times := ot.Linspace(5)
	for _, L := range []int{1, 7, 30} {
		got, err := Interpolate(k, p, q, times, &InterpOptions{Iterations: L})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(times) {
			t.Fatalf("L=%d: %d frames, want %d", L, len(got), len(times))
		}
		for f, tf := range times {
			want, err := ot.Barycenter(k, [][]float64{p, q}, &ot.BarycenterSettings{Weights: []float64{1 - tf, tf}, Iterations: L})
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-14
			if tf == 0 || tf == 1 {
				tol = 1e-12 // different code paths, same value up to round-off
			}
			worst := 0.0
			for i := range want.Bary {
				worst = math.Max(worst, relErr(got[f][i], want.Bary[i]))
			}
			if worst > tol {
				t.Errorf("L=%d frame %d (t=%g): max relative difference %.3g from ot.Barycenter", L, f, tf, worst)
			}
		}
	}
}

func TestLinear(t *testing.T) {
	p, q := interpPoles(3)
	for _, tc := range []struct {
		t    float64
		i    int
		want float64
	}{
		{0, 4, p[4]},
		{1, 4, q[4]},
		{0.25, 7, 0.75*p[7] + 0.25*q[7]},
	} {
		got := Linear(p, q, []float64{tc.t})[0][tc.i]
		if got != tc.want {
			t.Errorf("t=%g: h[%d] = %v, want %v", tc.t, tc.i, got, tc.want)
		}
	}
}

// zeroKernel maps everything to 0, which makes every barycenter vanish.
type zeroKernel struct{ n int }

func (z zeroKernel) Size() int { return z.n }
func (z zeroKernel) Apply(dst, src []float64, cols int) error {
	clear(dst)
	return nil
}

func TestInterpolateErrors(t *testing.T) {
	p, q := interpPoles(3)
	k, err := NewEuclidean(3, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]float64(nil), p...)
	bad[3] = math.NaN()
	for _, tc := range []struct {
		name     string
		k        ot.Kernel
		p        []float64
		times    []float64
		L        int
		nonFinit bool
	}{
		{"time outside [0,1]", k, p, []float64{0, 1.5}, 3, false},
		{"NaN histogram", k, bad, []float64{0, 1}, 3, false},
		{"negative iterations", k, p, []float64{0, 1}, -1, false},
		{"vanishing kernel", zeroKernel{27}, p, []float64{0, 0.5, 1}, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Interpolate(tc.k, tc.p, q, tc.times, &InterpOptions{Iterations: tc.L})
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, ErrNonFinite); got != tc.nonFinit {
				t.Errorf("errors.Is(err, ErrNonFinite) = %v, want %v (err: %v)", got, tc.nonFinit, err)
			}
		})
	}
}
