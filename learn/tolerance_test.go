package learn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
	"gonum.org/v1/gonum/diff/fd"
)

func maxRelErr(got, want []float64) float64 {
	var d, m float64
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		m = math.Max(m, math.Abs(want[i]))
	}
	return d / m
}

// TestToleranceGradient checks ∇F of the tolerance-mode objective against
// central finite differences of the converged objective (relative error ≤
// 1e-5) on small grids.
func TestToleranceGradient(t *testing.T) {
	g2, _ := kernel.Cube(2, 4)
	g3, _ := kernel.Cube(3, 3)
	cases := []struct {
		name   string
		g      *kernel.Graph
		metric MetricKind
		loss   ot.Loss
		lc, ls float64
		nseq   int
		skip   bool
	}{
		{"2d/vertex/l2", g2, VertexMetric, ot.L2, 0, 0, 1, false},
		{"2d/vertex/kl/reg/2seq", g2, VertexMetric, ot.KL, 0.3, 0.2, 2, false},
		{"2d/edge/l1/skip", g2, EdgeMetric, ot.L1, 0, 0.5, 1, true},
		{"3d/vertex/l2/reg", g3, VertexMetric, ot.L2, 0.5, 0.7, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			seqs := randSeqs(rng, tc.g.N(), tc.nseq, 4)
			cfg := &Config{Heat: kernel.HeatOptions{T: 0.05, Steps: 4}, Metric: tc.metric, Loss: tc.loss,
				LambdaC: tc.lc, LambdaS: tc.ls, SkipEndpoints: tc.skip}
			obj, err := NewObjective(tc.g, seqs, withSinkhorn(*cfg, ot.Settings{Tol: 1e-14}))
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			x := make([]float64, obj.Dim())
			for i := range x {
				x[i] = 0.3 * (rng.Float64() - 0.5)
			}
			grad := make([]float64, len(x))
			if _, err := obj.Eval(grad, x); err != nil {
				t.Fatal(err)
			}
			if st := obj.Stats(); !st.Converged || !st.AdjointConverged {
				t.Fatalf("not converged: %+v", st)
			}
			want := fd.Gradient(nil, func(x []float64) float64 {
				f, err := obj.Eval(nil, x)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}, x, &fd.Settings{Formula: fd.Central, Step: 1e-5})
			if e := maxRelErr(grad, want); e > 1e-5 || math.IsNaN(e) {
				t.Errorf("relative error %.3g", e)
			}
		})
	}
}

// TestToleranceEqualsExactManyIterations: with L large enough for exact
// mode to converge, the exact and tolerance-mode objectives and gradients agree.
func TestToleranceEqualsExactManyIterations(t *testing.T) {
	g, _ := kernel.Cube(2, 5)
	rng := rand.New(rand.NewPCG(3, 4))
	seqs := randSeqs(rng, g.N(), 2, 5)
	cfg := &Config{Heat: kernel.HeatOptions{T: 0.05, Steps: 4}, LambdaS: 0.5}
	fast, err := NewObjective(g, seqs, withSinkhorn(*cfg, ot.Settings{Tol: 1e-14}))
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	x := make([]float64, fast.Dim())
	for i := range x {
		x[i] = 0.4 * (rng.Float64() - 0.5)
	}
	gf := make([]float64, len(x))
	ff, err := fast.Eval(gf, x)
	if err != nil {
		t.Fatal(err)
	}
	ecfg := *cfg
	ecfg.Sinkhorn.Iterations = 3*fast.Stats().Iterations + 20
	exact, err := NewObjective(g, seqs, &ecfg)
	if err != nil {
		t.Fatal(err)
	}
	defer exact.Close()
	ge := make([]float64, len(x))
	fe, err := exact.Eval(ge, x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ff-fe) > 1e-10*math.Abs(fe) {
		t.Errorf("F fast %v, exact (L = %d) %v", ff, ecfg.Sinkhorn.Iterations, fe)
	}
	if e := maxRelErr(gf, ge); e > 1e-7 {
		t.Errorf("gradients differ by %.3g (relative)", e)
	}
}

// acceptCounter counts Accept calls.
type acceptCounter struct {
	Function
	n     int
	lastF float64
}

func (a *acceptCounter) Accept(x []float64, f float64) { a.n++; a.lastF = f }

