package bench

import (
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
)

// TestCountingKeepsPaths checks that the benchmark's counting wrapper
// forwards the multi-step interfaces of every backend that has them, so
// that the heat kernel measured takes the paths it takes without counters:
// an Apply and an Adjoint through the wrapper give bitwise the results of
// the bare backend (the backend's own adjoint rounds differently from the
// kernel's column-major one), and count S solves per Apply stream and 2·S
// per adjoint.
func TestCountingKeepsPaths(t *testing.T) {
	g, _ := kernel.Cube(2, 6)
	rng := rand.New(rand.NewPCG(2, 2))
	w := make([]float64, g.NumEdges())
	for e := range w {
		w[e] = 0.5 + rng.Float64()
	}
	const steps, cols = 3, 5
	x := make([]float64, g.N()*cols)
	gy := make([]float64, len(x))
	for i := range x {
		x[i], gy[i] = 0.1+rng.Float64(), rng.NormFloat64()
	}
	for _, name := range kernel.Backends() {
		if name == "dense" {
			continue
		}
		be, _ := kernel.Backend(name)
		stats := &SolveStats{}
		run := func(b factor.Factorizer) (y, gx, gw []float64) {
			h, err := kernel.NewHeat(g, &kernel.HeatOptions{Steps: steps, Backend: b, Serial: true})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if err := h.SetWeights(w); err != nil {
				t.Fatal(err)
			}
			y, gx, gw = make([]float64, len(x)), make([]float64, len(x)), make([]float64, g.NumEdges())
			if err := h.Apply(y, x, cols); err != nil {
				t.Fatal(err)
			}
			if err := h.Adjoint(gx, gw, x, gy, cols); err != nil {
				t.Fatal(err)
			}
			return y, gx, gw
		}
		y0, gx0, gw0 := run(be)
		counted := &countingFactorizer{Factorizer: be, stats: stats}
		y1, gx1, gw1 := run(counted)
		// Made twice (kernelRates), every call gives the same results too,
		// and each kind of call is paired: one Apply of S steps, one
		// adjoint of 2·S.
		paired := &SolveStats{}
		paired.pair.Store(true)
		y2, gx2, gw2 := run(&countingFactorizer{Factorizer: be, stats: paired})
		for _, p := range []struct {
			what    string
			a, b, c []float64
		}{{"K·x", y0, y1, y2}, {"K·gy", gx0, gx1, gx2}, {"weight gradient", gw0, gw1, gw2}} {
			for i := range p.a {
				if p.a[i] != p.b[i] || p.a[i] != p.c[i] {
					t.Fatalf("%s: %s[%d] = %v through the counters, %v with every call made twice, %v without", name, p.what, i, p.b[i], p.c[i], p.a[i])
				}
			}
		}
		for k, want := range []int64{steps * cols, 2 * steps * cols} {
			if p := paired.pairs[k]; p.Columns != want || !(p.Eval > 0 && p.Alone > 0) {
				t.Errorf("%s: call kind %d paired as %+v, want %d columns and both times", name, k, p, want)
			}
		}
		f, err := counted.Analyze(&factor.Pattern{N: 1, ColPtr: []int{0, 1}, RowIdx: []int{0}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.(factor.StepSolver); name != "dense" && !ok {
			t.Errorf("%s: the counting factor hides the StepSolver", name)
		}
		f.Close()
		// Serial: one Apply is S solves; the Recompute adjoint 2·S (one
		// per chain step, however the backend runs them).
		if got, want := stats.solves.Load(), int64(3*steps); got != want {
			t.Errorf("%s: %d solves counted, want %d", name, got, want)
		}
		if got, want := stats.cols.Load(), int64(3*steps*cols); got != want {
			t.Errorf("%s: %d columns counted, want %d", name, got, want)
		}
	}
}
