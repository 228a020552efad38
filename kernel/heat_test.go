package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// forEachBackend runs f once per factorisation backend compiled in.
func forEachBackend(t *testing.T, f func(t *testing.T, b factor.Factorizer)) {
	t.Helper()
	for _, name := range Backends() {
		b, err := Backend(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { f(t, b) })
	}
}

func randWeights(rng *rand.Rand, n int, lo, hi float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = lo * math.Exp(rng.Float64()*math.Log(hi/lo))
	}
	return w
}

func randBlock(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64() + 0.1
	}
	return x
}

func newHeat(t *testing.T, g *Graph, opt HeatOptions, w []float64) *Heat {
	t.Helper()
	h, err := NewHeat(g, &opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	return h
}

// denseKernel computes K = M^-S (BE) or (M⁻¹Mcn)^S (CN) with gonum, building M
// straight from the edge list, independently of Heat's CSC assembly.
func denseKernel(g *Graph, w []float64, opt HeatOptions) *mat.Dense {
	n := g.N()
	c := opt.Alpha * opt.T / float64(opt.Steps)
	if opt.Scheme == CrankNicolson {
		c /= 2
	}
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	for e := 0; e < g.NumEdges(); e++ {
		i, j := g.Edge(e)
		m.Set(i, i, m.At(i, i)+c*w[e])
		m.Set(j, j, m.At(j, j)+c*w[e])
		m.Set(i, j, m.At(i, j)-c*w[e])
		m.Set(j, i, m.At(j, i)-c*w[e])
	}
	var minv mat.Dense
	if err := minv.Inverse(m); err != nil {
		panic(err)
	}
	step := &minv
	if opt.Scheme == CrankNicolson {
		mcn := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			mcn.Set(i, i, 2)
		}
		mcn.Sub(mcn, m)
		step = new(mat.Dense)
		step.Mul(&minv, mcn)
	}
	k := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		k.Set(i, i, 1)
	}
	for l := 0; l < opt.Steps; l++ {
		k.Mul(step, k)
	}
	return k
}

func relErr(got, want []float64) float64 {
	var num, den float64
	for i := range got {
		d := got[i] - want[i]
		num += d * d
		den += want[i] * want[i]
	}
	return math.Sqrt(num / den)
}

func TestGridAlpha(t *testing.T) {
	// Values printed by the reference (docs/method.md, "Heat kernel").
	for _, c := range []struct {
		n    int
		want float64
	}{{8, 49.00000000000001}, {16, 225}, {31, 900}, {50, 2401.0000000000005}} {
		if got := GridAlpha(c.n); got != c.want {
			t.Errorf("GridAlpha(%d) = %.17g, want %.17g", c.n, got, c.want)
		}
	}
}

func TestHeatMatchesDense(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		rng := rand.New(rand.NewPCG(1, 2))
		graphs := map[string]*Graph{}
		graphs["grid2"], _ = Cube(2, 6)
		graphs["grid3"], _ = Cube(3, 4)
		graphs["rect"], _ = Grid(5, 3)
		graphs["general"], _ = FromEdges(7, [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 6}, {6, 3}, {2, 5}, {0, 6}})
		for name, g := range graphs {
			for _, scheme := range []Scheme{BackwardEuler, CrankNicolson} {
				opt := HeatOptions{T: 2e-2, Steps: 4, Scheme: scheme, Backend: b}
				w := randWeights(rng, g.NumEdges(), 0.2, 5)
				h := newHeat(t, g, opt, w)
				kd := denseKernel(g, w, h.Options())
				n, cols := g.N(), 3
				x := randBlock(rng, n*cols)
				got := make([]float64, n*cols)
				if err := h.Apply(got, x, cols); err != nil {
					t.Fatal(err)
				}
				want := make([]float64, n*cols)
				for k := 0; k < cols; k++ {
					var y mat.VecDense
					y.MulVec(kd, mat.NewVecDense(n, x[k*n:(k+1)*n]))
					copy(want[k*n:], y.RawVector().Data)
				}
				if e := relErr(got, want); e > 1e-12 {
					t.Errorf("%s %v: relative error vs dense %.3g > 1e-12", name, scheme, e)
				}
			}
		}
	})
}

