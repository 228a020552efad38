package draw

import (
	"slices"
	"testing"
)

// TestGridFrame checks that a 2-D frame is drawn as it is and a 3-D one
// summed over its slowest axis.
func TestGridFrame(t *testing.T) {
	flat := []float64{1, 2, 3, 4}
	if f := GridFrame(flat, 2, 2); f.Rows != 2 || f.Cols != 2 || !slices.Equal(f.Data, flat) {
		t.Errorf("2-D frame: %+v", f)
	}
	cube := []float64{1, 2, 3, 4, 10, 20, 30, 40}
	if f := GridFrame(cube, 3, 2); !slices.Equal(f.Data, []float64{11, 22, 33, 44}) {
		t.Errorf("3-D frame projected to %v, want [11 22 33 44]", f.Data)
	}
}

// TestPointFrame checks that each vertex paints its value around its
// place, the largest value winning, y pointing up.
func TestPointFrame(t *testing.T) {
	xy := [][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}
	f := PointFrame(xy, []float64{1, 2, 3, 4}, 20)
	at := func(x, y int) float64 { return f.Data[y*f.Cols+x] }
	// Bottom-left is vertex 0, bottom-right 1, top-left 2, top-right 3.
	for _, tc := range []struct {
		x, y int
		want float64
	}{{0, 19, 1}, {19, 19, 2}, {0, 0, 3}, {19, 0, 4}, {10, 10, 0}} {
		if got := at(tc.x, tc.y); got != tc.want {
			t.Errorf("cell (%d, %d) = %g, want %g", tc.x, tc.y, got, tc.want)
		}
	}
}

// TestProjection checks that 3-D coordinates keep the vertices with z ≥ 0.
func TestProjection(t *testing.T) {
	xy, keep := Projection([]float64{1, 2, 3, 4, 5, -6}, 3)
	if !slices.Equal(xy, [][2]float64{{1, 2}, {4, 5}}) || !slices.Equal(keep, []bool{true, false}) {
		t.Errorf("Projection = %v, %v", xy, keep)
	}
	if _, keep := Projection([]float64{1, 2, 3, 4}, 2); !slices.Equal(keep, []bool{true, true}) {
		t.Errorf("2-D coordinates: keep %v", keep)
	}
}

// TestFrameStrip checks the strip's rows and time labels, and that an
// empty strip is an error.
func TestFrameStrip(t *testing.T) {
	if got := TimeLabels(3); !slices.Equal(got, []string{"t=0.00", "t=0.50", "t=1.00"}) {
		t.Errorf("TimeLabels(3) = %v", got)
	}
	field := func(f []float64) Field { return GridFrame(f, 2, 2) }
	seq := [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}}
	one, err := FrameStrip([]Frames{{Name: "a", Frames: [][][]float64{seq}}}, field, "")
	if err != nil {
		t.Fatal(err)
	}
	two, err := FrameStrip([]Frames{{Name: "a", Frames: [][][]float64{seq}}, {Name: "b", Frames: [][][]float64{seq}}}, field, "")
	if err != nil {
		t.Fatal(err)
	}
	if !(two.Bounds().Dy() > one.Bounds().Dy()) || two.Bounds().Dx() != one.Bounds().Dx() {
		t.Errorf("two rows %v, one row %v: want a taller strip of the same width", two.Bounds(), one.Bounds())
	}
	if _, err := FrameStrip([]Frames{{Name: "none"}}, field, ""); err == nil {
		t.Error("a strip without frames drew")
	}
}
