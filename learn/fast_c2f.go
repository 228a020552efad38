package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gmlg/gmlg/kernel"
)

// CoarseSide returns the side of the grid one level coarser than n:
// ⌈n/2⌉, i.e. (n+1)/2 for odd n (the inverse of the co-located
// prolongation n → 2(n−1)+1 of docs/method.md, "Metric prolongation") and
// n/2 for even n.
func CoarseSide(n int) int { return (n + 1) / 2 }

// lin1 locates node i of a side-nf axis on the side-nc axis with the same
// end points: x = i·(nc−1)/(nf−1) = i0 + t, 0 ≤ t < 1 (t = 1 only at the
// last node, where i0 = nc−2).
func lin1(i, nc, nf int) (int, float64) {
	num := i * (nc - 1)
	i0 := num / (nf - 1)
	if i0 >= nc-1 {
		i0 = nc - 2
	}
	return i0, float64(num-i0*(nf-1)) / float64(nf-1)
}

// resampleAxis resamples the grid array src of extents dims along axis p
// (axis 0 varies fastest, as in kernel.Grid) to extent m2 into dst. With
// restrict false it interpolates linearly with aligned end points (m2 >
// dims[p]); with restrict true it applies the transpose of that
// interpolation from extent dims[p] down to m2, which preserves the sum.
func resampleAxis(dst, src []float64, dims []int, p, m2 int, restrict bool) {
	m := dims[p]
	s := 1
	for q := 0; q < p; q++ {
		s *= dims[q]
	}
	outer := 1
	for q := p + 1; q < len(dims); q++ {
		outer *= dims[q]
	}
	if restrict {
		clear(dst[:s*m2*outer])
	}
	for hi := 0; hi < outer; hi++ {
		for lo := 0; lo < s; lo++ {
			si := src[lo+s*m*hi:]
			di := dst[lo+s*m2*hi:]
			if restrict {
				for k := 0; k < m; k++ {
					i0, t := lin1(k, m2, m)
					v := si[s*k]
					di[s*i0] += (1 - t) * v
					di[s*(i0+1)] += t * v
				}
				continue
			}
			for k := 0; k < m2; k++ {
				i0, t := lin1(k, m, m2)
				di[s*k] = (1-t)*si[s*i0] + t*si[s*(i0+1)]
			}
		}
	}
}

// resample maps a grid array of extents from to extents to, axis by axis
// (restrict: sum-preserving transpose of interpolation; otherwise linear
// interpolation with aligned end points).
func resample(x []float64, from, to []int, restrict bool) []float64 {
	dims := append([]int(nil), from...)
	cur := append([]float64(nil), x...)
	for p := range dims {
		if dims[p] == to[p] {
			continue
		}
		size := len(cur) / dims[p] * to[p]
		next := make([]float64, size)
		resampleAxis(next, cur, dims, p, to[p], restrict)
		dims[p] = to[p]
		cur = next
	}
	return cur
}

func gridSize(dims []int) int {
	n := 1
	for _, m := range dims {
		n *= m
	}
	return n
}

// RestrictHistogram maps a histogram on a grid of extents dims (axis 0
// fastest, as kernel.Grid) to the grid of extents coarse, each at least 2 and
// at most the fine one, by the transpose of the multilinear interpolation
// with aligned end points: the mass of fine node i goes to the coarse nodes
// around its position x = i·(n_c−1)/(n−1), with linear weights. It preserves
// the total mass and non-negativity. With n_c = (n+1)/2 for odd n this is the
// full-weighting restriction (½, 1, ½ per axis) transposed to the co-located
// prolongation (docs/method.md, "Metric prolongation").
func RestrictHistogram(h []float64, dims, coarse []int) []float64 {
	checkResample("RestrictHistogram", len(h), dims, coarse, true)
	return resample(h, dims, coarse, true)
}

// HalveGrid returns the extents of the grid dims halved once (CoarseSide
// per axis), the next coarser level of CoarseToFine, or an error when an
// axis would keep fewer than 2 nodes.
func HalveGrid(dims []int) ([]int, error) {
	half := make([]int, len(dims))
	for p, m := range dims {
		if half[p] = CoarseSide(m); half[p] < 2 {
			return nil, fmt.Errorf("learn: the %v grid is too small to halve", dims)
		}
	}
	return half, nil
}