func TestHeatMassAndSymmetry(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		rng := rand.New(rand.NewPCG(3, 4))
		g, _ := Cube(2, 12)
		for _, scheme := range []Scheme{BackwardEuler, CrankNicolson} {
			h := newHeat(t, g, HeatOptions{T: 1e-2, Steps: 7, Scheme: scheme, Backend: b}, randWeights(rng, g.NumEdges(), 0.1, 10))
			n := g.N()
			ones := make([]float64, n)
			for i := range ones {
				ones[i] = 1
			}
			k1 := make([]float64, n)
			if err := h.Apply(k1, ones, 1); err != nil {
				t.Fatal(err)
			}
			for i, v := range k1 {
				if math.Abs(v-1) > 1e-13 {
					t.Fatalf("%v: (K·1)[%d] = %.17g, want 1", scheme, i, v)
				}
			}
			x, y := randBlock(rng, n), randBlock(rng, n)
			kx, ky := make([]float64, n), make([]float64, n)
			if err := h.Apply(kx, x, 1); err != nil {
				t.Fatal(err)
			}
			if err := h.Apply(ky, y, 1); err != nil {
				t.Fatal(err)
			}
			var sx, skx, a, bb float64
			for i := range x {
				sx += x[i]
				skx += kx[i]
				a += kx[i] * y[i]
				bb += x[i] * ky[i]
			}
			if math.Abs(sx-skx) > 1e-12*sx {
				t.Errorf("%v: mass not preserved: 1ᵀx=%.17g, 1ᵀKx=%.17g", scheme, sx, skx)
			}
			if math.Abs(a-bb) > 1e-12*math.Abs(a) {
				t.Errorf("%v: not symmetric: ⟨Kx,y⟩=%.17g, ⟨x,Ky⟩=%.17g", scheme, a, bb)
			}
			// K·1 = 1 for all weights, so its weight gradient is zero
			// (PreservesOnes; the interpolators skip that adjoint),
			// against the size of the gradient through K·x.
			g1, gx := make([]float64, g.NumEdges()), make([]float64, g.NumEdges())
			if err := h.Adjoint(nil, g1, ones, y, 1); err != nil {
				t.Fatal(err)
			}
			if err := h.Adjoint(nil, gx, x, y, 1); err != nil {
				t.Fatal(err)
			}
			// 1e-12: the chain of K·1 is 1 to round-off (the check above
			// bounds it by 1e-13), so its differences are round-off too.
			if m1, mx := floats.Norm(g1, math.Inf(1)), floats.Norm(gx, math.Inf(1)); !h.PreservesOnes() || !(m1 <= 1e-12*mx) {
				t.Errorf("%v: weight gradient through K·1 has max %.3g (through K·x %.3g), PreservesOnes %v",
					scheme, m1, mx, h.PreservesOnes())
			}
		}
	})
}

// TestSpecXiDelta checks the reference's kernel values (docs/method.md,
// "Reference values": 2-D n=8, t=1e-2, k_heat=5, vertex metric
// w = exp(0.3·cos(0.37 i + 1.1 p))).
func TestSpecXiDelta(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		g, _ := Cube(2, 8)
		vm := VertexMetric{G: g}
		theta := make([]float64, vm.NumParams())
		for p := 0; p < 2; p++ {
			for i := 0; i < g.N(); i++ {
				theta[p*g.N()+i] = math.Exp(0.3 * math.Cos(0.37*float64(i)+1.1*float64(p)))
			}
		}
		w := make([]float64, g.NumEdges())
		vm.Weights(w, theta)
		h := newHeat(t, g, HeatOptions{T: 1e-2, Steps: 5, Backend: b}, w)
		delta := make([]float64, g.N())
		delta[36] = 1
		u := make([]float64, g.N())
		if err := h.Apply(u, delta, 1); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, v := range u {
			sum += v
		}
		for _, c := range []struct {
			i    int
			want float64
		}{{36, 2.3911301591367939e-01}, {37, 9.7335930096186310e-02}, {44, 9.0949524202788720e-02}, {0, 1.0746649345249285e-05}} {
			if math.Abs(u[c.i]-c.want) > 1e-12*math.Abs(c.want) {
				t.Errorf("u[%d] = %.17g, want %.17g", c.i, u[c.i], c.want)
			}
		}
		if math.Abs(sum-0.99999999999999933) > 1e-13 {
			t.Errorf("sum = %.17g, want 0.99999999999999933", sum)
		}
	})
}

