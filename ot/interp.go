package ot

import (
	"cmp"
	"fmt"
)

// Sequence is one displacement interpolation to reconstruct: two poles
// (the histograms at t = 0 and t = 1) and the times of its frames.
type Sequence struct {
	// Source and Target are the poles P₀ (t = 0) and P₁ (t = 1), each of
	// length N, non-negative. They are copied by NewInterpolator.
	Source, Target []float64
	// Times are the frame times t_j ∈ [0, 1], in any order. nil means
	// Linspace(Frames).
	Times []float64
	// Frames is the number of frames when Times is nil.
	Frames int
}

// Linspace returns p times evenly spaced on [0, 1] with numpy.linspace
// semantics: t_j = j·fl(1/(p−1)) and the last one exactly 1.0; p = 1 gives [0].
func Linspace(p int) []float64 {
	if p < 1 {
		panic("ot: Linspace: need at least one point")
	}
	t := make([]float64, p)
	if p == 1 {
		return t
	}
	step := 1 / float64(p-1)
	for j := range t {
		t[j] = float64(j) * step
	}
	t[p-1] = 1
	return t
}

// Interpolate returns the displacement interpolations of the sequences seqs
// under the kernel k, indexed [sequence][frame]: the reconstructions, which
// belong to the caller, of one Forward of an Interpolator built with the
// settings s (nil: the defaults) and ForwardOnly. The settings choose the model
// (L iterations or convergence to Tol) and whether the endpoint frames are
// K·(P/K·1), as the learning objective reconstructs them, or run the loop
// (IterateEndpoints), as the reference's colour interpolation does.
func Interpolate(k Kernel, seqs []Sequence, s *Settings) ([][][]float64, error) {
	set := *cmp.Or(s, &Settings{})
	set.ForwardOnly = true
	ip, err := NewInterpolator(k, seqs, &set)
	if err != nil {
		return nil, err
	}
	return ip.Forward()
}

// Linear returns the linear interpolation (1−t)·h0 + t·h1 at each of the
// times, the interpolation without transport (the reference's "linear"
// method; docs/method.md, "Histogram interpolation").
func Linear(h0, h1, times []float64) [][]float64 {
	if len(h0) != len(h1) {
		panic(fmt.Sprintf("ot: Linear: histograms of length %d and %d", len(h0), len(h1)))
	}
	out := make([][]float64, len(times))
	for f, t := range times {
		out[f] = make([]float64, len(h0))
		for i := range h0 {
			out[f][i] = (1-t)*h0[i] + t*h1[i]
		}
	}
	return out
}