// RestrictSequences restricts every frame of seqs from the grid of extents
// dims to the grid of extents coarse with RestrictHistogram, keeping the
// sequences' times; a frame whose length is not the grid's is an error.
func RestrictSequences(seqs []Sequence, dims, coarse []int) ([]Sequence, error) {
	out := make([]Sequence, len(seqs))
	for si, sq := range seqs {
		out[si].Times = sq.Times
		for _, f := range sq.Frames {
			if len(f) != gridSize(dims) {
				return nil, fmt.Errorf("learn: sequence %d: frame of length %d on a grid %v", si, len(f), dims)
			}
			out[si].Frames = append(out[si].Frames, RestrictHistogram(f, dims, coarse))
		}
	}
	return out, nil
}

// ProlongVertexMetric maps a vertex metric θ of shape [d, N] (row p =
// axis p, N = Π dims) on the grid of extents coarse to the grid of extents
// fine (each at least the coarse one) by multilinear interpolation with
// aligned end points, row by row. For fine = 2(coarse−1)+1 this is the
// co-located prolongation of docs/method.md, "Metric prolongation" (the
// reference's order-1 zoom): old node k becomes node 2k, new nodes get
// midpoint averages. Positive metrics stay positive.
func ProlongVertexMetric(theta []float64, coarse, fine []int) []float64 {
	d := len(coarse)
	nc := gridSize(coarse)
	if len(theta) != d*nc {
		panic(fmt.Sprintf("learn: ProlongVertexMetric: len(theta) = %d, want %d·%d", len(theta), d, nc))
	}
	checkResample("ProlongVertexMetric", nc, fine, coarse, false)
	nf := gridSize(fine)
	out := make([]float64, 0, d*nf)
	for p := 0; p < d; p++ {
		out = append(out, resample(theta[p*nc:(p+1)*nc], coarse, fine, false)...)
	}
	return out
}

func checkResample(op string, n int, big, small []int, bigIsSrc bool) {
	if len(big) != len(small) {
		panic(fmt.Sprintf("learn: %s: grids of dimensions %d and %d", op, len(big), len(small)))
	}
	for p := range big {
		if small[p] < 2 || small[p] > big[p] {
			panic(fmt.Sprintf("learn: %s: extents %v and %v", op, big, small))
		}
	}
	src := small
	if bigIsSrc {
		src = big
	}
	if n != gridSize(src) {
		panic(fmt.Sprintf("learn: %s: length %d for a grid %v", op, n, src))
	}
}

// Level is one stage of a coarse-to-fine schedule.
type Level struct {
	// Coarsen is the number of halvings of the finest grid: 0 is the
	// finest grid itself, k the grid of side CoarseSide applied k times.
	Coarsen int
	// MaxIter bounds the accepted L-BFGS iterations on this level (0
	// means the Settings' MaxIter).
	MaxIter int
}

// DefaultSchedule is the schedule used when CoarseToFineSettings.Schedule is
// nil: 10 iterations on the grid halved once, then the finest grid with the
// Settings' MaxIter. Measured on the 2-D toy of TestCoarseToFineToy (17²
// from 9²), 10 coarse iterations then 30 fine ones reach, in exact mode, an
// objective 0.6% above exact mode's after 40 iterations, and 10 + 40 one
// 4.4% below it; but 20 or 40 coarse iterations made the fine start worse
// (25% and 12% above after 30 and 40 fine iterations): the restricted data
// are not the coarse model's barycenters, and fitting them closely learns
// coarse-grid artefacts. Keep the coarse stages short.
var DefaultSchedule = []Level{{Coarsen: 1, MaxIter: 10}, {Coarsen: 0}}

// CoarseToFineSettings configures CoarseToFine. Zero fields mean defaults.
type CoarseToFineSettings struct {
	// Schedule lists the levels, coarsest first, Coarsen strictly
	// decreasing and the last one 0. nil means DefaultSchedule.
	Schedule []Level
	// Fast configures the fast objective of every level.
	Fast FastOptions
	// Minimize is the optimiser's settings, shared by every level (MaxIter
	// is overridden by the level's when that is non-zero; the Callback
	// sees each level's own iteration numbers).
	Minimize Settings
	// LevelStart, if set, is called when a level's objective is built,
	// before its first evaluation; obj stays open until the level ends
	// (use it, e.g., for its Reconstructions in the Callback).
	LevelStart func(level int, dims []int, obj *FastObjective)
	// LevelDone, if set, is called after each level with its report.
	LevelDone func(LevelReport)
	// Polish, when Polish.Iters > 0, ends the run with L-BFGS on the exact
	// objective (see Polish). Its iterations reach the Callback as level
	// len(Schedule), and its report is the last of Levels.
	Polish Polish
	// Resume, if set, continues an interrupted run: the levels before
	// Resume.Level are skipped and that level continues from
	// Resume.State (a Progress.State of it; Level len(Schedule) is the
	// polish, whose state is the exact objective's). A resumed finest
	// level keeps the checkpoint's PolishBest. The warm start of the
	// Sinkhorn scalings is not part of the state, so a resumed level
	// starts its first evaluation cold and the run is not bitwise that of
	// an uninterrupted one.
	Resume *CoarseToFineCheckpoint
}