// objective is F(θ) = ⟨G, K(w(θ))·X⟩ for fixed blocks X and G.
type objective struct {
	h    *Heat
	m    Metric
	x, g []float64
	cols int
}

func (o *objective) value(t *testing.T, theta []float64) float64 {
	w := make([]float64, o.h.NumParams())
	o.m.Weights(w, theta)
	if err := o.h.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	y := make([]float64, len(o.x))
	if err := o.h.Apply(y, o.x, o.cols); err != nil {
		t.Fatal(err)
	}
	var f float64
	for i := range y {
		f += y[i] * o.g[i]
	}
	return f
}

func (o *objective) grad(t *testing.T, theta []float64) (gtheta, gsrc []float64) {
	w := make([]float64, o.h.NumParams())
	o.m.Weights(w, theta)
	if err := o.h.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	if o.h.opt.Memory == Store {
		y := make([]float64, len(o.x))
		if err := o.h.Apply(y, o.x, o.cols); err != nil {
			t.Fatal(err)
		}
	}
	gw := make([]float64, o.h.NumParams())
	gsrc = make([]float64, len(o.x))
	if err := o.h.Adjoint(gsrc, gw, o.x, o.g, o.cols); err != nil {
		t.Fatal(err)
	}
	gtheta = make([]float64, o.m.NumParams())
	o.m.WeightsAdjoint(gtheta, gw)
	return gtheta, gsrc
}

