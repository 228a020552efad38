package ot

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// normalized returns v/sum(v).
func normalized(v []float64) []float64 {
	s := sum(v)
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i] / s
	}
	return out
}

// seqCase is a set of sequences for the interpolation tests.
type seqCase struct {
	name  string
	times [][]float64 // per sequence; nil entry means Linspace(4)
}

var seqCases = []seqCase{
	// Several sequences: linspace with endpoints, uneven interior-only
	// times, endpoints given in reverse order and a tiny t.
	{"mixed", [][]float64{nil, {0.3, 0.71, 0.05}, {1, 0.5, 0.25, 0}}},
	{"interior-only", [][]float64{{0.2, 0.9}, {0.5}}},
	{"endpoints-only", [][]float64{{0, 1}, {1}}},
}

func makeSeqs(rng *rand.Rand, n int, times [][]float64) []Sequence {
	seqs := make([]Sequence, len(times))
	for s, ts := range times {
		seqs[s] = Sequence{
			Source: normalized(randVec(rng, n, 0.05, 1)),
			Target: normalized(randVec(rng, n, 0.05, 1)),
			Times:  ts,
		}
		if ts == nil {
			seqs[s].Frames = 4
		}
	}
	return seqs
}

// forwarder is what objective needs of Interpolator and Interpolator.
type forwarder interface {
	Forward() ([][][]float64, error)
}

// objective returns Σ_s Σ_j loss(rec_sj, obs_sj) for the current kernel and
// fills grec (if non-nil) with its gradient.
func objective(t *testing.T, ip forwarder, loss Loss, obs, grec [][][]float64) float64 {
	t.Helper()
	recs, err := ip.Forward()
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for s := range recs {
		for j := range recs[s] {
			var g []float64
			if grec != nil {
				g = grec[s][j]
			}
			v, err := loss.Eval(g, recs[s][j], obs[s][j])
			if err != nil {
				t.Fatal(err)
			}
			total += v
		}
	}
	return total
}

func shapeLike(recs [][][]float64) [][][]float64 {
	out := make([][][]float64, len(recs))
	for s := range recs {
		out[s] = make([][]float64, len(recs[s]))
		for j := range recs[s] {
			out[s][j] = make([]float64, len(recs[s][j]))
		}
	}
	return out
}

// TestBackwardFiniteDifferences checks the reverse pass: the gradient of
// Σ loss(rec, obs) with respect to the kernel parameters against central
// finite differences, for every loss, kernel and sequence layout.
func TestBackwardFiniteDifferences(t *testing.T) {
	for _, tk := range testKernels {
		for _, sc := range seqCases {
			for _, loss := range []Loss{L2, L1, KL} {
				t.Run(tk.name+"/"+sc.name+"/"+loss.String(), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(7, uint64(loss)))
					checkBackward(t, tk, rng, sc.times, 6, loss)
				})
			}
		}
	}
}

// checkBackward compares Backward with central finite differences of
// Σ loss(rec, obs) (h = 1e-6, accurate to ~1e-9 relative on these smooth
// objectives) for kernel tk, sequences with the given times and L iterations.
func checkBackward(t *testing.T, tk testKernel, rng *rand.Rand, times [][]float64, L int, loss Loss) {
	t.Helper()
	theta := tk.theta(rng)
	k := tk.make(theta)
	n := k.Size()
	ip, err := NewInterpolator(k, makeSeqs(rng, n, times), &Settings{Iterations: L})
	if err != nil {
		t.Fatal(err)
	}
	obs := shapeLike(ip.Recs())
	for s := range obs {
		for j := range obs[s] {
			obs[s][j] = normalized(randVec(rng, n, 0.05, 1))
		}
	}
	grec := shapeLike(ip.Recs())
	objective(t, ip, loss, obs, grec)
	gp := make([]float64, k.NumParams())
	if err := ip.Backward(gp, grec); err != nil {
		t.Fatal(err)
	}
	fd := fdGrad(func(th []float64) float64 {
		k.setParams(th)
		return objective(t, ip, loss, obs, nil)
	}, theta, 1e-6)
	if e := relErr(gp, fd); e > 1e-6 || math.IsNaN(e) {
		t.Errorf("L=%d %v: relative error %.3g\ngot  %v\nwant %v", L, loss, e, gp, fd)
	}
}