// TestMinimizeCallsAccepter: Accept once for x0 and once per accepted
// iteration, with the accepted value.
func TestMinimizeCallsAccepter(t *testing.T) {
	fn := &acceptCounter{Function: rosenbrock()}
	res, err := Minimize(context.Background(), fn, []float64{-1.2, 1, -1.2, 1}, &Settings{MaxIter: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fn.n != res.State.Iter+1 || fn.lastF != res.F {
		t.Errorf("%d Accept calls (last F %v) for %d iterations (F %v)", fn.n, fn.lastF, res.State.Iter, res.F)
	}
}

// TestToleranceWarmBookkeeping: an evaluation after a rejected far trial starts
// from the accepted point's scalings (converged at once when back at that
// point), and so does one after RestoreAccepted; ResetWarm starts cold.
func TestToleranceWarmBookkeeping(t *testing.T) {
	g, _ := kernel.Cube(2, 5)
	rng := rand.New(rand.NewPCG(7, 8))
	seqs := randSeqs(rng, g.N(), 1, 4)
	cfg := &Config{Heat: kernel.HeatOptions{T: 0.02, Steps: 4}}
	x0 := make([]float64, 2*g.N())
	far := make([]float64, len(x0))
	for i := range far {
		far[i] = rng.Float64() - 0.5
	}
	obj, err := NewObjective(g, seqs, withSinkhorn(*cfg, ot.Settings{Tol: 1e-10}))
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	eval := func(x []float64) int {
		t.Helper()
		if _, err := obj.Eval(nil, x); err != nil {
			t.Fatal(err)
		}
		return obj.Stats().Iterations
	}
	cold := eval(x0)
	obj.Accept(x0, 0)
	eval(far)
	if back := eval(x0); back > 2 {
		t.Errorf("%d iterations back at the accepted point (cold %d)", back, cold)
	}
	eval(far)
	obj.RestoreAccepted()
	if it := eval(x0); it > 2 {
		t.Errorf("%d iterations after RestoreAccepted", it)
	}
	obj.ResetWarm()
	if it := eval(x0); it != cold {
		t.Errorf("after ResetWarm: %d iterations, want the cold %d", it, cold)
	}
}

// TestToleranceAdaptiveTol: with LooseTol the tolerance starts loose and
// tightens as the gradient falls, within [Tol, LooseTol].
func TestToleranceAdaptiveTol(t *testing.T) {
	heat := kernel.HeatOptions{T: 3e-3, Steps: 5}
	g, seqs, _ := recoveryData(t, 9, heat, 4, 30)
	obj, err := NewObjective(g, seqs, &Config{Heat: heat, LambdaS: 0.01, SkipEndpoints: true,
		LooseTol: 1e-5, Sinkhorn: ot.Settings{Tol: 1e-10}})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if tol, atol := obj.Tol(); tol != 1e-5 || atol != 1e-5 {
		t.Fatalf("initial tolerances %v, %v, want 1e-5", tol, atol)
	}
	var g0 float64
	res, err := Minimize(context.Background(), obj, make([]float64, obj.Dim()), &Settings{MaxIter: 8, Observer: IterationFunc(func(p *Progress) error {
		tol, _ := obj.Tol()
		if g0 == 0 {
			g0 = p.GradMax
		}
		if tol < 1e-10 || tol > 1e-5 {
			t.Errorf("iteration %d: tolerance %v outside [1e-10, 1e-5]", p.Iter, tol)
		}
		return nil
	})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tol, _ := obj.Tol()
	gmax := 0.0
	for _, v := range res.State.G {
		gmax = math.Max(gmax, math.Abs(v))
	}
	if !(tol < 1e-5) {
		t.Errorf("tolerance did not tighten: %v (‖g‖∞ %v, first %v, %d iterations, %v)", tol, gmax, obj.gmax0, res.State.Iter, res.Status)
	}
}

// TestCoarseToFineErrors: the settings Run refuses.
func TestCoarseToFineErrors(t *testing.T) {
	g, _ := kernel.Cube(2, 5)
	rect, _ := kernel.Grid(5, 4)
	gen, _ := kernel.FromEdges(3, [][2]int{{0, 1}, {1, 2}})
	rng := rand.New(rand.NewPCG(11, 12))
	seqs := randSeqs(rng, g.N(), 1, 3)
	one := []Level{{Coarsen: 1}}
	cases := []struct {
		name string
		g    *kernel.Graph
		cfg  Config
		set  RunSettings
	}{
		{"general graph", gen, Config{Metric: EdgeMetric}, RunSettings{Coarse: one}},
		{"edge metric", g, Config{Metric: EdgeMetric}, RunSettings{Coarse: one}},
		{"unequal extents", rect, Config{}, RunSettings{Coarse: one}},
		{"alpha set", g, Config{Heat: kernel.HeatOptions{Alpha: 2}}, RunSettings{Coarse: one}},
		{"finest level listed", g, Config{}, RunSettings{Coarse: []Level{{Coarsen: 1}, {Coarsen: 0}}}},
		{"not decreasing", g, Config{}, RunSettings{Coarse: []Level{{Coarsen: 1}, {Coarsen: 1}}}},
		{"too coarse", g, Config{}, RunSettings{Coarse: []Level{{Coarsen: 3}}}},
		{"polish in exact mode", g, Config{}, RunSettings{Polish: Polish{Iters: 1}}},
		{"negative checkpoint spacing", g, Config{}, RunSettings{CheckpointEvery: -1}},
	}
	for _, tc := range cases {
		if _, err := Run(context.Background(), tc.g, seqs, &tc.cfg, &tc.set); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// withSinkhorn returns cfg with the Sinkhorn settings s.
func withSinkhorn(cfg Config, s ot.Settings) *Config {
	cfg.Sinkhorn = s
	return &cfg
}

// TestCheckCorrection: a correction is refused exactly when it would make
// the data term negative. The values come from a 32³ fast-mode run on
// seldovia2 (colorlearn --mode fast --bins 32 --coarse 0): 1309.6 is the
// objective at iteration 13, taken as a data term with corrections of the
// size that run met (and the bound itself); 57465.8 and −6.16722e11 are the
// data term and correction of iteration 14's first trial.
func TestCheckCorrection(t *testing.T) {
	for _, tc := range []struct {
		data, c float64
		ok      bool
	}{
		{1309.6, 0.004, true},
		{1309.6, -0.3, true},
		{1309.6, -1309.6, true},
		{57465.8, -6.16722e11, false},
		{1, -1.0000001, false},
		{0, 0, true},
		{0, -1e-300, false},
	} {
		err := checkCorrection(tc.data, tc.c)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, errCorrection)) {
			t.Errorf("data %v, correction %v: err = %v, want ok = %v", tc.data, tc.c, err, tc.ok)
		}
	}
}
