package color

import (
	"math"
	"strconv"
	"testing"
)

func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// TestEuclideanSPEC checks the reference's Euclidean kernel values
// (docs/method.md, "Reference values", colour units): n=5, γ=0.05,
// v_i = 1+0.5 sin(0.9 i).
func TestEuclideanSPEC(t *testing.T) {
	k, err := NewEuclidean(5, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	N := k.Size()
	v := make([]float64, 2*N)
	for i := range N {
		v[i] = 1 + 0.5*math.Sin(0.9*float64(i))
		v[N+i] = 2 * v[i] // a second column checks batching
	}
	u := make([]float64, 2*N)
	if err := k.Apply(u, v, 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		i    int
		want float64
	}{
		{0, 2.0435285391851958},   // reference value
		{62, 3.7908043319766276},  // reference value
		{124, 1.7425035411080443}, // reference value
	} {
		if e := relErr(u[tc.i], tc.want); e > 1e-12 {
			t.Errorf("u[%d] = %.17g, want %.17g (rel %.2g)", tc.i, u[tc.i], tc.want, e)
		}
		if e := relErr(u[N+tc.i], 2*tc.want); e > 1e-12 {
			t.Errorf("column 2: u[%d] = %.17g, want %.17g", tc.i, u[N+tc.i], 2*tc.want)
		}
	}
}

// TestEuclideanDense compares Apply with the dense matrix exp(−‖x−x'‖²/γ)
// on a 4³ grid, and checks symmetry ⟨Kx,y⟩ = ⟨x,Ky⟩.
func TestEuclideanDense(t *testing.T) {
	const n, gamma = 4, 0.3
	k, err := NewEuclidean(n, gamma)
	if err != nil {
		t.Fatal(err)
	}
	N := k.Size()
	x := make([]float64, N)
	for i := range x {
		x[i] = math.Cos(1.3*float64(i)) + 0.1*float64(i%5)
	}
	got := make([]float64, N)
	k.Apply(got, x, 1)
	coord := func(i int) (float64, float64, float64) {
		h := 1 / float64(n-1)
		return float64(i/(n*n)) * h, float64(i/n%n) * h, float64(i%n) * h
	}
	for i := range N {
		ri, gi, bi := coord(i)
		var want float64
		for j := range N {
			rj, gj, bj := coord(j)
			d2 := (ri-rj)*(ri-rj) + (gi-gj)*(gi-gj) + (bi-bj)*(bi-bj)
			want += math.Exp(-d2/gamma) * x[j]
		}
		if e := relErr(got[i], want); e > 1e-13 {
			t.Errorf("(Kx)[%d] = %v, dense %v", i, got[i], want)
		}
	}
}

func TestEuclideanErrors(t *testing.T) {
	for _, tc := range []struct {
		n     int
		gamma float64
	}{{1, 0.1}, {4, 0}, {4, -1}, {4, math.NaN()}, {4, math.Inf(1)}} {
		if _, err := NewEuclidean(tc.n, tc.gamma); err == nil {
			t.Errorf("NewEuclidean(%d, %v): no error", tc.n, tc.gamma)
		}
	}
}

func TestEuclideanNoAlloc(t *testing.T) {
	k, _ := NewEuclidean(8, 0.05)
	src := make([]float64, 4*k.Size())
	dst := make([]float64, 4*k.Size())
	for i := range src {
		src[i] = 1
	}
	if a := testing.AllocsPerRun(5, func() { k.Apply(dst, src, 4) }); a != 0 {
		t.Errorf("Apply allocates %v times", a)
	}
}

func BenchmarkEuclidean(b *testing.B) {
	for _, n := range []int{16, 31, 32} {
		k, _ := NewEuclidean(n, 0.005)
		src := make([]float64, 4*k.Size())
		dst := make([]float64, 4*k.Size())
		for i := range src {
			src[i] = 1
		}
		b.Run("n="+itoa(n)+"/cols=4", func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				k.Apply(dst, src, 4)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
