package learn_test

import (
	"context"
	"fmt"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot"
	"gonum.org/v1/gonum/floats"
)

// portableBackend returns the pure-Go factorisation on gonum's BLAS
// ("go-purego" in cgo builds, "go" without cgo), whose numbers do not
// depend on the machine's BLAS kernels.
func portableBackend() factor.Factorizer {
	if b, err := kernel.Backend("go-purego"); err == nil {
		return b
	}
	b, _ := kernel.Backend("go")
	return b
}

// Exact mode, the reference's model: each frame is reconstructed by L = 10
// Sinkhorn iterations from scratch between the sequence's first and last
// frames, and F's gradient is the exact one through them. The data are
// toy's four frames on a 10×10 grid; the optimiser starts from the
// Euclidean metric (x = log θ = 0), and the learned metric is θ = exp(x),
// one value per vertex and axis. The kernel factorises in pure Go
// (portableBackend), so that the values printed do not depend on the BLAS.
func ExampleNewObjective() {
	g, seqs, heat := toy(10)
	heat.Backend = portableBackend()
	obj, err := learn.NewObjective(g, seqs, &learn.Config{Heat: heat, Sinkhorn: ot.Settings{Iterations: 10}, LambdaS: 0.01})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer obj.Close()
	x0 := make([]float64, obj.Dim())
	f0, err := obj.Eval(nil, x0)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := learn.Minimize(context.Background(), obj, x0, &learn.Settings{MaxIter: 5}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	theta := learn.Exp(nil, res.X)
	fmt.Printf("F: %.2g → %.2g after %d iterations\n", f0, res.F, res.State.Iter)
	fmt.Printf("metric: %d values, %d axes × %d vertices, from %.2f to %.2f\n",
		len(theta), len(theta)/g.N(), g.N(), floats.Min(theta), floats.Max(theta))
	// Output:
	// F: 0.74 → 0.23 after 5 iterations
	// metric: 200 values, 2 axes × 100 vertices, from 0.11 to 1.73
}
