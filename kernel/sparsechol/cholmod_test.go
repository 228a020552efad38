//go:build cgo

package sparsechol

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/factor"
)

func init() {
	benchBackends = append(benchBackends, benchBackend{"cholmod", cholmod.Backend{}, func(g []int) *factor.Options { return nil }})
}

// TestAgreesWithCHOLMOD compares the solutions of both backends.
func TestAgreesWithCHOLMOD(t *testing.T) {
	t.Parallel()
	for _, tc := range testCases() {
		n := tc.m.pat.N
		const cols = 6
		b := randomBlock(rand.New(rand.NewPCG(11, 11)), n*cols)
		solve := func(fz factor.Factorizer, opt *factor.Options) []float64 {
			f, err := fz.Analyze(tc.m.pat, opt)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, fz.Name(), err)
			}
			defer f.Close()
			if err := f.Factorize(tc.m.val); err != nil {
				t.Fatalf("%s %s: %v", tc.name, fz.Name(), err)
			}
			x := make([]float64, n*cols)
			if err := f.Solve(x, b, cols); err != nil {
				t.Fatalf("%s %s: %v", tc.name, fz.Name(), err)
			}
			return x
		}
		xg := solve(Backend{}, &factor.Options{Grid: tc.m.grid})
		xc := solve(cholmod.Backend{}, nil)
		var num, den float64
		for k := range xg {
			num += (xg[k] - xc[k]) * (xg[k] - xc[k])
			den += xc[k] * xc[k]
		}
		if r := math.Sqrt(num / den); !(r <= 1e-11) {
			t.Errorf("%s: ‖x_go − x_cholmod‖/‖x_cholmod‖ = %g > 1e-11", tc.name, r)
		}
	}
}

// TestNotPosDefAgrees checks that both backends name the same column when
// only one pivot can fail.
func TestNotPosDefAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 12))
	n, es := gridEdges(rng, 7, 6)
	m := heatMatrix(n, es, 1)
	val := append([]float64(nil), m.val...)
	val[m.pat.ColPtr[23]] = -50
	for _, fz := range []factor.Factorizer{Backend{}, cholmod.Backend{}} {
		f, err := fz.Analyze(m.pat, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = f.Factorize(val)
		f.Close()
		var npd *factor.NotPosDefError
		if !errors.As(err, &npd) || npd.Column != 23 {
			t.Errorf("%s: got %v, want a NotPosDefError at column 23", fz.Name(), err)
		}
	}
}
