package learn

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// TestCoarseToFineToy runs exact mode and fast coarse-to-fine mode on the
// 2-D synthetic recovery problem (4 sequences of 5 frames from a known
// metric, side 17, t = 3e-3, 10 steps, L = 30, λ_s = 0.01): exact mode for
// 40 iterations, fast mode for 10 iterations on 9² then 30 on 17². It checks
// that the metric learnt in fast mode, evaluated afterwards in EXACT mode,
// is within 5% of exact mode's objective, with fewer fine-grid
// evaluations. Measured: 0.57% above, 31 fine evaluations against 43, 9.4 s
// against 15.3 s (loaded 2-core box). GMLG_C2F="n maxIter genL tol
// fromAccepted cold coarseIter fineIter looseTol" overrides the settings
// (coarseIter 0: fast mode on the fine grid only).
func TestCoarseToFineToy(t *testing.T) {
	if testing.Short() {
		t.Skip("coarse-to-fine comparison skipped in -short mode")
	}
	n, maxIter, genL, tol, fromAcc, cold, coarseIter, fineIter, loose := 17, 40, 30, 0.0, 0, 0, 10, 30, 0.0
	if v := os.Getenv("GMLG_C2F"); v != "" {
		fmt.Sscan(v, &n, &maxIter, &genL, &tol, &fromAcc, &cold, &coarseIter, &fineIter, &loose)
	}
	heat := kernel.HeatOptions{T: 3e-3, Steps: 10}
	const L = 30
	g, seqs, _ := recoveryData(t, n, heat, 5, genL)
	cfg := Config{Heat: heat, Iterations: L, LambdaS: 0.01, RegularizeOnce: true, SkipEndpoints: true}
	exact, err := NewObjective(g, seqs, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer exact.Close()
	start := time.Now()
	resE, err := Minimize(context.Background(), exact, make([]float64, exact.Dim()), &Settings{MaxIter: maxIter}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tE := time.Since(start)
	f0, _ := exact.Eval(nil, make([]float64, exact.Dim()))
	sched := []Level{{Coarsen: 1, MaxIter: coarseIter}, {Coarsen: 0, MaxIter: fineIter}}
	if coarseIter == 0 {
		sched = sched[1:]
	}
	start = time.Now()
	resF, err := CoarseToFine(context.Background(), g, seqs, &cfg, &CoarseToFineSettings{
		Schedule: sched,
		Fast:     FastOptions{Sinkhorn: ot.FastSettings{Tol: tol, Cold: cold != 0}, FromAccepted: fromAcc != 0, LooseTol: loose},
		LevelDone: func(r LevelReport) {
			t.Logf("level %d %v: %d iterations, %d evaluations, F_fast %.5g (%v), Sinkhorn %d + adjoint %d iterations, not converged %d, %v",
				r.Level, r.Dims, r.Iter, r.Evals, r.F, r.Status, r.Totals.Sinkhorn, r.Totals.Adjoint, r.Totals.NotConverged, r.Elapsed.Round(time.Millisecond))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tF := time.Since(start)
	fF, err := exact.Eval(nil, resF.X)
	if err != nil {
		t.Fatal(err)
	}
	fine := resF.Levels[len(resF.Levels)-1]
	t.Logf("exact: F %.4g → %.5g in %d iterations, %d evaluations, %v", f0, resE.F, resE.State.Iter, resE.State.Evals, tE.Round(time.Millisecond))
	t.Logf("fast coarse-to-fine: exact F at its metric %.5g (%.2f%% of exact's), fine level %d evaluations, %v",
		fF, 100*(fF-resE.F)/resE.F, fine.Evals, tF.Round(time.Millisecond))
	if fF > 1.05*resE.F {
		t.Errorf("fast mode's metric gives exact F = %.5g, more than 5%% above exact mode's %.5g", fF, resE.F)
	}
	if fine.Evals >= resE.State.Evals {
		t.Errorf("fast mode used %d fine evaluations, exact %d", fine.Evals, resE.State.Evals)
	}
}