// Interpolator reconstructs the frames of many displacement interpolations
// with Sinkhorn barycenters, all advancing in lock-step, and back-propagates
// a loss gradient through them to the kernel parameters.
//
// Frame j of a sequence is the barycenter of its poles with weights
// λ = (1−t_j, t_j). A frame whose weight is exactly 1 (t = 0, t = 1, or a t so
// small that 1−t rounds to 1) is an endpoint frame, K·(P/K·1), unless
// Settings.IterateEndpoints. The F interior frames over all sequences form N×C
// blocks, C = 2F, whose column 2f+k belongs to pole k of interior frame f in
// (sequence, frame) order. With a fixed L, one Forward makes at most 2L+1
// kernel applications: K·1 on one column, the E endpoint frames on one N×E
// block, and two N×C applications per iteration except the first, whose
// K·b = K·1 is broadcast. The unrolled Backward makes as many adjoint calls.
//
// # Tolerance mode
//
// With Settings.Tol > 0, Forward iterates until the marginal violation, the
// largest ‖b_k⊙K·a_k − q‖₁ over all columns (b the iteration's input), is at
// most Tol; started cold, the iterates are those of the fixed-L mode.
//
// # Implicit gradient
//
// Let T(b, θ) be one iteration and Q(b, θ) its q. At the fixed point
// b* = T(b*), the gradient of a loss ℓ(q*) is
//
//	∂ℓ/∂θ = Q_θᵀ·ḡ + T_θᵀ·z,   z = J_bᵀ·z + Q_bᵀ·ḡ   (J_b = ∂T/∂b),
//
// and an implicit Backward solves for z by the fixed-point iteration on the
// right or by restarted GMRES (Settings.Gradient), two kernel applications
// per evaluation of the map (K is symmetric), then accumulates the
// parameter gradient once (backwardImplicit). The iteration is
// differentiated with its gauge fixed (gauge.go), so that the adjoint
// iteration converges at the forward one's rate. The gradient is that of
// the converged objective, only as accurate as Stats().Converged says.
//
// # Warm start
//
// In tolerance mode (unless Settings.Cold), every successful Forward stores
// the input b of its last iteration, moved to the gauge, and the next
// Forward starts from it; the adjoint vector z of the last Backward is kept
// likewise. SaveWarm and LoadWarm snapshot and restore both (e.g. those of
// the last accepted point of a line search); ResetWarm returns to the cold
// start. A failed Forward leaves them unchanged; a warm Forward that meets
// a non-finite value is retried once from b = 1.
//
// Storing the last input rather than its image T(b) makes evaluations
// consistent near the point they start from: with Stats().Correction the
// value is L(θ; b, z) = ℓ(Q(b, θ)) + zᵀ·(T(b, θ) − b), a Lagrangian of the
// fixed-point constraint, whose gradient at (b, z) Backward returns
// exactly. Started from the (b, z) a point's evaluation ended with, an
// evaluation at the same θ stops after one iteration (the adjoint solve at
// once) with the same value and gradient to round-off, so a line search
// sees one smooth function whose slope is the gradient's.
//
// Beyond the workspace, allocated by NewInterpolator and (the Anderson and
// GMRES parts) by the first Forward and Backward that need them, Forward and
// Backward do not allocate. An Interpolator is not safe for concurrent use.
type Interpolator struct {
	sk      sinkhorn // the interior frames: one group per frame
	set     Settings // defaults filled in
	inPlace bool     // fixed L, unrolled: b is updated in place, u, v, q taped
	tape    bool     // the unrolled gradient's tape is kept

	nEnd       int
	endPole    [][]float64 // per endpoint frame
	endRef     []frameRef  // per endpoint frame
	aEnd, rEnd []float64   // N×E

	// The unrolled Backward's workspace.
	g1          []float64 // N
	ab, vb      []float64 // N×C
	gEnd, abEnd []float64 // N×E

	im *implicitWork // the implicit gradient's workspace and warm start

	// The Backward in progress, for its parallel parts.
	grec          [][][]float64 // the loss gradients (nil where they do not enter)
	sdst, sab, su []float64     // the blocks of scaleAdjoint

	recs  [][][]float64
	stats Stats
	done  bool // a successful Forward is on record
}

type frameRef struct{ seq, frame int }

// NewInterpolator builds the workspace for the sequences seqs over the
// kernel k with the settings s (nil means the defaults). It returns an
// error for invalid data (negative or non-finite pole entries, times
// outside [0, 1]) and panics on programmer errors (wrong lengths, no
// sequence, no frame, invalid settings).
func NewInterpolator(k Kernel, seqs []Sequence, s *Settings) (*Interpolator, error) {
	set := s.withDefaults()
	if len(seqs) == 0 {
		panic("ot: NewInterpolator: no sequence")
	}
	ip := &Interpolator{set: set}
	ip.inPlace = !set.tolMode() && set.Gradient == Unrolled
	ip.tape = ip.inPlace && !set.ForwardOnly
	ip.sk = sinkhorn{k: k, n: k.Size(), op: "forward"}
	slots, err := ip.addSequences(seqs)
	if err != nil {
		return nil, fmt.Errorf("ot: NewInterpolator: %w", err)
	}
	ip.aEnd = make([]float64, ip.sk.n*ip.nEnd)
	ip.rEnd = make([]float64, ip.sk.n*ip.nEnd)
	if ip.inPlace {
		ip.allocInPlace()
	} else {
		ip.allocImplicit()
	}
	ip.setRecs(slots)
	return ip, nil
}

