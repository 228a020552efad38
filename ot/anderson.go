package ot

import (
	"math"
	"slices"
	"sync"
)

// anderson accelerates the Sinkhorn fixed-point iteration b ← T(b) of a
// tolerance-mode Interpolator by Anderson mixing (type II) of each frame's
// log-scalings x = log b (2N values), residual r = log T(b) − x. With the
// differences ΔR, ΔG of the last m residuals and images g = log T(b), the
// next input is
//
//	x' = g − clip(ΔG·γ),   γ = argmin Σ_i q_i·(r − ΔR·γ)_i²,
//
// clip bounding each entry by andersonClip. The weights are the frame's
// barycenter q: the marginal violation Σ|b⊙v − q| is about Σ q_i·|r_i|, and
// bins without mass, whose log-scalings wander freely, must not decide γ.
// The residual is invariant under the frame's gauge (T commutes with it).
//
// Safeguard: a frame whose marginal violation grew more than andersonRestart
// times since the previous iteration, or whose least-squares system is singular
// or not finite, forgets its history and takes the plain step x' = g.
type anderson struct {
	m, n, frames int
	slot         int         // ring position of the next difference
	cnt          []int       // per frame: differences in use (≤ m)
	prevViol     []float64   // per frame: violation of the previous iteration
	hasPrev      bool        // rPrev and gPrev hold the previous iteration's
	rPrev, gPrev []float64   // N×C
	g            []float64   // N×C: log T(b) of this iteration
	dR, dG       [][]float64 // m blocks of N×C
	ata          []float64   // per frame: its m×m normal matrix
	atb, gam     []float64   // per frame: m
	restarts     int

	// The step in progress, whose frames run in parallel, and what each
	// frame reports.
	wg                    sync.WaitGroup
	bIn, bOut, viol, q    []float64
	restarted, mixedFrame []bool
}

// The phases of a step (see parallel).
const (
	andersonLogs   = iota // g = log bOut, entry by entry
	andersonFrames        // each frame's mixing
)

func newAnderson(m, n, frames int) *anderson {
	nc := 2 * n * frames
	an := &anderson{m: m, n: n, frames: frames,
		cnt: make([]int, frames), prevViol: make([]float64, frames),
		rPrev: make([]float64, nc), gPrev: make([]float64, nc), g: make([]float64, nc),
		dR: make([][]float64, m), dG: make([][]float64, m),
		ata: make([]float64, frames*m*m), atb: make([]float64, frames*m), gam: make([]float64, frames*m),
		restarted: make([]bool, frames), mixedFrame: make([]bool, frames)}
	for i := range an.dR {
		an.dR[i] = make([]float64, nc)
		an.dG[i] = make([]float64, nc)
	}
	return an
}

// reset starts a Forward. A cold one forgets every frame's history; a
// warm one keeps the differences of the previous one (at a nearby kernel:
// a learner's successive points) but forms none across the two, which
// saves iterations of warm evaluations.
func (an *anderson) reset(warm bool) {
	an.hasPrev = false
	an.restarts = 0
	if !warm {
		clear(an.cnt)
		an.slot = 0
	}
}

// andersonClip bounds the change that mixing makes to a log-scaling per
// entry and iteration (a factor e^0.3 ≈ 1.35 either way): without it,
// mixing can send the log-scalings of bins without mass far enough for the
// kernel to underflow. andersonRestart is the growth of a frame's marginal
// violation that makes it forget its history; at any growth (factor 1),
// half the frames would restart every iteration.
const (
	andersonClip    = 0.3
	andersonRestart = 3.0
)

// step overwrites bIn (the input of this iteration, N×C) with the next
// input, given bOut = T(bIn), the per-column marginal violations viol and
// the barycenters q (N×F), and reports whether any frame's next input is a
// mix (not the plain step).
func (an *anderson) step(bIn, bOut, viol, q []float64) (mixed bool) {
	an.bIn, an.bOut, an.viol, an.q = bIn, bOut, viol, q
	// Costs per index: a logarithm; per frame, 2N logarithms, exponentials
	// and shares of the m-term sums.
	parallel(&an.wg, an, andersonLogs, len(bOut), 12)
	parallel(&an.wg, an, andersonFrames, an.frames, 2*an.n*(30+2*an.m))
	for f := range an.frames {
		if an.restarted[f] {
			an.restarts++
		}
		mixed = mixed || an.mixedFrame[f]
	}
	an.bIn, an.bOut, an.viol, an.q = nil, nil, nil, nil
	if an.hasPrev {
		an.slot = (an.slot + 1) % an.m
	}
	an.hasPrev = true
	return mixed
}

// runPart runs entries (andersonLogs) or frames (andersonFrames) lo..hi−1
// of the step in progress.
func (an *anderson) runPart(phase, lo, hi int) {
	if phase == andersonLogs {
		for i, bo := range an.bOut[lo:hi] {
			an.g[lo+i] = math.Log(bo)
		}
		return
	}
	for f := lo; f < hi; f++ {
		an.restarted[f], an.mixedFrame[f] = an.frame(f)
	}
}

