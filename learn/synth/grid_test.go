package synth

import (
	"slices"
	"testing"
)

// TestGridTruth checks the two true metrics of a grid dataset and that
// another name is refused.
func TestGridTruth(t *testing.T) {
	t.Parallel()
	w, err := GridTruth("analytic", 6)
	if err != nil || !slices.Equal(w, AnalyticMetric(6)) {
		t.Errorf("analytic: %v, %v", w, err)
	}
	w, err = GridTruth("uniform", 3)
	if err != nil || len(w) != 18 || slices.Min(w) != 1 || slices.Max(w) != 1 {
		t.Errorf("uniform: %v, %v", w, err)
	}
	if _, err := GridTruth("slow-region", 3); err == nil {
		t.Error("GridTruth accepted slow-region")
	}
}

// TestGridPoles checks that the poles are those of PolePairs, in order,
// and that more sequences than PolePairs has are refused.
func TestGridPoles(t *testing.T) {
	t.Parallel()
	poles, err := GridPoles(2, 10, 2)
	if err != nil || len(poles) != 2 {
		t.Fatalf("GridPoles = %d poles, %v", len(poles), err)
	}
	for s := range poles {
		for k := range 2 {
			want, _ := PolePairs[s][k].Histogram(2, 10)
			if !slices.Equal(poles[s][k], want) {
				t.Errorf("sequence %d pole %d differs from PolePairs'", s, k)
			}
		}
	}
	if _, err := GridPoles(2, 10, len(PolePairs)+1); err == nil {
		t.Error("GridPoles accepted more sequences than PolePairs holds")
	}
	sg, err := Sphere(16)
	if err != nil {
		t.Fatal(err)
	}
	gp := sg.Poles(2)
	if len(gp) != 2 || !slices.Equal(gp[1][0], sg.Pole(PolePairs[1][0])) {
		t.Error("Graph.Poles differs from Graph.Pole of PolePairs")
	}
}