// CoarseToFineCheckpoint is where a coarse-to-fine run can continue from;
// a Checkpoint holds one to save it in a file.
type CoarseToFineCheckpoint struct {
	Level int    // index in the schedule
	State *State // the optimiser's state on that level
	// PolishBest and PolishBestF are, for a run with a polish interrupted
	// on its finest level, the best-scored iterate so far
	// (PolishScore.State) and its exact objective: the resumed level keeps
	// them as its best score, so that the polish still starts there (nil:
	// the resumed level scores afresh).
	PolishBest  *State
	PolishBestF float64
}

// LevelReport describes one finished level of CoarseToFine.
type LevelReport struct {
	Level   int   // index in the schedule
	Dims    []int // grid extents
	Iter    int   // accepted iterations
	Evals   int   // objective evaluations
	F       float64
	Status  Status
	Totals  FastTotals // Sinkhorn and adjoint iterations
	Elapsed time.Duration
	// Tightened counts the tolerance tightenings after failed line
	// searches (MinimizeFast).
	Tightened int
	// Exact marks the polish stage (F is the exact objective; Totals is
	// zero), and From is the finest-level iteration it started from (0
	// when it was resumed).
	Exact bool
	From  int
}

// CoarseToFineResult is the outcome of CoarseToFine.
type CoarseToFineResult struct {
	// Result is the finest level's, or the polish's when there is one
	// (its X is the log of the final vertex metric on g).
	*Result
	// Levels reports every level, coarsest first.
	Levels []LevelReport
}

