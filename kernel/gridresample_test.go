package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestProlongGridReference checks the co-located prolongation against the
// reference's values (docs/method.md, "Reference values"): n = 4 → 7 of
// w = exp(0.3·cos(0.37·i + 1.1·p)) on the 3-D cube.
func TestProlongGridReference(t *testing.T) {
	const d, n, N = 3, 4, 64
	w := make([]float64, d*N)
	for p := range d {
		for i := range N {
			w[p*N+i] = math.Exp(0.3 * math.Cos(0.37*float64(i)+1.1*float64(p)))
		}
	}
	// n = 4 points per side refine to 2(n−1)+1 = 7, so 7³ = 343 per axis.
	const side, M = 2*(n-1) + 1, (2*(n-1) + 1) * (2*(n-1) + 1) * (2*(n-1) + 1)
	wb := ProlongVertexMetric(w, []int{n, n, n}, []int{side, side, side})
	if len(wb) != d*M {
		t.Fatalf("len = %d, want %d", len(wb), d*M)
	}
	for _, tc := range []struct {
		p, i int
		want float64
	}{
		{0, 1, 1.3362946822287667},
		{1, 8, 0.92426705029676459},
	} {
		// The reference computes in another order: agree to 1e-12
		// relative, a few thousand ulps.
		if got := wb[tc.p*M+tc.i]; math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("wb[%d,%d] = %.17g, want %.17g", tc.p, tc.i, got, tc.want)
		}
	}
}

// TestProlongGridMultilinear: multilinear functions of the coordinates are
// reproduced up to round-off, at several refinements and dimensions, and the
// co-located nodes keep their values exactly.
func TestProlongGridMultilinear(t *testing.T) {
	for _, tc := range []struct{ coarse, fine []int }{
		{[]int{3, 3}, []int{5, 5}},
		{[]int{4, 4}, []int{13, 13}},
		{[]int{3, 3, 3}, []int{5, 5, 5}},
		{[]int{4, 3, 5}, []int{7, 9, 6}},
		{[]int{5}, []int{33}},
	} {
		f := func(x []float64) float64 {
			v, prod := 1.0, 1.0
			for a, xa := range x {
				v += float64(a+1) * 0.3 * xa
				prod *= 1 + 0.2*xa
			}
			return v + prod
		}
		at := func(i int, dims []int) []float64 {
			x := make([]float64, len(dims))
			for a, m := range dims {
				x[a] = float64(i%m) / float64(m-1)
				i /= m
			}
			return x
		}
		nc, nf := gridPoints(tc.coarse), gridPoints(tc.fine)
		w := make([]float64, nc)
		for i := range w {
			w[i] = f(at(i, tc.coarse))
		}
		wb := ProlongGrid(w, tc.coarse, tc.fine)
		if len(wb) != nf {
			t.Fatalf("%v → %v: length %d, want %d", tc.coarse, tc.fine, len(wb), nf)
		}
		for j := range wb {
			// f is between 1 and 5 here; 1e-13 is about a hundred ulps,
			// room for the round-off of the interpolation weights.
			if want := f(at(j, tc.fine)); math.Abs(wb[j]-want) > 1e-13 {
				t.Fatalf("%v → %v: node %d = %v, want %v", tc.coarse, tc.fine, j, wb[j], want)
			}
		}
	}
	// Co-located (odd side): fine node (2i, 2j) is coarse node (i, j), bitwise.
	rng := rand.New(rand.NewPCG(5, 7))
	x := randBlock(rng, 25)
	px := ProlongGrid(x, []int{5, 5}, []int{9, 9})
	for j := 0; j < 5; j++ {
		for i := 0; i < 5; i++ {
			if px[2*j*9+2*i] != x[j*5+i] {
				t.Fatalf("not co-located at (%d,%d)", i, j)
			}
		}
	}
}

// TestRestrictGrid checks the restriction: mass kept, and that it is the
// transpose of the prolongation (⟨P·x, y⟩ = ⟨x, R·y⟩).
func TestRestrictGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ fine, coarse []int }{
		{[]int{9, 9}, []int{5, 5}},
		{[]int{16, 16}, []int{8, 8}},
		{[]int{5, 7, 4}, []int{3, 4, 2}},
		{[]int{33}, []int{17}},
	} {
		nf, nc := gridPoints(tc.fine), gridPoints(tc.coarse)
		y := randBlock(rng, nf)
		ry := RestrictGrid(y, tc.fine, tc.coarse)
		// Both checks hold exactly in exact arithmetic; 1e-12 relative
		// leaves room for the round-off of sums of at most a few hundred
		// positive terms.
		if math.Abs(floats.Sum(ry)-floats.Sum(y)) > 1e-12*floats.Sum(y) {
			t.Errorf("%v: restriction changed the mass %v → %v", tc.fine, floats.Sum(y), floats.Sum(ry))
		}
		x := randBlock(rng, nc)
		px := ProlongGrid(x, tc.coarse, tc.fine)
		lhs, rhs := floats.Dot(px, y), floats.Dot(x, ry)
		if math.Abs(lhs-rhs) > 1e-12*math.Abs(lhs) {
			t.Errorf("%v: ⟨Px,y⟩ = %v, ⟨x,Ry⟩ = %v", tc.fine, lhs, rhs)
		}
	}
}

// TestResamplePanics: inconsistent lengths or extents are programmer errors.
func TestResamplePanics(t *testing.T) {
	for name, fn := range map[string]func(){
		"length":     func() { ProlongGrid(make([]float64, 8), []int{3, 3}, []int{5, 5}) },
		"dimensions": func() { ProlongGrid(make([]float64, 9), []int{3, 3}, []int{5}) },
		"shrink":     func() { ProlongGrid(make([]float64, 9), []int{3, 3}, []int{5, 2}) },
		"restrict":   func() { RestrictGrid(make([]float64, 25), []int{5, 5}, []int{1, 5}) },
		"metric":     func() { ProlongVertexMetric(make([]float64, 10), []int{3, 3}, []int{5, 5}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			fn()
		}()
	}
}
