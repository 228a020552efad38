package synth

import (
	"cmp"
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// Floor is the relative floor added to every pole before normalisation,
// p + max(p)·Floor/N (the reference's vmin = 1e-6; docs/method.md,
// "Synthetic data").
const Floor = 1e-6

// Pole names a pole shape. Coordinates are on the unit square, x along the
// columns (axis 0) and y along the rows (axis 1).
type Pole struct {
	// Shape is "rect" (2-D only: a filled axis-aligned rectangle
	// [X0,X1)×[Y0,Y1) in unit coordinates, rounded to grid indices like a
	// numpy slice) or "gauss" (exp(−|p−c|²/(2σ²)) centred at (X0,Y0) in 2-D
	// and (X0,Y0,Z0) in 3-D, σ = Sigma).
	Shape              string
	X0, X1, Y0, Y1, Z0 float64
	Sigma              float64
}

// StickTopLeft and StickBottomRight are the reference's stick_tl_br poles
// (p[5:30,5:10] and q[20:45,40:45] on a 50×50 grid; docs/method.md,
// "Synthetic data") in unit coordinates, so that they scale with n.
var (
	StickTopLeft     = Pole{Shape: "rect", X0: 5.0 / 50, X1: 10.0 / 50, Y0: 5.0 / 50, Y1: 30.0 / 50}
	StickBottomRight = Pole{Shape: "rect", X0: 40.0 / 50, X1: 45.0 / 50, Y0: 20.0 / 50, Y1: 45.0 / 50}
)

// Histogram rasterises the pole on the d-dimensional grid of side n (C
// order: x along axis 0, y along axis 1, z along axis 2), adds the floor
// max·Floor/N and normalises it to sum 1.
func (p Pole) Histogram(d, n int) ([]float64, error) {
	if n < 2 {
		return nil, fmt.Errorf("synth: grid side %d < 2", n)
	}
	N := 1
	for k := 0; k < d; k++ {
		N *= n
	}
	h := make([]float64, N)
	coord := func(k int) float64 { return float64(k) / float64(n-1) }
	switch {
	case p.Shape == "rect" && d == 2:
		r0, r1 := span(p.Y0, p.Y1, n)
		c0, c1 := span(p.X0, p.X1, n)
		for r := r0; r < r1; r++ {
			for c := c0; c < c1; c++ {
				h[r*n+c] = 1
			}
		}
	case p.Shape == "gauss" && (d == 2 || d == 3):
		if !(p.Sigma > 0) {
			return nil, fmt.Errorf("synth: gaussian pole needs Sigma > 0")
		}
		for i := range h {
			x := coord(i % n)
			y := coord((i / n) % n)
			r2 := (x-p.X0)*(x-p.X0) + (y-p.Y0)*(y-p.Y0)
			if d == 3 {
				z := coord(i / (n * n))
				r2 += (z - p.Z0) * (z - p.Z0)
			}
			h[i] = math.Exp(-r2 / (2 * p.Sigma * p.Sigma))
		}
	default:
		return nil, fmt.Errorf("synth: unsupported pole shape %q in %d-D", p.Shape, d)
	}
	if floorNormalize(h) == 0 {
		return nil, fmt.Errorf("synth: pole %+v is empty on a grid of side %d", p, n)
	}
	return h, nil
}

// floorNormalize adds the floor max(h)·Floor/N to every entry of h,
// normalises h to sum 1 and returns max(h) before the floor.
func floorNormalize(h []float64) float64 {
	var mx, s float64
	for _, v := range h {
		mx = math.Max(mx, v)
	}
	for i := range h {
		h[i] += mx * Floor / float64(len(h))
		s += h[i]
	}
	for i := range h {
		h[i] /= s
	}
	return mx
}

func idx(u float64, n int) int { return int(math.Round(u * float64(n))) }

// span returns the index range [i0,i1) of the unit interval [lo,hi) on a
// side of n cells, like the numpy slice [round(lo·n):round(hi·n)] clipped to
// the grid. A non-empty interval that rounds to no cell (a thin stick on a
// small grid) but meets the unit square keeps the one cell its start rounds
// to, so that such a rectangle pole exists on every grid; where the slice is
// not empty the range is the slice's.
func span(lo, hi float64, n int) (int, int) {
	i0, i1 := min(max(idx(lo, n), 0), n), min(idx(hi, n), n)
	if i1 <= i0 && lo < hi && lo < 1 && hi > 0 {
		i0 = min(i0, n-1)
		i1 = i0 + 1
	}
	return i0, i1
}

// AnalyticMetric returns the reference's analytic 2-D vertex metric
// (gen_metric='analytic'; docs/method.md, "Synthetic data") on an n×n grid as
// a [2,N] array: row 0 (horizontal) from the bivariate normal pdf with
// covariance R(π/4)·diag(0.6,6)·R(π/4)ᵀ evaluated on linspace(−3,3,n)², row 1
// with −π/4; each rescaled by s = 1 − (f−min)/max(f−min)·(1−1/1000) and
// divided by its mean, so the weights lie in about [1e-3, 1]/mean: low
// diffusion where the pdf is high.
func AnalyticMetric(n int) []float64 {
	N := n * n
	w := make([]float64, 2*N)
	for p, theta := range []float64{math.Pi / 4, -math.Pi / 4} {
		row := w[p*N : (p+1)*N]
		c, s := math.Cos(theta), math.Sin(theta)
		// Σ = R diag(a,b) Rᵀ; Σ⁻¹ = R diag(1/a,1/b) Rᵀ.
		a, b := 0.6, 6.0
		i00 := c*c/a + s*s/b
		i01 := c*s/a - c*s/b
		i11 := s*s/a + c*c/b
		norm := 1 / (2 * math.Pi * math.Sqrt(a*b))
		for r := 0; r < n; r++ {
			y := -3 + 6*float64(r)/float64(n-1)
			for col := 0; col < n; col++ {
				x := -3 + 6*float64(col)/float64(n-1)
				q := i00*x*x + 2*i01*x*y + i11*y*y
				row[r*n+col] = norm * math.Exp(-q/2)
			}
		}
		rescale(row)
	}
	return w
}

func rescale(f []float64) {
	mn, mx := math.Inf(1), math.Inf(-1)
	for _, v := range f {
		mn, mx = math.Min(mn, v), math.Max(mx, v)
	}
	var mean float64
	for i, v := range f {
		s := 1.0
		if mx > mn {
			s = 1 - (v-mn)/(mx-mn)*(1-1.0/1000)
		}
		f[i] = s
		mean += s
	}
	mean /= float64(len(f))
	for i := range f {
		f[i] /= mean
	}
}

// Config describes a synthetic sequence generated by the forward model.
type Config struct {
	Graph  *kernel.Graph
	Metric kernel.Metric
	// Theta are the metric parameters (e.g. AnalyticMetric for a 2-D
	// vertex metric).
	Theta []float64
	// Heat are the kernel options (t, steps…).
	Heat kernel.HeatOptions
	// Iterations of Sinkhorn; 0 means 50.
	Iterations int
	// Frames per sequence; 0 means 11.
	Frames int
	// Poles lists the two poles of each sequence, as histograms.
	Poles [][2][]float64
	// RawEndpoints makes the first and last frames the poles themselves
	// instead of the reference's blurred poles K(P/K·1). A learner whose
	// poles are the observed first and last frames then reproduces the
	// interior frames exactly at the true metric.
	RawEndpoints bool
}

// Generate returns, for each pair of poles, the frames of the displacement
// interpolation under the given metric: Sinkhorn barycenters at
// t = linspace(0,1,Frames), the endpoint frames being the blurred poles
// K(P/K·1), exactly like the reference's dg_kinterp2 (docs/method.md,
// "Synthetic data").
func Generate(c *Config) ([][][]float64, error) {
	c.Frames = cmp.Or(c.Frames, 11)
	if c.Frames < 2 {
		return nil, fmt.Errorf("synth: %d frames, need at least 2", c.Frames)
	}
	if len(c.Poles) == 0 {
		return nil, fmt.Errorf("synth: no poles")
	}
	h, err := kernel.NewHeat(c.Graph, &c.Heat)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	defer h.Close()
	w := make([]float64, c.Graph.NumEdges())
	c.Metric.Weights(w, c.Theta)
	if err := h.SetWeights(w); err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	seqs := make([]ot.Sequence, len(c.Poles))
	for s, pq := range c.Poles {
		seqs[s] = ot.Sequence{Source: pq[0], Target: pq[1], Frames: c.Frames}
	}
	recs, err := ot.Interpolate(h, seqs, &ot.Settings{Iterations: c.Iterations})
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	if c.RawEndpoints {
		for s, pq := range c.Poles {
			recs[s][0] = append([]float64(nil), pq[0]...)
			recs[s][c.Frames-1] = append([]float64(nil), pq[1]...)
		}
	}
	return recs, nil
}