// frameSlot locates a frame among the interior (end = false) or endpoint
// frames.
type frameSlot struct {
	end bool
	idx int
}

// addSequences validates the sequences and sorts their frames into interior
// groups and endpoint frames.
func (ip *Interpolator) addSequences(seqs []Sequence) ([][]frameSlot, error) {
	n := ip.sk.n
	slots := make([][]frameSlot, len(seqs))
	for si, sq := range seqs {
		if len(sq.Source) != n || len(sq.Target) != n {
			panic(fmt.Sprintf("ot: NewInterpolator: sequence %d: poles of length %d and %d, want kernel size %d",
				si, len(sq.Source), len(sq.Target), n))
		}
		src := append([]float64(nil), sq.Source...)
		tgt := append([]float64(nil), sq.Target...)
		for k, p := range [][]float64{src, tgt} {
			if err := checkHist(p); err != nil {
				return nil, fmt.Errorf("sequence %d: %s: %w", si, [2]string{"source", "target"}[k], err)
			}
		}
		times := sq.Times
		if times == nil {
			if sq.Frames < 1 {
				panic(fmt.Sprintf("ot: NewInterpolator: sequence %d: no Times and Frames = %d", si, sq.Frames))
			}
			times = Linspace(sq.Frames)
		}
		if len(times) == 0 {
			panic(fmt.Sprintf("ot: NewInterpolator: sequence %d: no frame", si))
		}
		slots[si] = make([]frameSlot, len(times))
		for j, t := range times {
			if !(t >= 0 && t <= 1) {
				return nil, fmt.Errorf("sequence %d: time %d is %v, want 0 ≤ t ≤ 1", si, j, t)
			}
			slots[si][j] = ip.addFrame(src, tgt, 1-t, t, frameRef{si, j})
		}
	}
	return slots, nil
}

// addFrame adds the frame with weights (l0, l1) of poles src and tgt.
func (ip *Interpolator) addFrame(src, tgt []float64, l0, l1 float64, r frameRef) frameSlot {
	if !ip.set.IterateEndpoints && (l0 == 1 || l1 == 1) {
		p := src
		if l1 == 1 {
			p = tgt
		}
		ip.endPole = append(ip.endPole, p)
		ip.endRef = append(ip.endRef, r)
		ip.nEnd++
		return frameSlot{true, ip.nEnd - 1}
	}
	s := &ip.sk
	s.groups = append(s.groups, group{col: len(s.pole), lam: []float64{l0, l1}, seq: r.seq, frame: r.frame})
	s.pole = append(s.pole, src, tgt)
	return frameSlot{false, len(s.groups) - 1}
}

// allocInPlace allocates the fixed-L, unrolled layout: b updated in place,
// and with the tape u, v and q of every iteration and the reverse pass.
func (ip *Interpolator) allocInPlace() {
	s := &ip.sk
	if !ip.tape {
		s.allocInPlace(1)
		return
	}
	s.allocInPlace(ip.set.Iterations)
	nc, ne := s.n*len(s.pole), s.n*ip.nEnd
	ip.g1 = make([]float64, s.n)
	ip.ab = make([]float64, nc)
	ip.vb = make([]float64, nc)
	ip.gEnd = make([]float64, ne)
	ip.abEnd = make([]float64, ne)
}