// frame mixes frame f's next input in the step in progress and reports
// whether it forgot a history (restarted) and whether its input is a mix.
func (an *anderson) frame(f int) (restarted, mixed bool) {
	w := 2 * an.n
	slot := an.slot // where this iteration's difference goes
	last := slot    // the most recent difference
	if !an.hasPrev {
		last = (slot + an.m - 1) % an.m
	}
	lo, hi := f*w, (f+1)*w
	bi, g, rp, gp := an.bIn[lo:hi], an.g[lo:hi], an.rPrev[lo:hi], an.gPrev[lo:hi]
	vf := math.Max(an.viol[2*f], an.viol[2*f+1])
	restart := an.hasPrev && vf > andersonRestart*an.prevViol[f]
	for i, gi := range g {
		restart = restart || notFinite(gi) || bi[i] <= 0
	}
	restarted = restart && an.cnt[f] > 0
	an.prevViol[f] = vf
	// r = g − log bIn; record the differences with the previous one.
	dr, dg := an.dR[slot][lo:hi], an.dG[slot][lo:hi]
	for i, gi := range g {
		r := gi - math.Log(bi[i])
		if an.hasPrev {
			dr[i] = r - rp[i]
			dg[i] = gi - gp[i]
		}
		rp[i], gp[i] = r, gi
	}
	if !restart && an.hasPrev && an.cnt[f] < an.m {
		an.cnt[f]++
	}
	k := an.cnt[f]
	if restart || k == 0 || !an.solve(f, last, k, an.q[f*an.n:(f+1)*an.n]) {
		an.cnt[f] = 0
		copy(bi, an.bOut[lo:hi])
		return restarted, false
	}
	// x' = g − Σ γ_j ΔG_j, b' = exp(x').
	gam := an.gam[f*an.m : f*an.m+k]
	for i, gi := range g {
		var d float64
		for j, c := range gam {
			d -= c * an.dG[an.ring(last, j)][lo+i]
		}
		bi[i] = math.Exp(gi + math.Max(-andersonClip, math.Min(andersonClip, d)))
	}
	return restarted, true
}

// ring returns the slot of the j-th most recent difference (j = 0: the one
// at slot last).
func (an *anderson) ring(last, j int) int { return ((last-j)%an.m + an.m) % an.m }

// solve computes γ for frame f from its last k differences by the
// normal equations weighted by the frame's barycenter qf, regularised,
// reporting false when they are singular or not finite.
func (an *anderson) solve(f, last, k int, qf []float64) bool {
	w := 2 * an.n
	lo, hi := f*w, (f+1)*w
	r := an.rPrev[lo:hi]
	a := an.ata[f*an.m*an.m : f*an.m*an.m+k*k]
	atb := an.atb[f*an.m : f*an.m+k]
	for p := 0; p < k; p++ {
		dp := an.dR[an.ring(last, p)][lo:hi]
		atb[p] = winner(qf, dp, r)
		for q := 0; q <= p; q++ {
			v := winner(qf, dp, an.dR[an.ring(last, q)][lo:hi])
			a[p*k+q], a[q*k+p] = v, v
		}
	}
	var tr float64
	for p := 0; p < k; p++ {
		tr += a[p*k+p]
	}
	if !(tr > 0) || math.IsInf(tr, 0) {
		return false
	}
	// A relative Tikhonov term of 1e-10 (a customary safety margin, not
	// tuned) keeps the Cholesky defined when differences are nearly
	// collinear, without changing γ measurably otherwise.
	for p := 0; p < k; p++ {
		a[p*k+p] += 1e-10 * tr
	}
	// Cholesky in place (lower), then the two triangular solves.
	for p := 0; p < k; p++ {
		d := a[p*k+p]
		for q := 0; q < p; q++ {
			d -= a[p*k+q] * a[p*k+q]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[p*k+p] = d
		for i := p + 1; i < k; i++ {
			s := a[i*k+p]
			for q := 0; q < p; q++ {
				s -= a[i*k+q] * a[p*k+q]
			}
			a[i*k+p] = s / d
		}
	}
	y := an.gam[f*an.m : f*an.m+k]
	for p := 0; p < k; p++ {
		s := atb[p]
		for q := 0; q < p; q++ {
			s -= a[p*k+q] * y[q]
		}
		y[p] = s / a[p*k+p]
	}
	for p := k - 1; p >= 0; p-- {
		s := y[p]
		for q := p + 1; q < k; q++ {
			s -= a[q*k+p] * y[q]
		}
		y[p] = s / a[p*k+p]
	}
	return !slices.ContainsFunc(y, notFinite)
}

// winner returns Σ w_i·x_i·y_i over a frame's two columns (x and y of
// length 2N), both weighted by the barycenter w (length N).
func winner(w, x, y []float64) float64 {
	n := len(w)
	x0, x1, y0, y1 := x[:n], x[n:2*n], y[:n], y[n:2*n]
	var s float64
	for i, wi := range w {
		s += wi * (x0[i]*y0[i] + x1[i]*y1[i])
	}
	return s
}
