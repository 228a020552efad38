package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// These tests compare Heat.Apply with ground truth that does not go through
// any factorisation: the matrix exponential exp(−t·α·L_w) of the continuous
// heat equation, and the closed-form eigenvectors of the 1-D Laplacian.

// scaledLaplacian returns α·L_w as a dense matrix, assembled from the edge
// list: L_w = diag(W·1) − W.
func scaledLaplacian(g *Graph, w []float64, alpha float64) *mat.Dense {
	l := mat.NewDense(g.N(), g.N(), nil)
	for e := 0; e < g.NumEdges(); e++ {
		i, j := g.Edge(e)
		a := alpha * w[e]
		l.Set(i, i, l.At(i, i)+a)
		l.Set(j, j, l.At(j, j)+a)
		l.Set(i, j, l.At(i, j)-a)
		l.Set(j, i, l.At(j, i)-a)
	}
	return l
}

// laplacianBound returns twice the largest weighted degree, a Gershgorin
// bound on the largest eigenvalue of L_w.
func laplacianBound(g *Graph, w []float64) float64 {
	deg := make([]float64, g.N())
	for e := 0; e < g.NumEdges(); e++ {
		i, j := g.Edge(e)
		deg[i] += w[e]
		deg[j] += w[e]
	}
	var m float64
	for _, d := range deg {
		m = max(m, d)
	}
	return 2 * m
}

// expmApply returns exp(−t·α·L_w)·x for a column-major block x of cols
// columns, with gonum's dense matrix exponential.
func expmApply(g *Graph, w []float64, alpha, t float64, x []float64, cols int) []float64 {
	n := g.N()
	a := scaledLaplacian(g, w, alpha)
	a.Scale(-t, a)
	var e mat.Dense
	e.Exp(a)
	out := make([]float64, n*cols)
	for k := 0; k < cols; k++ {
		var y mat.VecDense
		y.MulVec(&e, mat.NewVecDense(n, x[k*n:(k+1)*n]))
		copy(out[k*n:], y.RawVector().Data)
	}
	return out
}

// applyBlock runs Apply of a fresh Heat on x and returns the result.
func applyBlock(t *testing.T, g *Graph, opt HeatOptions, w, x []float64, cols int) []float64 {
	t.Helper()
	h := newHeat(t, g, opt, w)
	got := make([]float64, len(x))
	if err := h.Apply(got, x, cols); err != nil {
		t.Fatal(err)
	}
	return got
}

// splittingBound bounds ‖K_S − exp(−t·α·L_w)‖₂ for a spectrum of t·α·L_w
// inside [0, muMax]. Both operators are functions of the same symmetric
// matrix, so the norm is the largest gap between their scalar functions
// at an eigenvalue μ:
//
// Backward Euler: (1+μ/S)^−S = e^−μ·e^δ with 0 ≤ δ = μ − S·log(1+μ/S) ≤
// μ²/(2S) (log(1+x) ≥ x − x²/2), so the gap e^−μ·(e^δ − 1) ≤ e^−μ·δ·e^δ is
// at most (μ²e^−μ/2)/S·e^(muMax²/(2S)), and μ²e^−μ/2 peaks at 2/e² (μ = 2).
//
// Crank–Nicolson: with x = μ/S, ((1−x/2)/(1+x/2))^S = e^−μ·e^−η where
// η = S·(2·artanh(x/2) − x) ≤ μ³/(12S²)/(1 − x²/4) (the artanh series
// bounded by a geometric one), so the gap e^−μ·(1 − e^−η) ≤ e^−μ·η is at
// most (μ³e^−μ/12)/S²/(1 − x²/4), and μ³e^−μ peaks at 27/e³ (μ = 3).
func splittingBound(scheme Scheme, muMax float64, steps int) float64 {
	s := float64(steps)
	if scheme == CrankNicolson {
		x := muMax / s
		return 27 / math.Exp(3) / 12 / (s * s) / (1 - x*x/4)
	}
	return 2 / math.Exp(2) / s * math.Exp(muMax*muMax/(2*s))
}

