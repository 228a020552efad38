package learn_test

import (
	"context"
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot"
)

// toy returns a 2-D sequence of 4 frames on an n×n grid, generated under
// the analytic metric.
func toy(n int) (*kernel.Graph, []learn.Sequence, kernel.HeatOptions) {
	g, _ := kernel.Cube(2, n)
	heat := kernel.HeatOptions{T: 5e-3, Steps: 5}
	p, _ := synth.Pole{Shape: "gauss", X0: 0.2, Y0: 0.3, Sigma: 0.15}.Histogram(2, n)
	q, _ := synth.Pole{Shape: "gauss", X0: 0.8, Y0: 0.7, Sigma: 0.15}.Histogram(2, n)
	frames, err := synth.Generate(&synth.Config{Graph: g, Metric: kernel.VertexMetric{G: g},
		Theta: synth.AnalyticMetric(n), Heat: heat, Frames: 4, Poles: [][2][]float64{{p, q}}, RawEndpoints: true})
	if err != nil {
		panic(err)
	}
	return g, []learn.Sequence{{Frames: frames[0]}}, heat
}

// Tolerance mode: the converged barycenters. Minimize drives the Objective
// as in exact mode (it warm-starts each evaluation and is told of accepted
// points through learn.Accepter).
func ExampleNewObjective_tolerance() {
	g, seqs, heat := toy(9)
	obj, err := learn.NewObjective(g, seqs, &learn.Config{Heat: heat, LambdaS: 0.01, SkipEndpoints: true,
		Sinkhorn: ot.Settings{Tol: learn.DefaultTol}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer obj.Close()
	x0 := make([]float64, obj.Dim())
	f0, _ := obj.Eval(nil, x0)
	res, err := learn.Minimize(context.Background(), obj, x0, &learn.Settings{MaxIter: 5}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tot := obj.Totals()
	fmt.Printf("F decreased %v, %d iterations\n", res.F < f0/2, res.State.Iter)
	fmt.Printf("every solve converged: %v\n", tot.NotConverged == 0)
	// Output:
	// F decreased true, 5 iterations
	// every solve converged: true
}

// Coarse to fine in tolerance mode: a few iterations on the 5×5 grid, then the
// 9×9 one.
func ExampleRun_coarse() {
	g, seqs, heat := toy(9)
	cfg := &learn.Config{Heat: heat, Sinkhorn: ot.Settings{Tol: learn.DefaultTol}, LambdaS: 0.01, SkipEndpoints: true}
	res, err := learn.Run(context.Background(), g, seqs, cfg,
		&learn.RunSettings{Settings: learn.Settings{MaxIter: 3}, Coarse: learn.CoarseSchedule(1, 3)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Objective.Close()
	for _, l := range res.Levels {
		fmt.Printf("level %d: grid %v, %d iterations\n", l.Level, l.Dims, l.Iter)
	}
	fmt.Println("metric parameters:", len(res.X))
	// Output:
	// level 0: grid [5 5], 3 iterations
	// level 1: grid [9 9], 3 iterations
	// metric parameters: 162
}

// bestScore is an Observer that keeps the best polish score.
type bestScore struct {
	learn.NopObserver
	best float64
}

func (o *bestScore) Scored(s learn.PolishScore) { o.best = s.Best }

// Tolerance mode, then a polish on the exact objective: the finest level's
// iterates are scored with it every 2 iterations, and L-BFGS on it continues
// from the best-scored one.
func ExamplePolish() {
	g, seqs, heat := toy(9)
	obs := &bestScore{best: math.Inf(1)}
	cfg := &learn.Config{Heat: heat, Sinkhorn: ot.Settings{Tol: learn.DefaultTol}, LambdaS: 0.01, SkipEndpoints: true}
	res, err := learn.Run(context.Background(), g, seqs, cfg,
		&learn.RunSettings{
			Settings: learn.Settings{MaxIter: 6, Observer: obs},
			Coarse:   learn.CoarseSchedule(1, 3),
			Polish:   learn.Polish{Iters: 3, Every: 2},
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Objective.Close()
	pol := res.Levels[len(res.Levels)-1]
	fmt.Printf("levels: %d, the last one exact: %v, %d iterations\n", len(res.Levels), pol.Exact, pol.Iter)
	fmt.Println("polished F below the best score:", res.F < obs.best)
	// Output:
	// levels: 3, the last one exact: true, 3 iterations
	// polished F below the best score: true
}