// TestBatchedEqualsSingle checks that advancing all frames of all sequences
// in lock-step gives bitwise the reconstructions of one frame at a time and
// of Barycenter, and the same parameter gradient as the sum of per-frame
// gradients.
func TestBatchedEqualsSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tk := testKernels[0]
	theta := tk.theta(rng)
	k := tk.make(theta)
	n := k.Size()
	const iters = 7
	seqs := makeSeqs(rng, n, seqCases[0].times)
	ip, err := NewInterpolator(k, seqs, &Settings{Iterations: iters})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ip.Forward()
	if err != nil {
		t.Fatal(err)
	}
	grec := shapeLike(recs)
	for s := range grec {
		for j := range grec[s] {
			grec[s][j] = randVec(rng, n, -1, 1)
		}
	}
	gp := make([]float64, k.NumParams())
	if err := ip.Backward(gp, grec); err != nil {
		t.Fatal(err)
	}
	gsum := make([]float64, k.NumParams())
	for s, sq := range seqs {
		times := sq.Times
		if times == nil {
			times = Linspace(sq.Frames)
		}
		for j, tj := range times {
			one, err := NewInterpolator(k, []Sequence{{Source: sq.Source, Target: sq.Target, Times: []float64{tj}}},
				&Settings{Iterations: iters})
			if err != nil {
				t.Fatal(err)
			}
			r1, err := one.Forward()
			if err != nil {
				t.Fatal(err)
			}
			for i := range r1[0][0] {
				if r1[0][0][i] != recs[s][j][i] {
					t.Fatalf("seq %d frame %d entry %d: batched %v, single %v", s, j, i, recs[s][j][i], r1[0][0][i])
				}
			}
			br, err := Barycenter(k, [][]float64{sq.Source, sq.Target},
				&BarycenterSettings{Weights: []float64{1 - tj, tj}, Iterations: iters})
			if err != nil {
				t.Fatal(err)
			}
			for i := range br.Bary {
				if br.Bary[i] != recs[s][j][i] {
					t.Fatalf("seq %d frame %d entry %d: batched %v, Barycenter %v", s, j, i, recs[s][j][i], br.Bary[i])
				}
			}
			if err := one.Backward(gsum, [][][]float64{{grec[s][j]}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Only the order of the sums differs.
	if e := relErr(gp, gsum); e > 1e-13 {
		t.Errorf("batched gradient differs from the sum of single-frame gradients: relative %.3g", e)
	}
}

// TestKernelCalls checks the batching contract: one Apply on the whole
// interior block per kernel application, one for the endpoints, one for K·1.
func TestKernelCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	k := &counting{DiffKernel: testKernels[1].make(testKernels[1].theta(rng))}
	const iters = 5
	ip, err := NewInterpolator(k, makeSeqs(rng, k.Size(), seqCases[0].times), &Settings{Iterations: iters})
	if err != nil {
		t.Fatal(err)
	}
	c, e := ip.Columns()
	if c != 2*7 || e != 4 {
		t.Fatalf("Columns() = %d, %d; want 14, 4", c, e)
	}
	recs, err := ip.Forward()
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, e, c} // K·1, endpoints, K·a of iteration 1
	for range iters - 1 {
		want = append(want, c, c)
	}
	if !equalInts(k.applies, want) {
		t.Errorf("Forward Apply column counts %v, want %v", k.applies, want)
	}
	grec := shapeLike(recs)
	if err := ip.Backward(make([]float64, k.NumParams()), grec); err != nil {
		t.Fatal(err)
	}
	want = nil
	for range iters - 1 {
		want = append(want, c, c)
	}
	want = append(want, c, e, 1)
	if !equalInts(k.adjoints, want) {
		t.Errorf("Backward Adjoint column counts %v, want %v", k.adjoints, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEndpointRule checks that frames at t = 0 and t = 1 are K·(P/K·1), the
// blurred pole, and that their mass is preserved by a heat kernel.
func TestEndpointRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	k := testKernels[1].make(testKernels[1].theta(rng))
	n := k.Size()
	seqs := makeSeqs(rng, n, [][]float64{{0, 0.5, 1}})
	ip, err := NewInterpolator(k, seqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ip.Forward()
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	k1 := make([]float64, n)
	_ = k.Apply(k1, ones, 1)
	for j, p := range map[int][]float64{0: seqs[0].Source, 2: seqs[0].Target} {
		a := make([]float64, n)
		for i := range a {
			a[i] = p[i] / k1[i]
		}
		want := make([]float64, n)
		_ = k.Apply(want, a, 1)
		for i := range want {
			if recs[0][j][i] != want[i] {
				t.Fatalf("frame %d entry %d: %v, want K(P/K1) = %v", j, i, recs[0][j][i], want[i])
			}
		}
		if math.Abs(sum(recs[0][j])-1) > 1e-14 {
			t.Errorf("frame %d mass %v, want 1", j, sum(recs[0][j]))
		}
		if relErr(recs[0][j], p) < 1e-3 {
			t.Errorf("frame %d equals the pole; it should be blurred", j)
		}
	}
	if m := sum(recs[0][1]); !(m < 1 && m > 0.99) {
		t.Errorf("interior mass %v, want slightly below 1 (no renormalisation)", m)
	}
}

// TestNonFinite checks that an underflowing kernel gives a *NonFiniteError
// naming the sequence and frame, and no NaN is handed on.
func TestNonFinite(t *testing.T) {
	const n = 30
	k := newGibbsGrid(n, 1, 1e-4) // exp(−1/ε) underflows across the grid
	left, right := make([]float64, n), make([]float64, n)
	left[0], right[n-1] = 1, 1
	rng := rand.New(rand.NewPCG(1, 1))
	seqs := []Sequence{
		{Source: normalized(randVec(rng, n, 0.5, 1)), Target: normalized(randVec(rng, n, 0.5, 1)), Frames: 3},
		{Source: left, Target: right, Frames: 3},
	}
	ip, err := NewInterpolator(k, seqs, &Settings{Iterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ip.Forward()
	if recs != nil {
		t.Error("Forward returned reconstructions with an error")
	}
	if !errors.Is(err, ErrNonFinite) {
		t.Fatalf("err = %v, want ErrNonFinite", err)
	}
	var nf *NonFiniteError
	if !errors.As(err, &nf) {
		t.Fatalf("err = %T, want *NonFiniteError", err)
	}
	if nf.Sequence != 1 || nf.Frame != 1 || nf.Iteration < 1 {
		t.Errorf("error locates sequence %d frame %d iteration %d; want 1, 1, ≥1", nf.Sequence, nf.Frame, nf.Iteration)
	}
	if !strings.Contains(err.Error(), "diffusion time") {
		t.Errorf("error %q does not name the parameter to change", err)
	}
	if _, err := Barycenter(k, [][]float64{left, right}, nil); !errors.Is(err, ErrNonFinite) {
		t.Errorf("Barycenter: err = %v, want ErrNonFinite", err)
	}
}

// TestBackwardNonFinite checks that a non-finite incoming gradient is
// reported, not handed on.
func TestBackwardNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	k := testKernels[0].make(testKernels[0].theta(rng))
	ip, err := NewInterpolator(k, makeSeqs(rng, k.Size(), [][]float64{nil}), &Settings{Iterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ip.Forward()
	if err != nil {
		t.Fatal(err)
	}
	grec := shapeLike(recs)
	grec[0][1][3] = math.Inf(1)
	if err := ip.Backward(make([]float64, k.NumParams()), grec); !errors.Is(err, ErrNonFinite) {
		t.Errorf("err = %v, want ErrNonFinite", err)
	}
}

// forwardBackward returns a function that runs Forward and Backward of a
// small exact-mode interpolation, for the allocation tests.
func forwardBackward(t *testing.T) func() {
	rng := rand.New(rand.NewPCG(4, 4))
	k := testKernels[0].make(testKernels[0].theta(rng))
	ip, err := NewInterpolator(k, makeSeqs(rng, k.Size(), seqCases[0].times), &Settings{Iterations: 5})
	if err != nil {
		t.Fatal(err)
	}
	grec := shapeLike(ip.Recs())
	for s := range grec {
		for j := range grec[s] {
			grec[s][j] = randVec(rng, k.Size(), -1, 1)
		}
	}
	gp := make([]float64, k.NumParams())
	return func() {
		if _, err := ip.Forward(); err != nil {
			t.Fatal(err)
		}
		if err := ip.Backward(gp, grec); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoAllocs checks that Forward and Backward do not allocate.
func TestNoAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(5, forwardBackward(t))
	if allocs != 0 {
		t.Errorf("Forward+Backward allocate %v times per run, want 0", allocs)
	}
}

// TestValidation checks the returned errors for invalid data.
func TestValidation(t *testing.T) {
	k := newGibbsGrid(5, 1, 0.1)
	good := []float64{0.2, 0.2, 0.2, 0.2, 0.2}
	bad := []float64{0.2, -0.1, 0.3, 0.3, 0.3}
	tests := []struct {
		name string
		seq  Sequence
	}{
		{"negative pole", Sequence{Source: bad, Target: good, Frames: 3}},
		{"NaN pole", Sequence{Source: good, Target: []float64{0, math.NaN(), 0, 0, 1}, Frames: 3}},
		{"time above 1", Sequence{Source: good, Target: good, Times: []float64{0.5, 1.5}}},
		{"NaN time", Sequence{Source: good, Target: good, Times: []float64{math.NaN()}}},
	}
	for _, tt := range tests {
		if _, err := NewInterpolator(k, []Sequence{tt.seq}, nil); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// TestInterpolateMatchesBarycenter checks that every frame of Interpolate
// is the Barycenter of its poles with weights (1−t, t), L iterations from
// b = 1 (within round-off: the kernel sees blocks of other widths). With
// IterateEndpoints the end frames run the loop with weights (1, 0), which
// keeps b = 1 and so equals the endpoint rule K(P/K·1) up to the round-off
// of exp(log x).
func TestInterpolateMatchesBarycenter(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	k := testKernels[0].make(testKernels[0].theta(rng))
	times := Linspace(5)
	seqs := makeSeqs(rng, k.Size(), [][]float64{times})
	p, q := seqs[0].Source, seqs[0].Target
	for _, iterate := range []bool{false, true} {
		for _, L := range []int{1, 7, 30} {
			got, err := Interpolate(k, seqs, &Settings{Iterations: L, IterateEndpoints: iterate})
			if err != nil {
				t.Fatal(err)
			}
			for f, tf := range times {
				want, err := Barycenter(k, [][]float64{p, q}, &BarycenterSettings{Weights: []float64{1 - tf, tf}, Iterations: L})
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-14
				if iterate && (tf == 0 || tf == 1) {
					tol = 1e-12
				}
				if e := relErr(got[0][f], want.Bary); e > tol {
					t.Errorf("L=%d IterateEndpoints=%v frame %d (t=%g): relative difference %.3g from Barycenter", L, iterate, f, tf, e)
				}
			}
		}
	}
}

func TestLinear(t *testing.T) {
	p, q := []float64{0.2, 0.3, 0.5}, []float64{0.6, 0.1, 0.3}
	got := Linear(p, q, []float64{0, 1, 0.25})
	for i := range p {
		if got[0][i] != p[i] || got[1][i] != q[i] || got[2][i] != 0.75*p[i]+0.25*q[i] {
			t.Errorf("entry %d: %v, %v, %v", i, got[0][i], got[1][i], got[2][i])
		}
	}
	mustPanic(t, "lengths", func() { Linear(p, q[:2], []float64{0.5}) })
}

func TestLinspace(t *testing.T) {
	tests := []struct {
		p    int
		want []float64
	}{
		{1, []float64{0}},
		{2, []float64{0, 1}},
		{4, []float64{0, 1.0 / 3, 2 * (1.0 / 3), 1}},
		// numpy.linspace(0,1,11)[3] is 3·fl(0.1) = 0.30000000000000004.
		{11, []float64{0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9, 1}},
	}
	for _, tt := range tests {
		got := Linspace(tt.p)
		for i := range tt.want {
			if got[i] != tt.want[i] {
				t.Errorf("Linspace(%d)[%d] = %v, want %v", tt.p, i, got[i], tt.want[i])
			}
		}
	}
}

// taping is a DiffKernel wrapper that records the src of every Apply on a
// LIFO tape and checks that each Adjoint pops a bitwise-equal src, as
// kernel.Heat's Store mode needs.
type taping struct {
	DiffKernel
	tape   [][]float64
	misses int
}

func (k *taping) Apply(dst, src []float64, cols int) error {
	k.tape = append(k.tape, append([]float64(nil), src...))
	return k.DiffKernel.Apply(dst, src, cols)
}

func (k *taping) Adjoint(gsrc, gparam, src, gdst []float64, cols int) error {
	top := k.tape[len(k.tape)-1]
	k.tape = k.tape[:len(k.tape)-1]
	if len(top) != len(src) || relErr(top, src) != 0 {
		k.misses++
	}
	return k.DiffKernel.Adjoint(gsrc, gparam, src, gdst, cols)
}

// TestAdjointOrder checks that Backward's adjoint calls replay Forward's
// applications in reverse order with bitwise-equal inputs.
func TestAdjointOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, sc := range seqCases {
		k := &taping{DiffKernel: testKernels[0].make(testKernels[0].theta(rng))}
		ip, err := NewInterpolator(k, makeSeqs(rng, k.Size(), sc.times), &Settings{Iterations: 4})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := ip.Forward()
		if err != nil {
			t.Fatal(err)
		}
		if err := ip.Backward(make([]float64, k.NumParams()), shapeLike(recs)); err != nil {
			t.Fatal(err)
		}
		if k.misses != 0 || len(k.tape) != 0 {
			t.Errorf("%s: %d adjoint inputs differ from their application's, %d applications left", sc.name, k.misses, len(k.tape))
		}
	}
}