// TestHeatAgainstExpm compares Apply with the matrix exponential for
// S = 20, 40, 80: the error must stay below splittingBound and shrink by
// the scheme's order (×2 per doubling of S for backward Euler, ×4 for
// Crank–Nicolson), which fails if the kernel discretises another operator
// (a wrong α, t, weight or Laplacian sign gives an error that does not
// vanish with S).
func TestHeatAgainstExpm(t *testing.T) {
	grid54, _ := Grid(5, 4)
	grid44, _ := Cube(2, 4)
	irregular, err := FromEdges(7, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 4}, {4, 5}, {5, 6}, {6, 4}, {1, 5}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		g     *Graph
		alpha float64 // HeatOptions.Alpha; 0 leaves the default to NewHeat
		want  float64 // the α the exponential is built with
		t     float64
	}{
		// Unequal extents: the default α is 1.
		{"grid5x4", grid54, 0, 1, 0.25},
		// Equal extents n = 4: the default α is 1/h² = (n−1)² = 9.
		{"grid4x4", grid44, 0, 9, 0.03},
		// General graphs: the default α is 1.
		{"irregular", irregular, 0, 1, 0.25},
		{"irregular-alpha", irregular, 2.5, 2.5, 0.12},
	}
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		for _, c := range cases {
			rng := rand.New(rand.NewPCG(11, 12))
			w := randWeights(rng, c.g.NumEdges(), 0.5, 2)
			muMax := c.t * c.want * laplacianBound(c.g, w)
			if muMax > 6 {
				t.Fatalf("%s: t·α·λmax ≤ %.3g, want ≤ 6 (the bound grows as e^(μ²/2S))", c.name, muMax)
			}
			n, cols := c.g.N(), 3
			x := make([]float64, n*cols)
			x[0] = 1                         // a Dirac mass at a corner
			x[n+n/2] = 1                     // one in the middle
			copy(x[2*n:], randBlock(rng, n)) // a random histogram
			exact := expmApply(c.g, w, c.want, c.t, x, cols)
			for _, sc := range []struct {
				scheme Scheme
				lo, hi float64 // range of err(S)/err(2S)
			}{{BackwardEuler, 1.8, 2.2}, {CrankNicolson, 3.6, 4.4}} {
				var errs []float64
				for _, s := range []int{20, 40, 80} {
					opt := HeatOptions{T: c.t, Steps: s, Alpha: c.alpha, Scheme: sc.scheme, Backend: b}
					e := floats.Distance(applyBlock(t, c.g, opt, w, x, cols), exact, 2) / floats.Norm(x, 2)
					if bound := splittingBound(sc.scheme, muMax, s); !(e <= bound) {
						t.Errorf("%s %v S=%d: ‖K_S·x − exp·x‖/‖x‖ = %.3g > bound %.3g", c.name, sc.scheme, s, e, bound)
					}
					errs = append(errs, e)
				}
				t.Logf("%s %v: errors %.3g (S = 20, 40, 80)", c.name, sc.scheme, errs)
				for i := 0; i+1 < len(errs); i++ {
					if r := errs[i] / errs[i+1]; !(r >= sc.lo && r <= sc.hi) {
						t.Errorf("%s %v: error ratio %.4g (%.3g/%.3g) outside [%g, %g]", c.name, sc.scheme, r, errs[i], errs[i+1], sc.lo, sc.hi)
					}
				}
			}
		}
	})
}

// mode1D is a Laplacian eigenvector of a ring or a path with free ends.
type mode1D struct {
	k   int
	sin bool // ring only: sin(2πkj/n) instead of cos
}

// vector returns the mode's values on n vertices and its eigenvalue for unit
// weights: ring cos/sin(2πkj/n) with 2 − 2cos(2πk/n), path
// cos(πk(j+½)/n) with 2 − 2cos(πk/n).
func (m mode1D) vector(n int, ring bool) ([]float64, float64) {
	v := make([]float64, n)
	theta := math.Pi * float64(m.k) / float64(n)
	if ring {
		theta *= 2
	}
	for j := range v {
		switch {
		case !ring:
			v[j] = math.Cos(theta * (float64(j) + 0.5))
		case m.sin:
			v[j] = math.Sin(theta * float64(j))
		default:
			v[j] = math.Cos(theta * float64(j))
		}
	}
	return v, 2 - 2*math.Cos(theta)
}