// CoarseToFine learns a vertex metric on the grid g in fast mode, coarse
// grids first. Every frame is restricted to each level's grid
// with RestrictHistogram (halving the side each time: n → ⌈n/2⌉); the
// first level starts from θ = 1 (x = 0), and each later level starts from
// the previous level's metric prolonged with ProlongVertexMetric. Each
// level minimises a FastObjective with the model cfg (the same t, steps,
// loss and λ on every level; the Laplacian scale α is the grid's default
// (n−1)², so cfg.Heat.Alpha must be 0) for at most its schedule's MaxIter
// iterations.
//
// g must be a grid with equal extents (a cube: 2-D images, colour cubes),
// cfg.Metric the VertexMetric. Cancelling ctx stops the current level and
// returns its result with the error.
func CoarseToFine(ctx context.Context, g *kernel.Graph, seqs []Sequence, cfg *Config, s *CoarseToFineSettings) (*CoarseToFineResult, error) {
	var set CoarseToFineSettings
	if s != nil {
		set = *s
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if !g.IsGrid() || c.Metric != VertexMetric {
		return nil, errors.New("learn: coarse to fine needs a grid and the vertex metric")
	}
	if c.Heat.Alpha != 0 {
		return nil, errors.New("learn: coarse to fine sets the Laplacian scale per level: leave Heat.Alpha at 0")
	}
	dims := g.Dims()
	for _, m := range dims {
		if m != dims[0] {
			return nil, fmt.Errorf("learn: coarse to fine needs equal grid extents, got %v", dims)
		}
	}
	sched := set.Schedule
	if sched == nil {
		sched = DefaultSchedule
	}
	if len(sched) == 0 || sched[len(sched)-1].Coarsen != 0 {
		return nil, errors.New("learn: coarse-to-fine schedule must end with the finest level (Coarsen 0)")
	}
	for i, l := range sched {
		if l.Coarsen < 0 || l.MaxIter < 0 || i > 0 && l.Coarsen >= sched[i-1].Coarsen {
			return nil, fmt.Errorf("learn: coarse-to-fine schedule %v: Coarsen must decrease strictly to 0 and MaxIter be ≥ 0", sched)
		}
	}
	// Grids of every halving, finest first.
	levelDims := [][]int{dims}
	for k := 1; k <= sched[0].Coarsen; k++ {
		next, err := HalveGrid(levelDims[k-1])
		if err != nil {
			return nil, fmt.Errorf("learn: coarse to fine: %d halvings of %v leave fewer than 2 nodes per axis", sched[0].Coarsen, dims)
		}
		levelDims = append(levelDims, next)
	}
	// Frames restricted level by level.
	levelSeqs := [][]Sequence{seqs}
	for k := 1; k < len(levelDims); k++ {
		cur, err := RestrictSequences(levelSeqs[k-1], levelDims[k-1], levelDims[k])
		if err != nil {
			return nil, err
		}
		levelSeqs = append(levelSeqs, cur)
	}
	if set.Polish.Iters < 0 || set.Polish.Every < 0 {
		return nil, fmt.Errorf("learn: polish settings %+v must not be negative", set.Polish)
	}
	var pl *polisher
	if set.Polish.Iters > 0 {
		pl = newPolisher(set.Polish, g, seqs, &c)
		defer pl.close()
		if r := set.Resume; r != nil && r.Level == len(sched)-1 {
			pl.restore(r.PolishBest, r.PolishBestF)
		}
	}
	polishLevel := len(sched)
	first := 0
	if r := set.Resume; r != nil {
		last := len(sched)
		if pl != nil {
			last++
		}
		if r.Level < 0 || r.Level >= last || r.State == nil {
			return nil, fmt.Errorf("learn: coarse to fine: cannot resume at level %d of a %d-level schedule", r.Level, last)
		}
		coarsen := 0
		if r.Level < len(sched) {
			coarsen = sched[r.Level].Coarsen
		}
		if want := len(dims) * gridSize(levelDims[coarsen]); len(r.State.X) != want {
			return nil, fmt.Errorf("learn: coarse to fine: resume state of length %d for level %d, want %d", len(r.State.X), r.Level, want)
		}
		if r.PolishBest != nil && len(r.PolishBest.X) != len(dims)*gridSize(dims) {
			return nil, fmt.Errorf("learn: coarse to fine: resume's polish state of length %d, want %d", len(r.PolishBest.X), len(dims)*gridSize(dims))
		}
		first = r.Level
	}
	out := &CoarseToFineResult{}
	var theta []float64 // metric of the previous level
	var prevDims []int
	for li, l := range sched {
		if li < first {
			continue
		}
		d := levelDims[l.Coarsen]
		gl, err := kernel.Grid(d...)
		if err != nil {
			return nil, fmt.Errorf("learn: coarse to fine: %w", err)
		}
		obj, err := NewFastObjective(gl, levelSeqs[l.Coarsen], &c, &set.Fast)
		if err != nil {
			return nil, fmt.Errorf("learn: coarse to fine, level %d (grid %v): %w", li, d, err)
		}
		x0 := make([]float64, obj.Dim())
		if theta != nil {
			th := ProlongVertexMetric(theta, prevDims, d)
			for i, v := range th {
				x0[i] = math.Log(v)
			}
		}
		ms := set.Minimize
		if l.MaxIter != 0 {
			ms.MaxIter = l.MaxIter
		}
		if cb := set.Minimize.Callback; cb != nil {
			ms.Callback = func(p *Progress) error {
				p.Level = li
				return cb(p)
			}
		}
		if pl != nil && li == len(sched)-1 {
			ms.Callback = pl.wrap(ms.Callback)
		}
		var resume *State
		if li == first && set.Resume != nil {
			resume = set.Resume.State
		}
		if set.LevelStart != nil {
			set.LevelStart(li, d, obj)
		}
		start := time.Now()
		res, err := MinimizeFast(ctx, obj, x0, &ms, resume)
		obj.Close()
		if res != nil && errors.Is(err, errExactRose) {
			res.Status, err = ExactRose, nil
		}
		if res == nil {
			return nil, fmt.Errorf("learn: coarse to fine, level %d (grid %v): %w", li, d, err)
		}
		rep := LevelReport{Level: li, Dims: d, Iter: res.State.Iter, Evals: res.State.Evals, F: res.F,
			Status: res.Status, Totals: obj.Totals(), Elapsed: time.Since(start), Tightened: res.Tightened}
		out.Levels = append(out.Levels, rep)
		out.Result = res
		if set.LevelDone != nil {
			set.LevelDone(rep)
		}
		if err != nil {
			return out, fmt.Errorf("learn: coarse to fine, level %d (grid %v): %w", li, d, err)
		}
		theta = make([]float64, len(res.X))
		for i, v := range res.X {
			theta[i] = math.Exp(v)
		}
		prevDims = d
	}
	if pl == nil {
		return out, nil
	}
	var resume *State
	if r := set.Resume; r != nil && r.Level == polishLevel {
		resume = r.State
	}
	res, rep, err := pl.run(ctx, out.Result, set.Minimize, polishLevel, resume)
	if res == nil {
		return out, err
	}
	out.Levels = append(out.Levels, rep)
	out.Result = res
	if set.LevelDone != nil {
		set.LevelDone(rep)
	}
	return out, err
}