// setRecs points the reconstructions at q (interior frames) and at the
// endpoint block.
func (ip *Interpolator) setRecs(slots [][]frameSlot) {
	n := ip.sk.n
	nq := n * len(ip.sk.groups)
	q := ip.sk.tapeQ[len(ip.sk.tapeQ)-nq:]
	ip.recs = make([][][]float64, len(slots))
	for si := range slots {
		ip.recs[si] = make([][]float64, len(slots[si]))
		for j, sl := range slots[si] {
			src := q
			if sl.end {
				src = ip.rEnd
			}
			ip.recs[si][j] = src[sl.idx*n : (sl.idx+1)*n : (sl.idx+1)*n]
		}
	}
}

// Size returns N, the length of every histogram.
func (ip *Interpolator) Size() int { return ip.sk.n }

// Settings returns the settings in effect, defaults filled in.
func (ip *Interpolator) Settings() Settings { return ip.set }

// Columns returns C = 2F, the number of columns of the interior blocks (F
// interior frames over all sequences), and E, the number of endpoint frames.
func (ip *Interpolator) Columns() (c, e int) { return len(ip.sk.pole), ip.nEnd }

// Stats returns the iteration counts and residuals of the last Forward and
// Backward.
func (ip *Interpolator) Stats() Stats { return ip.stats }

// MemoryBytes returns the size of the workspace in bytes:
// WorkspaceBytes of its sizes and settings.
func (ip *Interpolator) MemoryBytes() int {
	c, e := ip.Columns()
	return int(WorkspaceBytes(ip.sk.n, c, e, &ip.set))
}

// WorkspaceBytes returns the bytes of the workspace of an Interpolator whose
// histograms have length N = n, with c interior columns, e endpoint frames (see
// Columns) and the settings s: its MemoryBytes, from the sizes alone, so that a
// caller can bound the memory before building anything (in float64, so that
// absurd sizes do not overflow). With a fixed L and the unrolled gradient it is
//
//	8·N·((2.5·L+5)·C + 4E + 3)    with the tape (the default)
//	8·N·(5.5·C + 2E + 2)          with ForwardOnly
//
// the tape, K·b, K·a and the reconstructions q of every iteration, being
// the 2.5·L·C term. The layout that keeps each iteration's input
// (tolerance mode or an implicit gradient) has no tape, whatever the
// number of iterations: 8·N·(13.5·C + 6E + 3) (8·N·(11.5·C + 3) without
// endpoint frames; 8·N·(7.5·C + 4E + 2) with ForwardOnly). ImplicitGMRES
// adds 8·N·C·(2·AdjointRestart+3) for the Krylov basis and its kernel
// images (the images allocated as the first Backward needs them), and
// Anderson mixing 8·N·C·(2·Anderson+3). Not counted: the copied poles,
// 16·N per sequence, and slices of one value per frame or column.
func WorkspaceBytes(n, c, e int, s *Settings) float64 {
	set := s.withDefaults()
	nc, ne := float64(c), float64(e)
	var f float64
	switch {
	case !set.tolMode() && set.Gradient == Unrolled && set.ForwardOnly:
		f = 5.5*nc + 2*ne + 2
	case !set.tolMode() && set.Gradient == Unrolled:
		f = (2.5*float64(set.Iterations)+5)*nc + 4*ne + 3
	case set.ForwardOnly:
		f = 7.5*nc + 4*ne + 2
	default:
		f = 11.5*nc + 5*ne + 3
		if e > 0 {
			f += 2*nc + ne
		}
		if set.Gradient == ImplicitGMRES {
			f += float64(2*set.AdjointRestart+3) * nc
		}
	}
	if set.Anderson > 0 {
		f += float64(2*set.Anderson+3) * nc
	}
	return 8 * float64(n) * f
}

// Recs returns the reconstructions of the last Forward, indexed
// [sequence][frame]: views into the workspace that the next one overwrites.
func (ip *Interpolator) Recs() [][][]float64 { return ip.recs }

