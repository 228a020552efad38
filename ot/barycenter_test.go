package ot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gaussian1D returns a normalised Gaussian bump of width sigma centred at
// mu on the nodes {0, 1/(n−1), …, 1}.
func gaussian1D(n int, mu, sigma float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		x := float64(i) / float64(n-1)
		v[i] = math.Exp(-(x - mu) * (x - mu) / (2 * sigma * sigma))
	}
	return normalized(v)
}

func mean1D(v []float64) float64 {
	var m, s float64
	for i, x := range v {
		m += x * float64(i) / float64(len(v)-1)
		s += x
	}
	return m / s
}

// TestBarycenterIdentical: the barycenter of R copies of a histogram is
// that histogram blurred once, K·(P/K·1), at every iteration, whatever the
// weights, and the marginals are satisfied to round-off.
func TestBarycenterIdentical(t *testing.T) {
	const n = 40
	k := newGibbsGrid(n, 1, 0.01)
	rng := rand.New(rand.NewPCG(1, 3))
	p := normalized(randVec(rng, n, 0.1, 1))
	want, err := Barycenter(k, [][]float64{p, p}, &BarycenterSettings{Weights: []float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if want.Iterations != 0 || !want.Converged {
		t.Errorf("endpoint rule: Iterations %d Converged %v, want 0, true", want.Iterations, want.Converged)
	}
	for _, w := range [][]float64{nil, {0.2, 0.3, 0.5}, {0.7, 0.1, 0.2}} {
		res, err := Barycenter(k, [][]float64{p, p, p}, &BarycenterSettings{Weights: w, Iterations: 20})
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(res.Bary, want.Bary); e > 1e-13 {
			t.Errorf("weights %v: barycenter differs from K(P/K1) by %.3g relative", w, e)
		}
		if res.Iterations != 20 || len(res.MarginalErr) != 20 {
			t.Errorf("weights %v: %d iterations, %d errors; want 20", w, res.Iterations, len(res.MarginalErr))
		}
		if e := res.MarginalErr[19]; e > 1e-13 {
			t.Errorf("weights %v: marginal error %.3g", w, e)
		}
	}
}

// TestBarycenterConverges: for two histograms the marginal error decreases
// to zero, and Tol stops the iterations early.
func TestBarycenterConverges(t *testing.T) {
	const n = 50
	k := newGibbsGrid(n, 1, 0.01)
	p0 := gaussian1D(n, 0.3, 0.08)
	p1 := gaussian1D(n, 0.6, 0.05)
	res, err := Barycenter(k, [][]float64{p0, p1}, &BarycenterSettings{Weights: []float64{0.6, 0.4}, Iterations: 300})
	if err != nil {
		t.Fatal(err)
	}
	e := res.MarginalErr
	if !(e[len(e)-1] < 1e-10) || !(e[len(e)-1] < e[0]*1e-6) {
		t.Errorf("marginal error %.3g after %d iterations (first %.3g), want < 1e-10", e[len(e)-1], len(e), e[0])
	}
	if res.Converged {
		t.Error("Converged set without Tol")
	}
	tol, err := Barycenter(k, [][]float64{p0, p1}, &BarycenterSettings{Weights: []float64{0.6, 0.4}, Iterations: 300, Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if !tol.Converged || tol.Iterations >= 300 || tol.MarginalErr[tol.Iterations-1] > 1e-6 {
		t.Errorf("Tol 1e-6: converged %v after %d iterations, error %.3g", tol.Converged, tol.Iterations, tol.MarginalErr[tol.Iterations-1])
	}
	// The early-stopped barycenter is the fixed-count one after as many
	// iterations.
	fixed, err := Barycenter(k, [][]float64{p0, p1}, &BarycenterSettings{Weights: []float64{0.6, 0.4}, Iterations: tol.Iterations})
	if err != nil {
		t.Fatal(err)
	}
	if relErr(fixed.Bary, tol.Bary) != 0 {
		t.Error("Tol changes the iterates")
	}
}

// TestBarycenterMean: with a translation-invariant Gibbs kernel, the
// barycenter of translated bumps is centred at the weighted mean of their
// centres (checked away from the boundary; the tolerance is a 1/20 of a grid
// step).
func TestBarycenterMean(t *testing.T) {
	const n = 101
	k := newGibbsGrid(n, 1, 0.004)
	centres := []float64{0.3, 0.45, 0.7}
	hists := make([][]float64, len(centres))
	for i, c := range centres {
		hists[i] = gaussian1D(n, c, 0.04)
	}
	for _, w := range [][]float64{nil, {0.5, 0.2, 0.3}, {0.1, 0.1, 0.8}} {
		res, err := Barycenter(k, hists, &BarycenterSettings{Weights: w, Iterations: 2000, Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		lam := w
		if lam == nil {
			lam = []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
		}
		var want float64
		for i, c := range centres {
			want += lam[i] * c
		}
		if got := mean1D(res.Bary); math.Abs(got-want) > 0.05/(n-1) {
			t.Errorf("weights %v: mean %.6f, want %.6f", w, got, want)
		}
		if !res.Converged {
			t.Errorf("weights %v: not converged after %d iterations (error %.3g)", w, res.Iterations, res.MarginalErr[len(res.MarginalErr)-1])
		}
	}
}

// TestBarycenterUniformDefault: nil weights are 1/R.
func TestBarycenterUniformDefault(t *testing.T) {
	const n = 20
	k := newGibbsGrid(n, 1, 0.02)
	rng := rand.New(rand.NewPCG(2, 5))
	h := [][]float64{normalized(randVec(rng, n, 0, 1)), normalized(randVec(rng, n, 0, 1)), normalized(randVec(rng, n, 0, 1))}
	a, err := Barycenter(k, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Barycenter(k, h, &BarycenterSettings{Weights: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, Iterations: DefaultIterations})
	if err != nil {
		t.Fatal(err)
	}
	if a.Iterations != DefaultIterations || relErr(a.Bary, b.Bary) != 0 {
		t.Errorf("nil settings: %d iterations, difference %.3g", a.Iterations, relErr(a.Bary, b.Bary))
	}
}

// TestBarycenter2D: on a 2-D grid, the barycenter of two bumps at t = 1/2
// lies midway between them.
func TestBarycenter2D(t *testing.T) {
	const n = 21
	k := newGibbsGrid(n, 2, 0.01)
	bump := func(cx, cy float64) []float64 {
		v := make([]float64, n*n)
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				x, y := float64(c)/(n-1), float64(r)/(n-1)
				v[r*n+c] = math.Exp(-((x-cx)*(x-cx) + (y-cy)*(y-cy)) / (2 * 0.06 * 0.06))
			}
		}
		return normalized(v)
	}
	res, err := Barycenter(k, [][]float64{bump(0.3, 0.35), bump(0.7, 0.6)}, &BarycenterSettings{Iterations: 500, Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	var mx, my, s float64
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			v := res.Bary[r*n+c]
			mx += v * float64(c) / (n - 1)
			my += v * float64(r) / (n - 1)
			s += v
		}
	}
	mx, my = mx/s, my/s
	if math.Abs(mx-0.5) > 2e-3 || math.Abs(my-0.475) > 2e-3 {
		t.Errorf("centre of mass (%.5f, %.5f), want (0.5, 0.475)", mx, my)
	}
}
