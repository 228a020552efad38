package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
	"gonum.org/v1/gonum/diff/fd"
)

// randSeqs makes nseq sequences of frames with positive random entries.
func randSeqs(rng *rand.Rand, n, nseq, frames int) []Sequence {
	seqs := make([]Sequence, nseq)
	for s := range seqs {
		for j := 0; j < frames; j++ {
			f := make([]float64, n)
			var sum float64
			for i := range f {
				f[i] = 0.2 + rng.Float64()
				sum += f[i]
			}
			for i := range f {
				f[i] /= sum
			}
			seqs[s].Frames = append(seqs[s].Frames, f)
		}
	}
	return seqs
}

// TestObjectiveGradient checks ∇F against central finite differences of F
// (gonum fd.Gradient) over losses, metrics, regularisers, schemes, 2-D, 3-D
// and a general graph. Relative error ≤ 1e-6.
func TestObjectiveGradient(t *testing.T) {
	g2, _ := kernel.Cube(2, 4)
	g3, _ := kernel.Cube(3, 3)
	gen, _ := kernel.FromEdges(7, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 0}, {0, 3}, {2, 5}})
	type tc struct {
		name   string
		g      *kernel.Graph
		metric MetricKind
		loss   ot.Loss
		lc, ls float64
		smooth Smoothness
		scheme kernel.Scheme
		nseq   int
		times  bool
		skip   bool
	}
	cases := []tc{
		{"2d/vertex/l2", g2, VertexMetric, ot.L2, 0, 0, SmoothNorm, kernel.BackwardEuler, 1, false, false},
		{"2d/vertex/l1/reg", g2, VertexMetric, ot.L1, 0.5, 0.7, SmoothNorm, kernel.BackwardEuler, 1, false, false},
		{"2d/vertex/kl/reg2seq", g2, VertexMetric, ot.KL, 0.3, 0.2, SmoothNorm, kernel.BackwardEuler, 2, false, false},
		{"2d/edge/l2/squared", g2, EdgeMetric, ot.L2, 0.4, 0.3, SmoothSquared, kernel.BackwardEuler, 1, false, false},
		{"2d/edge/kl/cn/times", g2, EdgeMetric, ot.KL, 0, 0.5, SmoothNorm, kernel.CrankNicolson, 2, true, false},
		{"3d/vertex/l2/reg", g3, VertexMetric, ot.L2, 0.5, 0.7, SmoothNorm, kernel.BackwardEuler, 1, false, false},
		{"3d/edge/l1", g3, EdgeMetric, ot.L1, 0, 0.4, SmoothSquared, kernel.BackwardEuler, 1, false, false},
		{"general/edge/l2/reg", gen, EdgeMetric, ot.L2, 0.2, 0.6, SmoothNorm, kernel.BackwardEuler, 2, false, false},
		{"2d/vertex/l2/skip-endpoints", g2, VertexMetric, ot.L2, 0, 0.3, SmoothNorm, kernel.BackwardEuler, 2, false, true},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 11))
			seqs := randSeqs(rng, c.g.N(), c.nseq, 4)
			if c.times {
				for s := range seqs {
					seqs[s].Times = []float64{0, 0.2, 0.7, 1}
				}
			}
			o, err := NewObjective(c.g, seqs, &Config{
				Heat:     kernel.HeatOptions{T: 2e-2, Steps: 3, Scheme: c.scheme, Backend: kernel.Dense{}},
				Sinkhorn: ot.Settings{Iterations: 6}, Loss: c.loss, Metric: c.metric, LambdaC: c.lc, LambdaS: c.ls, Smooth: c.smooth, SkipEndpoints: c.skip,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			x := make([]float64, o.Dim())
			for i := range x {
				x[i] = 0.4 * (rng.Float64() - 0.5)
			}
			grad := make([]float64, len(x))
			if _, err := o.Eval(grad, x); err != nil {
				t.Fatal(err)
			}
			want := fd.Gradient(nil, func(x []float64) float64 {
				f, err := o.Eval(nil, x)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			var num, den float64
			for i := range grad {
				num += (grad[i] - want[i]) * (grad[i] - want[i])
				den += want[i] * want[i]
			}
			if e := math.Sqrt(num / den); e > 1e-6 {
				t.Errorf("gradient relative error %.3g > 1e-6", e)
			}
		})
	}
}

// TestLBFGSTrajectory compares the optimiser with the reference's scipy
// L-BFGS-B run of docs/method.md, "Reference values" (2-D n=8, λ_c=0.5,
// λ_s=0.7, L2, x0 the closed-form log-metric, max_iter = 8).
func TestLBFGSTrajectory(t *testing.T) {
	g, _ := kernel.Cube(2, 8)
	seqs, x0 := specInputs(64, 4, 2)
	o, err := NewObjective(g, seqs, &Config{Heat: kernel.HeatOptions{T: 1e-2, Steps: 5, Backend: kernel.Dense{}},
		Sinkhorn: ot.Settings{Iterations: 10}, LambdaC: 0.5, LambdaS: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	res, err := Minimize(context.Background(), o, x0, &Settings{MaxIter: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{4.3323761755808761, 1.6146651969357995, 1.4476754127004920, 1.3490902760285264,
		1.2463710516008029, 1.1729612095673834, 1.1183439310911223, 1.0810313791088664}
	t.Logf("losses %v, evaluations %d (reference: 13)", res.State.Losses, res.State.Evals)
	if len(res.State.Losses) != len(want) {
		t.Fatalf("%d iterations, want %d", len(res.State.Losses), len(want))
	}
	for k := range want {
		if !close(res.State.Losses[k], want[k], 1e-9) {
			t.Errorf("iteration %d: F=%.17g, reference %.17g", k+1, res.State.Losses[k], want[k])
		}
	}
	if !close(math.Exp(res.X[0]), 1.0425393128198981, 1e-9) || !close(math.Exp(res.X[64+9]), 0.99371529032988482, 1e-9) || res.State.Evals != 13 {
		t.Errorf("final w[0,0]=%.17g w[1,9]=%.17g", math.Exp(res.X[0]), math.Exp(res.X[73]))
	}
}

// TestObjectiveMemoryBytes checks MemoryBytes against the arrays an
// Objective allocates besides its kernel and regulariser: the
// interpolator's workspace (ot.Interpolator.MemoryBytes, itself checked
// against its arrays in package ot), the frames and their loss gradients,
// θ, its gradient, the edge weights and theirs.
func TestObjectiveMemoryBytes(t *testing.T) {
	g, _ := kernel.Cube(2, 4)
	rng := rand.New(rand.NewPCG(3, 4))
	seqs := append(randSeqs(rng, g.N(), 1, 4), randSeqs(rng, g.N(), 1, 3)...)
	for _, s := range []ot.Settings{{Iterations: 4}, {Iterations: 4, IterateEndpoints: true},
		{Tol: 1e-6, Gradient: ot.ImplicitGMRES, Anderson: 2}} {
		obj, err := NewObjective(g, seqs, &Config{Heat: kernel.HeatOptions{T: 1e-2, Steps: 2}, Sinkhorn: s})
		if err != nil {
			t.Fatal(err)
		}
		f := len(obj.theta) + len(obj.gtheta) + len(obj.w) + len(obj.gw)
		for s := range obj.obs {
			for j := range obj.obs[s] {
				f += len(obj.obs[s][j]) + len(obj.grec[s][j])
			}
		}
		if got, want := obj.MemoryBytes(), 8*f+obj.interp.MemoryBytes(); got != want {
			t.Errorf("%+v: MemoryBytes %d, want %d", s, got, want)
		}
		obj.Close()
	}
}
