package kernel

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
)

// TestGridHeatBound checks the range of t and of the metric's values that
// the bound accepts on a grid, at and beside (t/S)·(n−1)²·2d·max(w) ≤ 1e12.
func TestGridHeatBound(t *testing.T) {
	// Side 11, 2-D, 10 steps: (t/10)·100·4 = 40·t.
	b := GridHeatBound(2, 11)
	for _, tc := range []struct {
		t    float64
		maxW float64
		ok   bool
	}{
		{1e-2, 1, true},
		{2.5e10, 1, true}, // exactly 1e12
		{2.6e10, 1, false},
		{1e308, 1, false}, // the product overflows
		{1e-2, 2.5e12, true},
		{1e-2, 2.6e12, false},
		{1e-2, 1e300, false},
		{1e-2, math.MaxFloat64, false},
	} {
		theta := []float64{0.5, tc.maxW, 1}
		errT := b.CheckTime("--t", tc.t*tc.maxW, 10)
		errM := b.CheckMetric("m.npy", theta, tc.t, 10)
		if (errM == nil) != tc.ok {
			t.Errorf("t %g, max(w) %g: metric error %v, want ok = %v", tc.t, tc.maxW, errM, tc.ok)
		}
		if tc.maxW == 1 && (errT == nil) != tc.ok {
			t.Errorf("t %g: --t error %v, want ok = %v", tc.t, errT, tc.ok)
		}
		if errT != nil && (!strings.Contains(errT.Error(), "--t") || !strings.Contains(errT.Error(), "t ≤ 2.5e+10") || !strings.Contains(errT.Error(), "grid of side 11")) {
			t.Errorf("--t error does not name the option, the grid and the range: %v", errT)
		}
		if errM != nil && (!strings.Contains(errM.Error(), "m.npy") || !strings.Contains(errM.Error(), "must be ≤")) {
			t.Errorf("metric error does not name the file and the range: %v", errM)
		}
	}
}

// TestGraphHeatBound checks that a graph's bound counts its largest vertex
// degree and no grid scale: a star of 5 leaves has degree 5.
func TestGraphHeatBound(t *testing.T) {
	g, err := FromEdges(6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}})
	if err != nil {
		t.Fatal(err)
	}
	b := GraphHeatBound(g)
	if got := b.Scale(2, 4, 3); got != 2.0/4*5*3 {
		t.Errorf("Scale = %g, want (2/4)·5·3 = 7.5", got)
	}
	if err := b.CheckTime("t", 2e11, 1); err != nil {
		t.Errorf("t = 2e11 (s = 5·2e11 = 1e12, at the bound): %v", err)
	}
	if err := b.CheckTime("t", 2.1e11, 1); err == nil || !strings.Contains(err.Error(), "on this graph") {
		t.Errorf("t = 2.1e11: err = %v, want a refusal on this graph", err)
	}
}

// TestExplainNotPosDef checks that a heat matrix the backend cannot
// factorise gives an error naming the metric, the options and the bound,
// that it still matches factor.ErrNotPosDef, that explaining it twice adds
// nothing, and that other errors pass through unchanged.
func TestExplainNotPosDef(t *testing.T) {
	g, err := Cube(2, 8)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHeat(g, &HeatOptions{T: 1e-2, Steps: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	w := make([]float64, g.NumEdges())
	for i := range w {
		w[i] = 1e18
	}
	raw := h.SetWeights(w)
	if !errors.Is(raw, factor.ErrNotPosDef) {
		t.Fatalf("weights 1e18: SetWeights gave %v, want a not-positive-definite error", raw)
	}
	hinted := ExplainNotPosDef(raw, "metric big.npy", "--t, --steps")
	msg := hinted.Error()
	for _, want := range []string{"big.npy", "--t, --steps", "not numerically positive definite", "too large", "1e+12"} {
		if !strings.Contains(msg, want) {
			t.Errorf("hint does not mention %q: %s", want, msg)
		}
	}
	if !errors.Is(hinted, factor.ErrNotPosDef) {
		t.Error("the hint hides factor.ErrNotPosDef")
	}
	if again := ExplainNotPosDef(fmt.Errorf("outer: %w", hinted), "the metric", "--t"); !strings.HasSuffix(again.Error(), msg) {
		t.Errorf("explained twice:\n%s\nwant\n%s", again, msg)
	}
	other := fmt.Errorf("some other failure")
	if got := ExplainNotPosDef(other, "metric m.npy", "--t"); got != other {
		t.Errorf("other error changed to %v", got)
	}
}
