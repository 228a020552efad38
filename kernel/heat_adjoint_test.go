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

// TestAccumulateSplit checks that the weight gradient accumulated over two
// goroutines (the graph's edges split in two) is bit for bit the serial one,
// on grids and a general graph, and that the split covers every edge once.
func TestAccumulateSplit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	g2, _ := Cube(2, 7)
	g3, _ := Cube(3, 4)
	gr, err := FromEdges(5, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}, {1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Graph{g2, g3, gr} {
		for _, scheme := range []Scheme{BackwardEuler, CrankNicolson} {
			h, err := NewHeat(g, &HeatOptions{Steps: 3, Scheme: scheme, Backend: Dense{}})
			if err != nil {
				t.Fatal(err)
			}
			const cols = 3
			rng := rand.New(rand.NewPCG(5, 6))
			u := randBlock(rng, 4*g.N()*cols)
			v := randBlock(rng, 3*g.N()*cols)
			serial := make([]float64, g.NumEdges())
			h.accumulateRuns(g.runs, serial, u, v, cols)
			split := make([]float64, g.NumEdges())
			h.accumulate(split, u, v, cols)
			for e := range serial {
				if split[e] != serial[e] {
					t.Fatalf("N=%d %v: edge %d: split %v, serial %v", g.N(), scheme, e, split[e], serial[e])
				}
			}
			seen := make([]int, g.NumEdges())
			for _, half := range h.runs2 {
				for _, r := range half {
					for e := r.e0; e < r.e0+r.len; e++ {
						seen[e]++
					}
				}
			}
			for e, c := range seen {
				if c != 1 {
					t.Fatalf("N=%d: edge %d in %d halves", g.N(), e, c)
				}
			}
			h.Close()
		}
	}
}

// TestAdjointInBackend checks Adjoint through the backend's own adjoint
// (factor.StepSolver: the engine, on CHOLMOD's factor and on the pure-Go
// one) against the kernel's column-major chains and accumulation: the weight
// gradient to 1e-12 of its largest entry (the same products summed in
// another order), K·gdst to 1e-14, on a 2-D and a 3-D grid and a general
// graph (S = 5, 4 and 4), for one panel of columns and two; concurrent and
// Serial must agree bit for bit.
func TestAdjointInBackend(t *testing.T) {
	for _, name := range []string{"cholmod", "go"} {
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
		if par.ss == nil || ser.ss == nil {
			t.Fatalf("the %s backend's factor is not used as a StepSolver", b.Name())
		}
		for _, cols := range []int{3, 40} {
			name := fmt.Sprintf("N=%d/cols=%d", g.N(), cols)
			x := randBlock(rng, g.N()*cols)
			gy := randBlock(rng, g.N()*cols)
			run := func(h *Heat, own bool) ([]float64, []float64) {
				ss := h.ss
				if !own {
					h.ss = nil
				}
				defer func() { h.ss = ss }()
				gx, gw := make([]float64, len(x)), make([]float64, g.NumEdges())
				if err := h.Adjoint(gx, gw, x, gy, cols); err != nil {
					t.Fatal(err)
				}
				return gx, gw
			}
			gxWant, gwWant := run(ser, false)
			gx, gw := run(par, true)
			gxS, gwS := run(ser, true)
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
		par.Close()
		ser.Close()
	}
}
