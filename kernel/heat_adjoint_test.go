package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/gmlg/gmlg/kernel/factor"
)

// TestAdjointInBackend checks Adjoint through the backend's own adjoint
// (factor.StepSolver's AdjointSteps: the engine, on CHOLMOD's factor and on
// the pure-Go one, and the dense oracle) against Store mode's column-major
// chains and accumulation: the weight gradient to 1e-12 of its largest
// entry (the same products summed in another order), K·gdst to 1e-14, on
// a 2-D and a 3-D grid and a general graph (S = 5, 4 and 4), for one panel
// of columns and two; concurrent and Serial must agree bit for bit.
func TestAdjointInBackend(t *testing.T) {
	for _, name := range []string{"cholmod", "go", "dense"} {
		t.Run(name, func(t *testing.T) {
			b, err := Backend(name)
			if err != nil {
				t.Skipf("no %s backend in this build", name)
			}
			prev := runtime.GOMAXPROCS(2)
			defer runtime.GOMAXPROCS(prev)
			testAdjointInBackend(t, b)
		})
	}
}

func testAdjointInBackend(t *testing.T, b factor.Factorizer) {
	g2, _ := Cube(2, 7)
	g3, _ := Cube(3, 4)
	gr, err := FromEdges(6, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}, {1, 3}, {4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Graph{g2, g3, gr} {
		rng := rand.New(rand.NewPCG(8, uint64(g.N())))
		w := randWeights(rng, g.NumEdges(), 0.3, 3)
		// An odd S pairs the chains' middle iterates apart (the pure-Go
		// adjoint); an even one does not.
		opt := HeatOptions{T: 2e-2, Steps: 4 + g.N()%2, Backend: b}
		par := newHeat(t, g, opt, w)
		opt.Serial = true
		ser := newHeat(t, g, opt, w)
		opt.Memory = Store
		store := newHeat(t, g, opt, w)
		for _, cols := range []int{3, 40} {
			name := fmt.Sprintf("N=%d/cols=%d", g.N(), cols)
			x := randBlock(rng, g.N()*cols)
			gy := randBlock(rng, g.N()*cols)
			run := func(h *Heat) ([]float64, []float64) {
				gx, gw := make([]float64, len(x)), make([]float64, g.NumEdges())
				if h.opt.Memory == Store {
					if err := h.Apply(make([]float64, len(x)), x, cols); err != nil {
						t.Fatal(err)
					}
				}
				if err := h.Adjoint(gx, gw, x, gy, cols); err != nil {
					t.Fatal(err)
				}
				return gx, gw
			}
			gxWant, gwWant := run(store)
			gx, gw := run(par)
			gxS, gwS := run(ser)
			scale := floats.Norm(gwWant, math.Inf(1))
			for e := range gw {
				if d := math.Abs(gw[e] - gwWant[e]); !(d <= 1e-12*scale) {
					t.Fatalf("%s: edge %d: %v, want %v", name, e, gw[e], gwWant[e])
				}
				if gw[e] != gwS[e] {
					t.Fatalf("%s: edge %d: concurrent %v, serial %v", name, e, gw[e], gwS[e])
				}
			}
			for i := range gx {
				if d := math.Abs(gx[i] - gxWant[i]); !(d <= 1e-14*math.Abs(gxWant[i])) {
					t.Fatalf("%s: K·gdst[%d] = %v, want %v", name, i, gx[i], gxWant[i])
				}
				if gx[i] != gxS[i] {
					t.Fatalf("%s: K·gdst[%d]: concurrent %v, serial %v", name, i, gx[i], gxS[i])
				}
			}
		}
	}
}