// ringEdges returns the edges {j, j+1 mod n}; path drops the closing one.
func ringEdges(n int, path bool) [][2]int {
	var edges [][2]int
	for j := 0; j < n; j++ {
		if path && j == n-1 {
			break
		}
		edges = append(edges, [2]int{j, (j + 1) % n})
	}
	return edges
}

// stepFactor is the factor by which the S sub-steps scale an eigenvector
// of c·L with eigenvalue lam, where c is the coefficient of L in M:
// (1 + c·λ)^−S for backward Euler, ((1 − c·λ)/(1 + c·λ))^S for
// Crank–Nicolson.
func stepFactor(scheme Scheme, c, lam float64, steps int) float64 {
	if scheme == CrankNicolson {
		return math.Pow((1-c*lam)/(1+c*lam), float64(steps))
	}
	return math.Pow(1+c*lam, -float64(steps))
}

// TestHeatClosedForm1D checks Apply on Laplacian eigenvectors of rings and
// paths with a uniform weight w ≠ 1, where each sub-step scales the
// eigenvector exactly, and on a combination of them.
func TestHeatClosedForm1D(t *testing.T) {
	path10, _ := Grid(10)
	cases := []struct {
		name        string
		n           int
		ring        bool
		g           *Graph // nil: FromEdges of the ring or path
		w, alpha, t float64
		wantAlpha   float64
		modes       []mode1D
	}{
		{"ring12", 12, true, nil, 0.7, 0, 1.5, 1, []mode1D{{0, false}, {1, false}, {3, false}, {2, true}, {5, true}, {6, false}}},
		{"ring9-alpha", 9, true, nil, 1.3, 0.4, 2, 0.4, []mode1D{{0, false}, {1, true}, {2, false}, {4, false}, {4, true}}},
		{"path10", 10, false, nil, 0.7, 0, 1.5, 1, []mode1D{{0, false}, {1, false}, {2, false}, {5, false}, {9, false}}},
		// A 1-D grid is the path; its default α is (n−1)² = 81.
		{"grid10", 10, false, path10, 0.7, 0, 1.5 / 81, 81, []mode1D{{1, false}, {4, false}, {9, false}}},
	}
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		for _, c := range cases {
			g := c.g
			if g == nil {
				var err error
				if g, err = FromEdges(c.n, ringEdges(c.n, !c.ring)); err != nil {
					t.Fatal(err)
				}
			}
			w := make([]float64, g.NumEdges())
			for e := range w {
				w[e] = c.w
			}
			for _, scheme := range []Scheme{BackwardEuler, CrankNicolson} {
				const steps = 20
				coef := c.t * c.wantAlpha * c.w / steps
				if scheme == CrankNicolson {
					coef /= 2
				}
				cols := len(c.modes) + 1
				x := make([]float64, c.n*cols)
				want := make([]float64, c.n*cols)
				mix, mixWant := x[len(c.modes)*c.n:], want[len(c.modes)*c.n:]
				for k, m := range c.modes {
					v, lam := m.vector(c.n, c.ring)
					f := stepFactor(scheme, coef, lam, steps)
					a := 1 / float64(k+1) // the combination's coefficient
					for j, vj := range v {
						x[k*c.n+j] = vj
						want[k*c.n+j] = f * vj
						mix[j] += a * vj
						mixWant[j] += a * f * vj
					}
				}
				opt := HeatOptions{T: c.t, Steps: steps, Alpha: c.alpha, Scheme: scheme, Backend: b}
				got := applyBlock(t, g, opt, w, x, cols)
				for k := 0; k < cols; k++ {
					col := k * c.n
					if e := relErr(got[col:col+c.n], want[col:col+c.n]); !(e <= 1e-12) {
						t.Errorf("%s %v column %d: relative error %.3g > 1e-12", c.name, scheme, k, e)
					}
				}
			}
		}
	})
}