// Forward reconstructs every frame of every sequence with the current
// kernel and returns the reconstructions (the views of Recs), recording
// what Backward needs. If a reconstruction's mass becomes NaN, infinite or
// zero (the kernel underflowed), it returns a *NonFiniteError.
func (ip *Interpolator) Forward() ([][][]float64, error) {
	ip.done = false
	ip.stats = Stats{}
	warm := ip.set.tolMode() && !ip.set.Cold && ip.im.warm.hasB
	err := ip.forward(warm)
	if err != nil && warm && isNonFinite(err) {
		ip.stats.ColdRetry = true
		err = ip.forward(false)
	}
	if err != nil {
		return nil, wrap("Forward", err)
	}
	if !ip.inPlace && len(ip.sk.groups) > 0 {
		ip.fixGauge()
		if ip.set.tolMode() {
			copy(ip.im.warm.b, ip.sk.bIn)
			ip.im.warm.hasB = true
		}
	}
	ip.done = true
	return ip.recs, nil
}

// forward runs the endpoint frames and the iterations, cold or from the
// stored scalings.
func (ip *Interpolator) forward(warm bool) error {
	s := &ip.sk
	ip.stats.Warm = warm
	// Warm with interior frames, the endpoint frames' K·a_end rides along
	// with the first iteration's K·b (one kernel application instead of
	// two), and a kernel that keeps K·1 = 1 (OnesPreserving) is not applied
	// to 1. Cold, it runs as the fixed-L mode does, bitwise.
	fuse := warm && ip.nEnd > 0 && len(s.groups) > 0
	switch {
	case ip.nEnd > 0 && warm && preservesOnes(s.k):
		copy(s.k1, s.ones)
	case ip.nEnd > 0 || !warm:
		if err := s.apply(s.k1, s.ones, 1); err != nil {
			return err
		}
	}
	if err := ip.endpoints(!fuse); err != nil {
		return err
	}
	if len(s.groups) == 0 {
		ip.stats.Converged = true
		return nil
	}
	o := sweepOpts{iters: ip.set.Iterations, warm: warm}
	if ip.set.tolMode() {
		o.iters, o.tol = ip.set.MaxIterations, ip.set.Tol
	}
	if warm {
		copy(s.bIn, ip.im.warm.b)
	}
	if fuse {
		if err := ip.fusedFirst(); err != nil {
			return err
		}
		o.uReady = true
	}
	if ip.set.Anderson > 0 {
		if ip.im.aa == nil {
			ip.im.aa = newAnderson(ip.set.Anderson, s.n, len(s.groups))
		}
		o.mix = ip.im.aa
		o.mix.reset(warm)
	}
	err := s.run(o, &ip.stats)
	if o.mix != nil {
		ip.stats.AndersonRestarts += o.mix.restarts
	}
	return err
}

// endpoints computes a_end = P/K·1 and, with apply, the endpoint
// reconstructions K·a_end.
func (ip *Interpolator) endpoints(apply bool) error {
	if ip.nEnd == 0 {
		return nil
	}
	s := &ip.sk
	for e, p := range ip.endPole {
		ae := s.col(ip.aEnd, e)
		for i := range ae {
			ae[i] = p[i] / s.k1[i]
		}
	}
	if !apply {
		return nil
	}
	if err := s.apply(ip.rEnd, ip.aEnd, ip.nEnd); err != nil {
		return err
	}
	return ip.checkEnd()
}

// checkEnd reports an endpoint reconstruction without finite positive mass.
func (ip *Interpolator) checkEnd() error {
	for e, r := range ip.endRef {
		if !positiveFinite(sum(ip.sk.col(ip.rEnd, e))) {
			return &NonFiniteError{Op: "forward", Sequence: r.seq, Frame: r.frame, Hint: hintUnderflow}
		}
	}
	return nil
}

func isNonFinite(err error) bool {
	_, ok := err.(*NonFiniteError)
	return ok
}

// wrap prefixes err with "ot: op: " unless it is a *NonFiniteError, which
// says where it arose itself.
func wrap(op string, err error) error {
	if isNonFinite(err) {
		return err
	}
	return fmt.Errorf("ot: %s: %w", op, err)
}
