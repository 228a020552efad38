package ot

import (
	"math"
	"testing"
)

// TestReferenceNumbers reproduces the 2-D case of docs/method.md,
// "Reference values" (n=8, S=4, t_heat=1e-2, k_heat=5, L=10,
// λ_c = λ_s = 0): the reference's loss, gradient and reconstructions, with
// a dense heat kernel (I + (t/K)·α·L_E)^{−K} built from the per-vertex
// metric averaged onto edges ("Vertex metric", "Heat kernel") and the chain
// rule through the averaging and w = exp(x) written out here. The
// acceptance tolerance is 1e-9 relative.
func TestReferenceNumbers(t *testing.T) {
	const (
		n, d  = 8, 2
		N     = n * n
		S     = 4
		tHeat = 1e-2
		kHeat = 5
		L     = 10
	)
	h := 1 / float64(n-1)
	alpha := 1 / (h * h)
	if alpha != 49.00000000000001 { // the reference's 1/(1/7)**2
		t.Fatalf("alpha = %v", alpha)
	}
	// Log-metric x[p][i] = 0.3·cos(0.37·i + 1.1·p), w = exp(x).
	w := make([][]float64, d)
	for p := range w {
		w[p] = make([]float64, N)
		for i := range w[p] {
			w[p][i] = math.Exp(0.3 * math.Cos(0.37*float64(i)+1.1*float64(p)))
		}
	}
	// Edges (i, i+n^p) where the p-th coordinate of i is < n−1.
	type edge struct{ p, i, j int }
	var edges []edge
	var pairs [][2]int
	for p, stride := 0, 1; p < d; p, stride = p+1, stride*n {
		for i := 0; i < N; i++ {
			if (i/stride)%n < n-1 {
				edges = append(edges, edge{p, i, i + stride})
				pairs = append(pairs, [2]int{i, i + stride})
			}
		}
	}
	theta := make([]float64, len(edges))
	for e, ed := range edges {
		theta[e] = (w[ed.p][ed.i] + w[ed.p][ed.j]) / 2
	}
	k := newHeatGraph(N, pairs, tHeat/kHeat*alpha, kHeat, theta)

	// obs[k][i] = 1.2 + sin(0.7·i + 1.3·k), normalised per frame.
	obs := make([][]float64, S)
	for f := range obs {
		obs[f] = make([]float64, N)
		for i := range obs[f] {
			obs[f][i] = 1.2 + math.Sin(0.7*float64(i)+1.3*float64(f))
		}
		obs[f] = normalized(obs[f])
	}
	ip, err := NewInterpolator(k, []Sequence{{Source: obs[0], Target: obs[S-1], Frames: S}}, &Settings{Iterations: L})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		loss                Loss
		f, norm, g00, g19   float64
		checkReconstruction bool
	}{
		{L1, 1.4777526507712180e+00, 2.6186508360784167e-02, 2.2183951253331681e-03, 2.3939415685787255e-03, false},
		{L2, 8.5297967899035632e-01, 1.8420419449758932e-02, 8.2831438596784311e-04, 2.4130447783066895e-03, true},
		{KL, 6.2997668629668835e-01, 1.2483876834663619e-02, 5.6882178432599646e-04, 1.5938799524505211e-03, false},
	}
	for _, tt := range tests {
		t.Run(tt.loss.String(), func(t *testing.T) {
			recs, err := ip.Forward()
			if err != nil {
				t.Fatal(err)
			}
			grec := shapeLike(recs)
			var f float64
			for j := range recs[0] {
				v, err := tt.loss.Eval(grec[0][j], recs[0][j], obs[j])
				if err != nil {
					t.Fatal(err)
				}
				f += v
			}
			gE := make([]float64, len(edges))
			if err := ip.Backward(gE, grec); err != nil {
				t.Fatal(err)
			}
			// Chain rule: E = (W_i + W_j)/2, then w = exp(x).
			gx := make([][]float64, d)
			for p := range gx {
				gx[p] = make([]float64, N)
			}
			for e, ed := range edges {
				gx[ed.p][ed.i] += gE[e] / 2
				gx[ed.p][ed.j] += gE[e] / 2
			}
			var norm float64
			for p := range gx {
				for i := range gx[p] {
					gx[p][i] *= w[p][i]
					norm += gx[p][i] * gx[p][i]
				}
			}
			norm = math.Sqrt(norm)
			check := func(name string, got, want float64) {
				t.Helper()
				if e := math.Abs(got-want) / math.Abs(want); !(e <= 1e-9) {
					t.Errorf("%s = %.16e, reference %.16e (relative error %.2g)", name, got, want, e)
				}
			}
			check("F", f, tt.f)
			check("‖∇F‖", norm, tt.norm)
			check("∂F/∂x[0,0]", gx[0][0], tt.g00)
			check("∂F/∂x[1,9]", gx[1][9], tt.g19)
			if tt.checkReconstruction {
				check("sum rec[0]", sum(recs[0][0]), 0.99999999999999989)
				check("rec[0][0]", recs[0][0][0], 1.6101758352204527e-02)
				check("sum rec[1]", sum(recs[0][1]), 9.9977292132449935e-01)
				check("rec[1][27]", recs[0][1][27], 1.6014598469593643e-02)
				check("rec[2][63]", recs[0][2][63], 1.0009471587311455e-02)
				check("rec[3][0]", recs[0][3][0], 8.1281750107428021e-03)
			}
		})
	}
}