func TestAdjointFiniteDifferences(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		type tc struct {
			name   string
			g      *Graph
			vertex bool
			scheme Scheme
			memory Memory
			serial bool
			full   bool
		}
		g2, _ := Cube(2, 4)
		g3, _ := Cube(3, 3)
		gbig, _ := Cube(2, 10)
		gen, _ := FromEdges(6, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {0, 3}})
		cases := []tc{
			{"edge/2d/be", g2, false, BackwardEuler, Recompute, false, true},
			{"vertex/2d/be", g2, true, BackwardEuler, Recompute, false, true},
			{"edge/2d/cn", g2, false, CrankNicolson, Recompute, false, true},
			{"vertex/3d/cn", g3, true, CrankNicolson, Recompute, false, true},
			{"vertex/3d/be/serial", g3, true, BackwardEuler, Recompute, true, true},
			{"edge/general/be", gen, false, BackwardEuler, Recompute, false, true},
			{"edge/2d/be/store", g2, false, BackwardEuler, Store, false, true},
			{"vertex/2d/cn/store", g2, true, CrankNicolson, Store, false, true},
			{"vertex/3d/be/store/serial", g3, true, BackwardEuler, Store, true, true},
			{"vertex/2d-10/be/directional", gbig, true, BackwardEuler, Recompute, false, false},
			{"edge/2d-10/cn/directional", gbig, false, CrankNicolson, Recompute, false, false},
		}
		for ci, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(ci), 7))
				var m Metric = EdgeMetric{G: c.g}
				if c.vertex {
					m = VertexMetric{G: c.g}
				}
				opt := HeatOptions{T: 3e-2, Steps: 3, Scheme: c.scheme, Backend: b, Memory: c.memory, Serial: c.serial}
				h, err := NewHeat(c.g, &opt)
				if err != nil {
					t.Fatal(err)
				}
				defer h.Close()
				cols := 2
				if c.memory == Store {
					cols = 3 // an uneven split of the two recorded streams
				}
				o := &objective{h: h, m: m, x: randBlock(rng, c.g.N()*cols), g: randBlock(rng, c.g.N()*cols), cols: cols}
				for i := range o.g {
					o.g[i] -= 0.5
				}
				theta := randWeights(rng, m.NumParams(), 0.3, 3)
				gtheta, gsrc := o.grad(t, theta)
				const step = 1e-5
				fd := func(dir []float64) float64 {
					tp, tm := make([]float64, len(theta)), make([]float64, len(theta))
					for i := range theta {
						tp[i] = theta[i] + step*dir[i]
						tm[i] = theta[i] - step*dir[i]
					}
					return (o.value(t, tp) - o.value(t, tm)) / (2 * step)
				}
				if c.full {
					want := make([]float64, len(theta))
					dir := make([]float64, len(theta))
					for i := range theta {
						dir[i] = 1
						want[i] = fd(dir)
						dir[i] = 0
					}
					if e := relErr(gtheta, want); e > 1e-6 {
						t.Errorf("full gradient: relative error %.3g > 1e-6", e)
					}
				} else {
					for r := 0; r < 3; r++ {
						dir := randBlock(rng, len(theta))
						var got float64
						for i := range dir {
							dir[i] -= 0.55
							got += gtheta[i] * dir[i]
						}
						want := fd(dir)
						if math.Abs(got-want) > 1e-6*math.Abs(want) {
							t.Errorf("directional derivative %.12g, finite differences %.12g", got, want)
						}
					}
				}
				// The input gradient is K·g (K symmetric); F is linear in x so
				// ⟨gsrc, dx⟩ must equal F(x+dx) − F(x) up to round-off.
				var f0 float64
				f0 = o.value(t, theta)
				dx := randBlock(rng, len(o.x))
				var lin float64
				for i := range dx {
					o.x[i] += dx[i]
					lin += gsrc[i] * dx[i]
				}
				f1 := o.value(t, theta)
				if math.Abs((f1-f0)-lin) > 1e-10*math.Abs(lin) {
					t.Errorf("input gradient: ⟨gsrc,dx⟩=%.15g, F(x+dx)−F(x)=%.15g", lin, f1-f0)
				}
			})
		}
	})
}

func TestDisconnectedGraphKeepsMassPerComponent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		g, _ := FromEdges(6, [][2]int{{0, 1}, {1, 2}, {3, 4}, {4, 5}})
		h := newHeat(t, g, HeatOptions{Backend: b}, []float64{1, 2, 3, 4})
		x := []float64{1, 0, 0, 0, 0, 0}
		y := make([]float64, 6)
		if err := h.Apply(y, x, 1); err != nil {
			t.Fatal(err)
		}
		if y[3] != 0 || y[4] != 0 || y[5] != 0 {
			t.Errorf("mass crossed components: %v", y)
		}
		if s := y[0] + y[1] + y[2]; math.Abs(s-1) > 1e-14 {
			t.Errorf("component mass %.17g, want 1", s)
		}
	})
}

