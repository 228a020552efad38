package learn

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot"
)

// recoveryData generates sequences with a known non-uniform metric on a 2-D
// grid of side n, with our own forward model.
func recoveryData(t testing.TB, n int, heat kernel.HeatOptions, frames, iters int) (*kernel.Graph, []Sequence, []float64) {
	g, _ := kernel.Cube(2, n)
	theta := synth.AnalyticMetric(n)
	poles := []struct{ a, b synth.Pole }{
		{synth.StickTopLeft, synth.StickBottomRight},
		{synth.Pole{Shape: "gauss", X0: 0.15, Y0: 0.5, Sigma: 0.08}, synth.Pole{Shape: "gauss", X0: 0.85, Y0: 0.5, Sigma: 0.08}},
		{synth.Pole{Shape: "gauss", X0: 0.5, Y0: 0.15, Sigma: 0.08}, synth.Pole{Shape: "gauss", X0: 0.5, Y0: 0.85, Sigma: 0.08}},
		{synth.Pole{Shape: "gauss", X0: 0.8, Y0: 0.2, Sigma: 0.08}, synth.Pole{Shape: "gauss", X0: 0.2, Y0: 0.8, Sigma: 0.08}},
	}
	cfg := &synth.Config{Graph: g, Metric: kernel.VertexMetric{G: g}, Theta: theta, Heat: heat, Iterations: iters, Frames: frames, RawEndpoints: true}
	for _, pq := range poles {
		p, err := pq.a.Histogram(2, n)
		if err != nil {
			t.Fatal(err)
		}
		q, err := pq.b.Histogram(2, n)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Poles = append(cfg.Poles, [2][]float64{p, q})
	}
	out, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([]Sequence, len(out))
	for s := range out {
		seqs[s].Frames = out[s]
	}
	return g, seqs, theta
}

// TestRecovery fits four sequences generated from a known metric (the
// reference's analytic metric of docs/method.md, "Synthetic data", on a 12×12
// grid) and checks that the loss drops at least 10× and that the learned edge
// weights correlate with the true ones (Pearson ≥ 0.7) on the edges that
// carry mass: those whose endpoints hold, in some frame of some sequence, at
// least a quarter of the mean mass per vertex (here every edge qualifies).
//
// The data are made consistent with the model: the first and last frames
// are the raw poles (synth.Config.RawEndpoints) and left out of the loss
// (Config.SkipEndpoints), so the true metric gives zero data loss. Measured
// (60 iterations, λ_s = 0.01): F 4.435 → 0.0345 (129×), Pearson 0.993; with
// the reference's endpoint handling instead, F plateaus at 1.7 (4.6×, below
// F = 6.0 at the true metric) and Pearson is 0.62 — the blurred endpoints are
// what the metric then fits. GMLG_RECOVERY_N="n L maxIter" overrides the size.
func TestRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("recovery experiment skipped in -short mode")
	}
	n, iters, maxIter := 12, 30, 60
	if v := os.Getenv("GMLG_RECOVERY_N"); v != "" {
		fmt.Sscan(v, &n, &iters, &maxIter)
	}
	heat := kernel.HeatOptions{T: 3e-3, Steps: 10}
	g, seqs, truth := recoveryData(t, n, heat, 5, iters)
	o, err := NewObjective(g, seqs, &Config{Heat: heat, Sinkhorn: ot.Settings{Iterations: iters}, LambdaS: 0.01, RegularizeOnce: true, SkipEndpoints: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	x0 := make([]float64, o.Dim())
	res, err := Minimize(context.Background(), o, x0, &Settings{MaxIter: maxIter, Observer: IterationFunc(func(p *Progress) error {
		if p.Iter%10 == 0 {
			t.Logf("iteration %d: F=%.5g ‖g‖=%.3g evaluations %d (%v)", p.Iter, p.F, p.GradNorm, p.Evals, p.Elapsed.Round(time.Millisecond))
		}
		return nil
	})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	interior := func() (s float64) {
		for _, pf := range o.LastTerms().PerFrame {
			for j := 1; j < len(pf)-1; j++ {
				s += pf[j]
			}
		}
		return s
	}
	fEnd, _ := o.Eval(nil, res.X)
	iEnd := interior()
	f0, _ := o.Eval(nil, x0)
	i0 := interior()
	xt := make([]float64, len(truth))
	for i, v := range truth {
		xt[i] = math.Log(v)
	}
	fTrue, _ := o.Eval(nil, xt)
	iTrue := interior()
	t.Logf("F: start %.4g, learned %.4g, truth %.4g; interior frames only: start %.4g, learned %.4g, truth %.4g", f0, fEnd, fTrue, i0, iEnd, iTrue)
	wTrue := make([]float64, g.NumEdges())
	o.Metric().Weights(wTrue, truth)
	theta := make([]float64, len(res.X))
	for i, v := range res.X {
		theta[i] = math.Exp(v)
	}
	wLearn := make([]float64, g.NumEdges())
	o.Metric().Weights(wLearn, theta)
	mass := make([]float64, g.N())
	for _, sq := range seqs {
		for _, f := range sq.Frames {
			for i, v := range f {
				mass[i] = math.Max(mass[i], v)
			}
		}
	}
	mask := make([]bool, g.NumEdges())
	used := 0
	for e := range mask {
		i, j := g.Edge(e)
		mask[e] = mass[i] >= 0.25/float64(g.N()) && mass[j] >= 0.25/float64(g.N())
		if mask[e] {
			used++
		}
	}
	r, _ := synth.Pearson(wTrue, wLearn, mask)
	t.Logf("F: %.4g → %.4g (%.1f×) in %d iterations (%v); Pearson(true, learned) = %.3f on %d/%d edges",
		f0, res.F, f0/res.F, res.State.Iter, res.Status, r, used, g.NumEdges())
	if f0/res.F < 10 {
		t.Errorf("loss dropped only %.2f×, want ≥ 10×", f0/res.F)
	}
	if r < 0.7 {
		t.Errorf("Pearson correlation %.3f < 0.7", r)
	}
}
