package synth_test

import (
	"context"
	"math"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/synth"
)

// TestSphere checks the geodesic sphere: 10k² + 2 vertices on the unit
// sphere, 30k² edges, every vertex with 5 or 6 neighbours, connected.
func TestSphere(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{1, 1}, {10, 3}, {20, 6}} {
		sg, err := synth.Sphere(tc.n)
		if err != nil {
			t.Fatal(err)
		}
		g := sg.G
		if g.N() != 10*tc.k*tc.k+2 || g.NumEdges() != 30*tc.k*tc.k || sg.Dim != 3 || len(sg.Coords) != 3*g.N() {
			t.Errorf("n %d: %d vertices, %d edges, coordinates [%d,%d]; want %d, %d, [N,3]",
				tc.n, g.N(), g.NumEdges(), len(sg.Coords)/sg.Dim, sg.Dim, 10*tc.k*tc.k+2, 30*tc.k*tc.k)
		}
		for i := range g.N() {
			c := sg.Coords[3*i : 3*i+3]
			if r := math.Sqrt(c[0]*c[0] + c[1]*c[1] + c[2]*c[2]); math.Abs(r-1) > 1e-12 {
				t.Fatalf("n %d: vertex %d at radius %v", tc.n, i, r)
			}
		}
		deg := make([]int, g.N())
		for e := range g.NumEdges() {
			i, j := g.Edge(e)
			deg[i]++
			deg[j]++
		}
		for i, d := range deg {
			if d != 5 && d != 6 {
				t.Fatalf("n %d: vertex %d has %d neighbours", tc.n, i, d)
			}
		}
		if c := g.Components(); c != 1 {
			t.Errorf("n %d: %d components", tc.n, c)
		}
	}
}

// TestGraphPole checks that a pole on a graph is a histogram peaked at the
// image of its centre: on the sphere, the square's centre is (0, 0, 1).
func TestGraphPole(t *testing.T) {
	sg, err := synth.Sphere(10)
	if err != nil {
		t.Fatal(err)
	}
	h := sg.Pole(synth.Pole{Shape: "gauss", X0: 0.5, Y0: 0.5, Sigma: 0.07})
	sum, top := 0.0, 0
	for i, v := range h {
		sum += v
		if v > h[top] {
			top = i
		}
	}
	if math.Abs(sum-1) > 1e-12 || sg.Coords[3*top+2] < 0.9 {
		t.Errorf("sum %v, peak at %v; want 1 and near (0, 0, 1)", sum, sg.Coords[3*top:3*top+3])
	}
}

// TestGraphsLearnTrueMetric makes a dataset on each kind of graph with the
// forward model, learns the edge weights back from the frames alone and
// checks that they correlate with the true ones (the slow region) at 0.9
// or more on the edges that carry mass (CarriesMass; the data say nothing
// about the others).
func TestGraphsLearnTrueMetric(t *testing.T) {
	geometric := func() (*synth.Graph, error) { return synth.Geometric(10, 1) }
	sphere := func() (*synth.Graph, error) { return synth.Sphere(14) }
	for _, tc := range []struct {
		name  string
		graph func() (*synth.Graph, error)
	}{{"geometric", geometric}, {"sphere", sphere}} {
		t.Run(tc.name, func(t *testing.T) {
			sg, err := tc.graph()
			if err != nil {
				t.Fatal(err)
			}
			r, used := learnBack(t, sg)
			t.Logf("%s: %d vertices; correlation %.3f on the %d of %d edges that carry mass", tc.name, sg.G.N(), r, used, sg.G.NumEdges())
			if r < 0.9 {
				t.Errorf("correlation of learned and true weights %.3f, want ≥ 0.9", r)
			}
			if used < sg.G.NumEdges()/3 {
				t.Errorf("only %d of %d edges carry mass", used, sg.G.NumEdges())
			}
		})
	}
}

// learnBack generates three sequences of four frames on sg under its true
// weights, learns edge weights from them (20 L-BFGS iterations from the
// uniform metric) and returns the correlation with the truth on the edges
// that carry mass, and how many do.
func learnBack(t *testing.T, sg *synth.Graph) (float64, int) {
	heat := kernel.HeatOptions{T: 0.2, Steps: 10, Backend: goBackend(t)}
	cfg := &synth.Config{Graph: sg.G, Metric: kernel.EdgeMetric{G: sg.G}, Theta: sg.Weights, Heat: heat, Frames: 4, RawEndpoints: true}
	for _, pq := range synth.PolePairs[:3] {
		cfg.Poles = append(cfg.Poles, [2][]float64{sg.Pole(pq[0]), sg.Pole(pq[1])})
	}
	frames, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([]learn.Sequence, len(frames))
	for s := range frames {
		seqs[s].Frames = frames[s]
	}
	obj, err := learn.NewObjective(sg.G, seqs, &learn.Config{Heat: heat, Metric: learn.EdgeMetric, LambdaS: 1e-3, SkipEndpoints: true})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	res, err := learn.Minimize(context.Background(), obj, make([]float64, obj.Dim()), &learn.Settings{MaxIter: 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, len(res.State.X))
	for e, x := range res.State.X {
		w[e] = math.Exp(x)
	}
	mass := synth.CarriesMass(sg.G, frames)
	used := 0
	for _, c := range mass {
		if c {
			used++
		}
	}
	r, ok := synth.Pearson(sg.Weights, w, mass)
	if !ok {
		t.Fatal("correlation undefined")
	}
	return r, used
}

// goBackend returns the pure-Go factorisation backend, which every build
// has.
func goBackend(t *testing.T) factor.Factorizer {
	b, err := kernel.Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
