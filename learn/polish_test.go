package learn

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// polishCase is a small coarse-to-fine run with a polish: the 2-D recovery
// toy at 13² (from 7²), with few exact Sinkhorn iterations (L) so that the
// exact objective parts from the converged one while the metric sharpens.
type polishCase struct {
	g    *kernel.Graph
	seqs []Sequence
	cfg  Config
}

func newPolishCase(t *testing.T, L int) polishCase {
	t.Helper()
	heat := kernel.HeatOptions{T: 3e-3, Steps: 5}
	g, seqs, _ := recoveryData(t, 13, heat, 4, 30)
	return polishCase{g, seqs, Config{Heat: heat, Sinkhorn: ot.Settings{Iterations: L}, LambdaS: 0.01, RegularizeOnce: true, SkipEndpoints: true}}
}

// tolerance is the case's model in tolerance mode at DefaultTol, whose
// polish is c.cfg.
func (c polishCase) tolerance() *Config {
	return withSinkhorn(c.cfg, ot.Settings{Iterations: c.cfg.Sinkhorn.Iterations, Tol: DefaultTol})
}

// polishRun is what a polished Run reported.
type polishRun struct {
	res    *RunResult
	scores []PolishScore
	xs     map[int][]float64 // finest-level iterates, by iteration
	firstF float64           // F0 of the polish's first line search
	states []*State          // polish states, by iteration − 1
	fine   *State            // the finest level's last state seen by the observer
	best   PolishScore       // the last score with a State
}

func (c polishCase) run(t *testing.T, fine int, pol Polish, resume *Checkpoint) polishRun {
	t.Helper()
	r := polishRun{xs: map[int][]float64{}, firstF: math.NaN()}
	polishing := false
	obs := &funcObserver{
		scored: func(s PolishScore) {
			r.scores = append(r.scores, s)
			if s.State != nil {
				r.best = s
			}
		},
		iter: func(p *Progress) error {
			switch p.Level {
			case 1:
				r.xs[p.Iter] = slices.Clone(p.X)
				r.fine = p.State.Clone()
			case 2:
				r.states = append(r.states, p.State.Clone())
			}
			return nil
		},
		trial: func(tr Trial) {
			if polishing && math.IsNaN(r.firstF) {
				r.firstF = tr.F0
			}
		},
		start: func(level int, _ []int, _ *Objective) { polishing = level == 2 },
	}
	if resume != nil {
		resume.Version = CheckpointVersion
	}
	res, err := Run(context.Background(), c.g, c.seqs, c.tolerance(), &RunSettings{
		Settings: Settings{MaxIter: fine, Observer: obs},
		Coarse:   CoarseSchedule(1, 3),
		Polish:   pol,
		Resume:   resume,
	})
	if err != nil {
		t.Fatal(err)
	}
	res.Objective.Close()
	r.res = res
	return r
}

// TestCoarseToFinePolish checks the polish stage: the finest level's
// iterates are scored with the exact objective every Polish.Every
// iterations (the scores are that objective, recomputed independently);
// the level stops at the first score above the best (status ExactRose)
// or at its end, whose iterate is then scored; the polish starts from the
// best score's iterate (its first line search starts from that score) and
// ends at an exact objective below it, which the result reports.
func TestCoarseToFinePolish(t *testing.T) {
	cases := []struct {
		name       string
		L, fine    int
		every      int
		wantRose   bool
		wantScores []int // iterations scored
	}{
		// L = 30: the exact objective follows the fast one; the level
		// runs to its end (iteration 9, scored too).
		{"follows", 30, 9, 4, false, []int{4, 8, 9}},
		// L = 2: two Sinkhorn iterations from scratch are far from the
		// barycenters, and the exact scores of the sharpening fast iterates
		// turn up.
		{"rises", 2, 40, 2, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newPolishCase(t, tc.L)
			exact, err := NewObjective(c.g, c.seqs, &c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer exact.Close()
			r := c.run(t, tc.fine, Polish{Iters: 4, Every: tc.every}, nil)
			levels := r.res.Levels
			if len(levels) != 3 || !levels[2].Exact || levels[1].Exact {
				t.Fatalf("levels %+v: want two fast levels and the polish", levels)
			}
			fine, pol := levels[1], levels[2]
			if got := fine.Status == ExactRose; got != tc.wantRose {
				t.Fatalf("finest level stopped with %v after %d iterations; want ExactRose = %v", fine.Status, fine.Iter, tc.wantRose)
			}
			var iters []int
			best, from := math.Inf(1), 0
			for _, s := range r.scores {
				iters = append(iters, s.Iter)
				x, ok := r.xs[s.Iter]
				if !ok {
					t.Fatalf("score at iteration %d, which the level never reached", s.Iter)
				}
				f, err := exact.Eval(nil, x)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(f-s.FExact) > 1e-12*math.Abs(f) {
					t.Errorf("score at iteration %d: FExact %.15g, the exact objective there %.15g", s.Iter, s.FExact, f)
				}
				if s.FExact <= best {
					best, from = s.FExact, s.Iter
				}
				if s.Best != best {
					t.Errorf("score at iteration %d: Best %.15g, want %.15g", s.Iter, s.Best, best)
				}
			}
			t.Logf("scored iterations %v (best %.8g at %d); polish from %d: %d iterations, F %.8g", iters, best, from, pol.From, pol.Iter, pol.F)
			if tc.wantScores != nil && !slices.Equal(iters, tc.wantScores) {
				t.Errorf("scored iterations %v, want %v", iters, tc.wantScores)
			}
			last := r.scores[len(r.scores)-1]
			if last.Iter != fine.Iter {
				t.Errorf("last score at iteration %d, the level ended at %d", last.Iter, fine.Iter)
			}
			if tc.wantRose && !(last.FExact > last.Best) {
				t.Errorf("stopped for a rise, but the last score %.15g is the best %.15g", last.FExact, last.Best)
			}
			for _, s := range r.scores[:len(r.scores)-1] {
				if s.FExact > s.Best {
					t.Errorf("the level went on after a rise at iteration %d", s.Iter)
				}
			}
			if pol.From != from {
				t.Errorf("polish started from iteration %d, the best score was at %d", pol.From, from)
			}
			if math.Abs(r.firstF-best) > 1e-12*best {
				t.Errorf("the polish's first line search started from F %.15g, the best score is %.15g", r.firstF, best)
			}
			if len(r.states) != pol.Iter || pol.Iter == 0 {
				t.Fatalf("polish reported %d iterations, the callback saw %d", pol.Iter, len(r.states))
			}
			if f := r.res.F; !(f < best) {
				t.Errorf("polished F %.15g not below the best score %.15g", f, best)
			}
			f, err := exact.Eval(nil, r.res.X)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(f-r.res.F) > 1e-12*math.Abs(f) {
				t.Errorf("result F %.15g, exact objective at the result %.15g", r.res.F, f)
			}
		})
	}
}

