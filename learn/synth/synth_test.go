package synth

import (
	"math"
	"testing"

	"github.com/gmlg/gmlg/kernel"
)

func TestPoleHistogram(t *testing.T) {
	const n = 50
	p, err := StickTopLeft.Histogram(2, n)
	if err != nil {
		t.Fatal(err)
	}
	var sum, inside float64
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			v := p[r*n+c]
			sum += v
			// The reference's p[5:30, 5:10] = 1 (docs/method.md, "Synthetic data").
			if r >= 5 && r < 30 && c >= 5 && c < 10 {
				inside += v
			}
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("sum %.17g, want 1", sum)
	}
	// 125 cells hold 1 each and every one of the 2500 cells gets the floor
	// 1e-6·max/N = 1e-6/2500.
	if want := (125 + 125*1e-6/2500) / (125 + 1e-6); math.Abs(inside-want) > 1e-12 {
		t.Errorf("mass inside the stick %.15g, want %.15g", inside, want)
	}
	g, err := Pole{Shape: "gauss", X0: 0.5, Y0: 0.5, Z0: 0.5, Sigma: 0.1}.Histogram(3, 9)
	if err != nil {
		t.Fatal(err)
	}
	max := 0
	for i, v := range g {
		if v > g[max] {
			max = i
		}
	}
	if max != 4*81+4*9+4 {
		t.Errorf("3-D gaussian peaks at %d, want the centre", max)
	}
	if _, err := (Pole{Shape: "rect"}).Histogram(3, 5); err == nil {
		t.Error("3-D rectangle accepted")
	}
	if _, err := (Pole{Shape: "gauss"}).Histogram(2, 5); err == nil {
		t.Error("gaussian without sigma accepted")
	}
}

func TestAnalyticMetric(t *testing.T) {
	const n = 50
	w := AnalyticMetric(n)
	for p := 0; p < 2; p++ {
		row := w[p*n*n : (p+1)*n*n]
		var mean, mn, mx float64 = 0, math.Inf(1), math.Inf(-1)
		for _, v := range row {
			mean += v
			mn, mx = math.Min(mn, v), math.Max(mx, v)
		}
		mean /= float64(len(row))
		if math.Abs(mean-1) > 1e-12 {
			t.Errorf("row %d: mean %.17g, want 1", p, mean)
		}
		// s ∈ [1e-3, 1] before dividing by its mean.
		if r := mn / mx; math.Abs(r-1e-3) > 1e-12 {
			t.Errorf("row %d: min/max = %.17g, want 1e-3", p, r)
		}
	}
	// Row 0 (θ=+π/4) is low along the diagonal x=y, row 1 along x=−y.
	if w[25*n+25] > w[10*n+40] || w[n*n+25*n+25] > w[n*n+10*n+10] {
		t.Error("metric orientation is wrong")
	}
}

func TestGenerateEndpoints(t *testing.T) {
	g, _ := kernel.Cube(2, 10)
	p, _ := Pole{Shape: "gauss", X0: 0.2, Y0: 0.2, Sigma: 0.1}.Histogram(2, 10)
	q, _ := Pole{Shape: "gauss", X0: 0.8, Y0: 0.8, Sigma: 0.1}.Histogram(2, 10)
	theta := make([]float64, 2*g.N())
	for i := range theta {
		theta[i] = 1
	}
	for _, raw := range []bool{false, true} {
		out, err := Generate(&Config{Graph: g, Metric: kernel.VertexMetric{G: g}, Theta: theta,
			Heat: kernel.HeatOptions{T: 5e-3, Steps: 5}, Iterations: 20, Frames: 4, Poles: [][2][]float64{{p, q}}, RawEndpoints: raw})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || len(out[0]) != 4 {
			t.Fatalf("shape %d×%d, want 1×4", len(out), len(out[0]))
		}
		same := out[0][0][0] == p[0] && out[0][3][55] == q[55]
		if same != raw {
			t.Errorf("RawEndpoints=%v: endpoints equal the poles: %v", raw, same)
		}
		var s float64
		for _, v := range out[0][1] {
			s += v
		}
		if math.Abs(s-1) > 1e-3 {
			t.Errorf("interior frame mass %.6f, want ≈ 1", s)
		}
	}
}

// TestSpan checks the index ranges of rectangle sides: the numpy slice where
// it holds cells, one cell where a thin side rounds to none, nothing off the
// square.
func TestSpan(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		i0, i1 int
	}{
		{0.1, 0.6, 50, 5, 30},  // the reference's p[5:30]
		{0.1, 0.2, 50, 5, 10},  // and p[:, 5:10]
		{0.1, 0.2, 4, 0, 1},    // round(0.4) = 0, round(0.8) = 1
		{0.1, 0.2, 5, 1, 2},    // round(0.5) = round(1.0) = 1: widened
		{0.8, 0.9, 6, 5, 6},    // round(4.8) = round(5.4) = 5: widened
		{0.1, 0.2, 8, 1, 2},    // round(0.8) = 1, round(1.6) = 2
		{-0.5, 0.3, 10, 0, 3},  // clipped at the start
		{0.7, 1.4, 10, 7, 10},  // clipped at the end
		{1.2, 1.3, 10, 10, 10}, // off the square: empty
		{0.5, 0.5, 10, 5, 5},   // empty interval: empty
	} {
		if i0, i1 := span(tc.lo, tc.hi, tc.n); i0 != tc.i0 || i1 != tc.i1 {
			t.Errorf("span(%g, %g, %d) = [%d, %d), want [%d, %d)", tc.lo, tc.hi, tc.n, i0, i1, tc.i0, tc.i1)
		}
	}
}

// TestSticksOnSmallGrids checks that the reference's sticks are non-empty on
// every grid gmlg synth accepts (side ≥ 4), the thin sides taking one cell.
func TestSticksOnSmallGrids(t *testing.T) {
	for n := 4; n <= 16; n++ {
		for _, p := range []Pole{StickTopLeft, StickBottomRight} {
			h, err := p.Histogram(2, n)
			if err != nil {
				t.Errorf("n = %d: %v", n, err)
				continue
			}
			var mx, inside float64
			for _, v := range h {
				mx = math.Max(mx, v)
			}
			cells := 0
			for _, v := range h {
				if v > mx/2 {
					cells++
					inside += v
				}
			}
			if cells == 0 || cells > n*n/2 || inside < 0.99 {
				t.Errorf("n = %d: %+v has %d cells holding mass %g, want a stick holding nearly all", n, p, cells, inside)
			}
		}
	}
}
