package dataset_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/ot"
)

// The two examples below are the "Use it from Go" programs of README.md;
// TestReadmeExamples checks that the README shows them unchanged.

func TestReadmeExamples(t *testing.T) {
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Example_learnMetric", "Example_interpolate"} {
		start := bytes.Index(src, []byte("func "+name+"()"))
		end := bytes.Index(src[start:], []byte("\n}\n"))
		if start < 0 || end < 0 {
			t.Fatalf("%s not found", name)
		}
		code := src[start : start+end+3]
		if !bytes.Contains(readme, append(append([]byte("```go\n"), code...), "```"...)) {
			t.Errorf("README.md does not show %s as it is in readme_example_test.go:\n%s", name, code)
		}
	}
}

// Learn a metric from a folder of frames (testdata/blobs: a blob crossing
// an 8×8 grid in three frames) and save it.
func Example_learnMetric() {
	set, err := dataset.Load("testdata/blobs", nil)
	if err != nil {
		log.Fatal(err)
	}
	g, _ := set.Graph() // no error after a successful Load
	obj, err := learn.NewObjective(g, set.LearnSequences(), &learn.Config{Sinkhorn: ot.Settings{Iterations: 20}, LambdaS: 0.1})
	if err != nil {
		log.Fatal(err)
	}
	defer obj.Close()
	x0 := make([]float64, obj.Dim()) // log θ = 0: the uniform metric
	f0, _ := obj.Eval(nil, x0)
	res, err := learn.Minimize(context.Background(), obj, x0, &learn.Settings{MaxIter: 5}, nil)
	if err != nil {
		log.Fatal(err)
	}
	theta := learn.Exp(nil, res.X) // the metric θ = e^x of the optimiser's x
	if err := dataset.WriteMetric(filepath.Join(os.TempDir(), "metric.npy"), g, learn.VertexMetric, theta); err != nil {
		log.Fatal(err)
	}
	fmt.Println("objective decreased:", res.F < f0)
	// Output: objective decreased: true
}

// Interpolate between the first and last frame of the folder under the
// uniform metric, with a heat kernel and a Sinkhorn interpolator.
func Example_interpolate() {
	set, err := dataset.Load("testdata/blobs", nil)
	if err != nil {
		log.Fatal(err)
	}
	g, _ := set.Graph() // no error after a successful Load
	heat, err := kernel.NewHeat(g, &kernel.HeatOptions{T: 1e-2, Steps: 10})
	if err != nil {
		log.Fatal(err)
	}
	defer heat.Close()
	if err := heat.SetWeights(slices.Repeat([]float64{1}, g.NumEdges())); err != nil {
		log.Fatal(err)
	}
	q := set.Sequences[0].Frames
	ip, err := ot.NewInterpolator(heat, []ot.Sequence{{Source: q[0].Data, Target: q[2].Data, Frames: 5}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	recs, err := ip.Forward()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("row 3 at t = 0.5: %.3f\n", recs[0][2][3*8:4*8]) // the blob half-way
	// Output: row 3 at t = 0.5: [0.010 0.024 0.043 0.057 0.057 0.043 0.024 0.010]
}