// TestCoarseToFinePolishResume resumes a polished run from a checkpoint of
// its polish (level len(Schedule)): the exact objective has no warm start,
// so the resumed polish ends bitwise where the uninterrupted one did.
func TestCoarseToFinePolishResume(t *testing.T) {
	c := newPolishCase(t, 30)
	full := c.run(t, 6, Polish{Iters: 4, Every: 3}, nil)
	if len(full.states) != 4 {
		t.Fatalf("polish ran %d iterations, want 4", len(full.states))
	}
	resumed := c.run(t, 6, Polish{Iters: 4, Every: 3}, &Checkpoint{Level: 2, State: full.states[1]})
	if len(resumed.res.Levels) != 1 || !resumed.res.Levels[0].Exact || resumed.res.Levels[0].From != 0 {
		t.Fatalf("resumed levels %+v: want the polish alone, From 0", resumed.res.Levels)
	}
	if len(resumed.scores) != 0 {
		t.Errorf("a resumed polish scored %d fast iterates", len(resumed.scores))
	}
	if !slices.Equal(resumed.res.X, full.res.X) || resumed.res.F != full.res.F {
		t.Errorf("resumed polish ended at F %.17g, uninterrupted at %.17g (X equal: %v)",
			resumed.res.F, full.res.F, slices.Equal(resumed.res.X, full.res.X))
	}
}

// TestCoarseToFinePolishSettings rejects negative settings and a resume
// level past the polish.
func TestCoarseToFinePolishSettings(t *testing.T) {
	c := newPolishCase(t, 30)
	st := &State{X: make([]float64, 2*c.g.N()), G: make([]float64, 2*c.g.N())}
	for _, s := range []RunSettings{
		{Polish: Polish{Iters: -1}},
		{Polish: Polish{Iters: 1, Every: -1}},
		{Resume: &Checkpoint{Version: CheckpointVersion, Level: 1, State: st}},
		{Polish: Polish{Iters: 1}, Resume: &Checkpoint{Version: CheckpointVersion, Level: 2, State: st}},
	} {
		s.MaxIter = 1
		if _, err := Run(context.Background(), c.g, c.seqs, c.tolerance(), &s); err == nil {
			t.Errorf("settings %+v: no error", s)
		}
	}
}

// TestCoarseToFinePolishResumeFine resumes a run interrupted on its finest
// level after the exact score rose, from what a checkpoint written by the
// level's observer holds (the iteration is reported after the score, so the state
// of the iterate whose score rose, and the best scored iterate from
// PolishScore.State): the resumed level scores once more, stops, and the
// polish starts from the same iterate and ends bitwise where the
// uninterrupted run's did.
func TestCoarseToFinePolishResumeFine(t *testing.T) {
	c := newPolishCase(t, 2)
	pol := Polish{Iters: 4, Every: 2}
	full := c.run(t, 40, pol, nil)
	fine, from := full.res.Levels[1], full.res.Levels[2].From
	if fine.Status != ExactRose || full.fine == nil || full.fine.Iter != fine.Iter || full.best.State == nil || full.best.Iter != from {
		t.Fatalf("uninterrupted run: level %+v, last fine state %v, best score %+v: want a stop on a rise with a checkpoint there", fine, full.fine != nil, full.best)
	}
	resumed := c.run(t, 40, pol, &Checkpoint{Level: 1, State: full.fine, PolishBest: full.best.State, PolishBestF: full.best.FExact})
	lv := resumed.res.Levels
	if len(lv) != 2 || lv[0].Status != ExactRose || lv[0].Iter != fine.Iter+pol.Every || lv[1].From != from {
		t.Fatalf("resumed levels %+v: want the fine level stopped again one score later (iteration %d) and the polish from %d", lv, fine.Iter+pol.Every, from)
	}
	if !slices.Equal(resumed.res.X, full.res.X) || resumed.res.F != full.res.F {
		t.Errorf("resumed run's polish ended at F %.17g, the uninterrupted one's at %.17g (X equal: %v)",
			resumed.res.F, full.res.F, slices.Equal(resumed.res.X, full.res.X))
	}
}
