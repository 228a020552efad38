package color

import (
	"math"
	"testing"
)

func spatialTestImage(h, w int) (data, edge []float64) {
	data = make([]float64, h*w)
	edge = make([]float64, h*w)
	for i := range h {
		for j := range w {
			data[i*w+j] = 0.1 * math.Sin(0.3*float64(i)) * math.Cos(0.2*float64(j))
			edge[i*w+j] = 0.5 + 0.4*math.Sin(0.1*float64(i)+0.15*float64(j))
		}
	}
	return data, edge
}

// TestBilateralSPEC checks the reference's bilateral grid values
// (docs/method.md, "Reference values", colour units; 20×30 image).
func TestBilateralSPEC(t *testing.T) {
	const h, w = 20, 30
	data, edge := spatialTestImage(h, w)
	tests := []struct {
		sigmaS float64
		i, j   int
		want   float64
	}{
		{1.25, 0, 0, 1.1097277349377134e-02},    // reference value
		{1.25, 7, 11, -4.7604746696571040e-02},  // reference value
		{1.25, 19, 29, -5.4434988748226242e-02}, // reference value
		{4, 0, 0, 2.6617346571075486e-02},       // reference value
	}
	for _, tc := range tests {
		g, err := NewBilateralGrid(h, w, tc.sigmaS, 0.1, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		r := make([]float64, h*w)
		if err := g.Filter(r, data, edge); err != nil {
			t.Fatal(err)
		}
		got := r[tc.i*w+tc.j]
		if e := relErr(got, tc.want); e > 1e-12 {
			t.Errorf("σs=%v: r[%d,%d] = %.17g, want %.17g (rel %.2g)", tc.sigmaS, tc.i, tc.j, got, tc.want, e)
		}
	}
}

// TestBilateralConstant: a constant data image is reproduced exactly
// wherever the filter has weight, and the grid shape follows
// docs/method.md, "Bilateral grid".
func TestBilateralConstant(t *testing.T) {
	const h, w = 17, 23
	_, edge := spatialTestImage(h, w)
	g, err := NewBilateralGrid(h, w, 2.5, 0.1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if nx, ny, nz := g.nx, g.ny, g.nz; nx != 6+1+6 || ny != 8+1+6 || nz != 10+1+6 {
		t.Errorf("shape %d×%d×%d", nx, ny, nz)
	}
	data := make([]float64, h*w)
	for k := range data {
		data[k] = 0.25
	}
	r := make([]float64, h*w)
	if err := g.Filter(r, data, edge); err != nil {
		t.Fatal(err)
	}
	for k, v := range r {
		if math.Abs(v-0.25) > 1e-14 {
			t.Fatalf("r[%d] = %v, want 0.25", k, v)
		}
	}
	if a := testing.AllocsPerRun(3, func() { g.Filter(r, data, edge) }); a != 0 {
		t.Errorf("Filter allocates %v times", a)
	}
	edge[5] = 1.5
	if err := g.Filter(r, data, edge); err == nil {
		t.Errorf("edge outside [0,1]: no error")
	}
}