func TestHeatBadInput(t *testing.T) {
	g, _ := Cube(2, 3)
	h, err := NewHeat(g, &HeatOptions{Backend: Dense{}})
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, g.NumEdges())
	for i := range w {
		w[i] = 1
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		w[3] = bad
		if err := h.SetWeights(w); !errors.Is(err, ErrBadWeight) {
			t.Errorf("weight %v: err = %v, want ErrBadWeight", bad, err)
		}
	}
	mustPanic(t, "Apply before SetWeights", func() { h.Apply(make([]float64, 9), make([]float64, 9), 1) })
	w[3] = 1
	if err := h.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	mustPanic(t, "short block", func() { h.Apply(make([]float64, 9), make([]float64, 8), 1) })
	mustPanic(t, "cols mismatch", func() { h.Apply(make([]float64, 9), make([]float64, 9), 2) })
	mustPanic(t, "short gw", func() { h.Adjoint(nil, make([]float64, 3), make([]float64, 9), make([]float64, 9), 1) })
	mustPanic(t, "short weights", func() { h.SetWeights(w[:2]) })
	h.Close()
	h.Close() // idempotent
	mustPanic(t, "use after Close", func() { h.Apply(make([]float64, 9), make([]float64, 9), 1) })
	for _, opt := range []HeatOptions{{T: -1}, {T: math.Inf(1)}, {Steps: -2}, {Alpha: math.NaN()}, {Scheme: 7}} {
		opt.Backend = Dense{}
		if _, err := NewHeat(g, &opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

func TestApplyAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	g, _ := Cube(2, 10)
	forEachBackend(t, func(t *testing.T, b factor.Factorizer) {
		for _, scheme := range []Scheme{BackwardEuler, CrankNicolson} {
			w := make([]float64, g.NumEdges())
			for i := range w {
				w[i] = 1
			}
			h := newHeat(t, g, HeatOptions{Backend: b, Scheme: scheme}, w)
			cols := 4
			x, y := randBlock(rand.New(rand.NewPCG(1, 1)), g.N()*cols), make([]float64, g.N()*cols)
			gw := make([]float64, g.NumEdges())
			gx := make([]float64, len(x))
			h.Apply(y, x, cols)
			h.Adjoint(gx, gw, x, y, cols)
			if a := testing.AllocsPerRun(5, func() { h.Apply(y, x, cols) }); a > 0 {
				t.Errorf("%v: Apply allocates %v times", scheme, a)
			}
			if a := testing.AllocsPerRun(5, func() { h.Adjoint(gx, gw, x, y, cols) }); a > 0 {
				t.Errorf("%v: Adjoint allocates %v times", scheme, a)
			}
		}
	})
}

// TestApplyThreadsBitwise checks that Apply on one thread and on two gives
// the same bits: on a 2-D 20² grid, whose solves split the factor's tree
// over both workers, on a 1-D path in its natural order (a chain, solved
// on one worker whatever the threads), and outside short mode on a 16³
// grid, for widths of one panel and more.
func TestApplyThreadsBitwise(t *testing.T) {
	b := cholmodOnTwoCores(t)
	grid, _ := Cube(2, 20)
	var path [][2]int
	for i := 0; i+1 < 300; i++ {
		path = append(path, [2]int{i, i + 1})
	}
	chain, err := FromEdges(300, path)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		g     *Graph
		order factor.Ordering
	}{{"grid", grid, factor.OrderingDefault}, {"path", chain, factor.OrderingNatural}}
	if !testing.Short() {
		cube, _ := Cube(3, 16)
		cases = append(cases, struct {
			name  string
			g     *Graph
			order factor.Ordering
		}{"cube", cube, factor.OrderingDefault})
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(9, 9))
		w := randWeights(rng, tc.g.NumEdges(), 0.3, 3)
		opt := HeatOptions{T: 3e-3, Steps: 6, Backend: b, Ordering: tc.order, Threads: 2}
		par := newHeat(t, tc.g, opt, w)
		opt.Threads = 1
		one := newHeat(t, tc.g, opt, w)
		for _, cols := range []int{2, 5, 18} {
			x := randBlock(rng, tc.g.N()*cols)
			want := make([]float64, len(x))
			if err := one.Apply(want, x, cols); err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(x))
			if err := par.Apply(got, x, cols); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s, cols=%d: entry %d is %v on two threads, %v on one", tc.name, cols, i, got[i], want[i])
				}
			}
		}
	}
}

// cholmodOnTwoCores returns the cholmod backend, skipping the test in a
// build without it, and lets the test use two cores (GOMAXPROCS 2, put back
// when it ends).
func cholmodOnTwoCores(t *testing.T) factor.Factorizer {
	t.Helper()
	b, err := Backend("cholmod")
	if err != nil {
		t.Skip("no cholmod backend in this build")
	}
	prev := runtime.GOMAXPROCS(2)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	return b
}
