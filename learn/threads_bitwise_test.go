package learn

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// TestEvalThreadsBitwise checks that F and ∇F are bitwise the same for 1, 2,
// 3, 8 and 16 threads (GOMAXPROCS and HeatOptions.Threads, as --threads sets
// them; more threads than cores is fine), on every backend compiled in, in
// exact mode on toydataF4 (when the reference data is present) and on a
// 16³ grid, and in tolerance mode with Anderson mixing and the GMRES
// adjoint on the 16³ grid. Each evaluation runs on a new Objective, so the
// factor's analysis is redone for each thread count.
func TestEvalThreadsBitwise(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	g3, _ := kernel.Cube(3, 16)
	g2, _ := kernel.Cube(2, 50)
	rand16 := func(testing.TB) []Sequence {
		return randSeqs(rand.New(rand.NewPCG(1, 2)), g3.N(), 1, 5)
	}
	toy := func(t testing.TB) []Sequence {
		return []Sequence{{Frames: loadFrames(t, filepath.Join(dataDir(t), "toydataF4/array-*.npy"), true)}}
	}
	cases := []struct {
		name string
		g    *kernel.Graph
		seqs func(testing.TB) []Sequence
		cfg  Config
	}{
		{"toydataF4/exact", g2, toy, Config{Heat: kernel.HeatOptions{T: 3e-3, Steps: 10},
			Sinkhorn: ot.Settings{Iterations: 10}, Loss: ot.KL, LambdaS: 0.03}},
		{"16³/exact", g3, rand16, Config{Heat: kernel.HeatOptions{T: 1e-3, Steps: 5},
			Sinkhorn: ot.Settings{Iterations: 8}, LambdaS: 1}},
		{"16³/tolerance", g3, rand16, Config{Heat: kernel.HeatOptions{T: 1e-3, Steps: 5},
			Sinkhorn: ot.Settings{Tol: 1e-5, Anderson: 5, Gradient: ot.ImplicitGMRES}, LambdaS: 1}},
	}
	for _, c := range cases {
		for _, name := range kernel.Backends() {
			if name == "dense" {
				continue
			}
			t.Run(c.name+"/"+name, func(t *testing.T) {
				seqs := c.seqs(t)
				backend, err := kernel.Backend(name)
				if err != nil {
					t.Fatal(err)
				}
				var f1 float64
				var g1 []float64
				for _, p := range []int{1, 2, 3, 8, 16} {
					cfg := c.cfg
					cfg.Heat.Backend, cfg.Heat.Threads = backend, p
					f, grad := evalOnThreads(t, c.g, seqs, &cfg, p)
					if p == 1 {
						f1, g1 = f, grad
						continue
					}
					if math.Float64bits(f) != math.Float64bits(f1) {
						t.Errorf("%d threads: F = %.17g, one thread %.17g", p, f, f1)
					}
					for i := range grad {
						if math.Float64bits(grad[i]) != math.Float64bits(g1[i]) {
							t.Errorf("%d threads: ∇F[%d] = %.17g, one thread %.17g", p, i, grad[i], g1[i])
							break
						}
					}
				}
			})
		}
	}
}

// evalOnThreads evaluates F and ∇F at a fixed point x on a new Objective,
// with GOMAXPROCS set to p for the Objective's life.
func evalOnThreads(t *testing.T, g *kernel.Graph, seqs []Sequence, cfg *Config, p int) (float64, []float64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
	o, err := NewObjective(g, seqs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	x := make([]float64, o.Dim())
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range x {
		x[i] = 0.4 * (rng.Float64() - 0.5)
	}
	grad := make([]float64, len(x))
	f, err := o.Eval(grad, x)
	if err != nil {
		t.Fatal(err)
	}
	return f, grad
}
