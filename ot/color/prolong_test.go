package color

import (
	"math"
	"testing"
)

// TestProlongSPEC checks the reference's prolongation values
// (docs/method.md, "Reference values"): n=4→7 of w = exp(0.3cos(0.37i+1.1p)).
func TestProlongSPEC(t *testing.T) {
	const d, n = 3, 4
	N := ipow(n, d)
	w := make([]float64, d*N)
	for p := range d {
		for i := range N {
			w[p*N+i] = math.Exp(0.3 * math.Cos(0.37*float64(i)+1.1*float64(p)))
		}
	}
	wb, nHi, err := Prolong(w, d, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	if nHi != 7 || len(wb) != d*343 {
		t.Fatalf("nHi = %d, len = %d", nHi, len(wb))
	}
	NHi := 343
	for _, tc := range []struct {
		p, i int
		want float64
	}{
		{0, 1, 1.3362946822287667},  // reference value
		{1, 8, 0.92426705029676459}, // reference value
	} {
		got := wb[tc.p*NHi+tc.i]
		if e := relErr(got, tc.want); e > 1e-12 {
			t.Errorf("wb[%d,%d] = %.17g, want %.17g", tc.p, tc.i, got, tc.want)
		}
	}
}

// TestProlongProperties: co-located nodes are kept, multilinear functions
// are reproduced exactly (up to round-off) at every level and dimension.
func TestProlongProperties(t *testing.T) {
	for _, tc := range []struct{ d, n, levels int }{{2, 3, 1}, {2, 4, 2}, {3, 3, 1}, {3, 4, 2}, {1, 5, 3}, {3, 5, 0}} {
		N := ipow(tc.n, tc.d)
		// A multilinear function of the coordinates (plus a constant), one
		// different function per row.
		f := func(p int, x []float64) float64 {
			v := 1.0 + float64(p)
			prod := 1.0
			for a, xa := range x {
				v += float64(a+1) * 0.3 * xa
				prod *= 1 + 0.2*xa
			}
			return v + prod
		}
		coords := func(i, n int) []float64 {
			x := make([]float64, tc.d)
			for a := tc.d - 1; a >= 0; a-- {
				x[a] = float64(i%n) / float64(n-1)
				i /= n
			}
			return x
		}
		w := make([]float64, tc.d*N)
		for p := range tc.d {
			for i := range N {
				w[p*N+i] = f(p, coords(i, tc.n))
			}
		}
		wb, nHi, err := Prolong(w, tc.d, tc.n, tc.levels)
		if err != nil {
			t.Fatal(err)
		}
		NHi := ipow(nHi, tc.d)
		for p := range tc.d {
			for j := range NHi {
				want := f(p, coords(j, nHi))
				if math.Abs(wb[p*NHi+j]-want) > 1e-13 {
					t.Fatalf("%+v: wb[%d,%d] = %v, want %v", tc, p, j, wb[p*NHi+j], want)
				}
			}
		}
	}
}

func TestProlongErrors(t *testing.T) {
	for _, tc := range []struct {
		w            []float64
		d, n, levels int
	}{
		{make([]float64, 10), 2, 3, 1},
		{make([]float64, 18), 2, 1, 1},
		{make([]float64, 18), 2, 3, -1},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, math.NaN()}, 2, 3, 1},
	} {
		if _, _, err := Prolong(tc.w, tc.d, tc.n, tc.levels); err == nil {
			t.Errorf("Prolong(len %d, d=%d, n=%d, levels=%d): no error", len(tc.w), tc.d, tc.n, tc.levels)
		}
	}
}
