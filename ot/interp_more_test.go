package ot

import (
	"math/rand/v2"
	"testing"
)

// TestForwardOnly checks that ForwardOnly gives the same reconstructions
// without the tape, and that Backward leaves the reconstructions untouched.
func TestForwardOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	k := testKernels[0].make(testKernels[0].theta(rng))
	n := k.Size()
	seqs := makeSeqs(rng, n, seqCases[0].times)
	const L = 6
	full, err := NewInterpolator(k, seqs, &Settings{Iterations: L})
	if err != nil {
		t.Fatal(err)
	}
	lite, err := NewInterpolator(k, seqs, &Settings{Iterations: L, ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r1, err := full.Forward()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := lite.Forward()
	if err != nil {
		t.Fatal(err)
	}
	saved := shapeLike(r1)
	for s := range r1 {
		for j := range r1[s] {
			copy(saved[s][j], r1[s][j])
			for i := range r1[s][j] {
				if r1[s][j][i] != r2[s][j][i] {
					t.Fatalf("seq %d frame %d: ForwardOnly differs", s, j)
				}
			}
		}
	}
	grec := shapeLike(r1)
	for s := range grec {
		for j := range grec[s] {
			grec[s][j] = randVec(rng, n, -1, 1)
		}
	}
	if err := full.Backward(make([]float64, k.NumParams()), grec); err != nil {
		t.Fatal(err)
	}
	for s := range r1 {
		for j := range r1[s] {
			if relErr(r1[s][j], saved[s][j]) != 0 {
				t.Fatalf("Backward changed reconstruction %d/%d", s, j)
			}
		}
	}
	mustPanic(t, "Backward with ForwardOnly", func() { _ = lite.Backward(make([]float64, k.NumParams()), grec) })
	fresh, _ := NewInterpolator(k, seqs, &Settings{Iterations: L})
	mustPanic(t, "Backward before Forward", func() { _ = fresh.Backward(make([]float64, k.NumParams()), grec) })
	mustPanic(t, "wrong gparam length", func() { _ = full.Backward(make([]float64, 3), grec) })
	mustPanic(t, "not a DiffKernel", func() {
		g := newGibbsGrid(n, 1, 0.1)
		ip, _ := NewInterpolator(g, seqs, nil)
		_, _ = ip.Forward()
		_ = ip.Backward(nil, grec)
	})
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

// TestBackwardFewIterations covers L = 1 and L = 2, where the first
// iteration's K·1 and the taped b of iteration 1 meet.
func TestBackwardFewIterations(t *testing.T) {
	for _, L := range []int{1, 2} {
		rng := rand.New(rand.NewPCG(21, uint64(L)))
		checkBackward(t, testKernels[0], rng, seqCases[0].times, L, L2)
	}
}

// TestWorkspaceBytes checks WorkspaceBytes, hence MemoryBytes, against the
// arrays an Interpolator has allocated after a Forward and a Backward, in
// every layout, with and without endpoint frames, and against its
// documented formulas.
func TestWorkspaceBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	k := testKernels[1].make(testKernels[1].theta(rng))
	n := k.Size()
	const L = 6
	for _, sc := range seqCases[:2] {
		seqs := makeSeqs(rng, n, sc.times)
		var c, e int
		for _, set := range []Settings{
			{Iterations: L},
			{Iterations: L, ForwardOnly: true},
			{Iterations: L, Gradient: ImplicitFixedPoint},
			{Tol: 1e-9},
			{Tol: 1e-9, ForwardOnly: true, Anderson: 2},
			{Tol: 1e-9, Gradient: ImplicitGMRES, AdjointRestart: 3, Anderson: 3},
		} {
			ip, err := NewInterpolator(k, seqs, &set)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := ip.Forward()
			if err != nil {
				t.Fatal(err)
			}
			if !set.ForwardOnly {
				if err := ip.Backward(make([]float64, k.NumParams()), randObs(rng, recs, n)); err != nil {
					t.Fatal(err)
				}
			}
			c, e = ip.Columns()
			if got, want := ip.MemoryBytes(), allocatedBytes(ip); got != want {
				t.Errorf("%s %+v: MemoryBytes %d, allocated %d", sc.name, set, got, want)
			}
			if got, want := WorkspaceBytes(n, c, e, &set), float64(ip.MemoryBytes()); got != want {
				t.Errorf("%s %+v: WorkspaceBytes %g, MemoryBytes %g", sc.name, set, got, want)
			}
		}
		set := &Settings{Iterations: L}
		if got, want := WorkspaceBytes(n, c, e, set), float64(8*n*(2*L*c+L*c/2+5*c+4*e+3)); got != want {
			t.Errorf("%s: WorkspaceBytes %g, want 8·N·((2.5L+5)·C+4E+3) = %g", sc.name, got, want)
		}
		set.ForwardOnly = true
		if got, want := WorkspaceBytes(n, c, e, set), float64(8*n*(11*c/2+2*e+2)); got != want {
			t.Errorf("%s: ForwardOnly WorkspaceBytes %g, want 8·N·(5.5·C+2E+2) = %g", sc.name, got, want)
		}
	}
}

// allocatedBytes adds up the lengths of the arrays of ip's workspace, each
// GMRES kernel image counted whether or not a Backward has needed it yet.
func allocatedBytes(ip *Interpolator) int {
	s := &ip.sk
	f := len(s.k1) + len(s.ones) + len(ip.g1) + len(s.tapeU) + len(s.tapeV) + len(s.tapeQ) + len(s.dev) +
		len(ip.ab) + len(ip.vb) + len(ip.aEnd) + len(ip.rEnd) + len(ip.gEnd) + len(ip.abEnd)
	if ip.inPlace {
		return 8 * (f + len(s.a) + len(s.bIn))
	}
	im := ip.im
	f += len(s.bOut) + len(im.src2) + len(im.g2) + len(im.gsrc) + len(im.g1) + len(im.z) + len(im.zNew) + len(im.warm.b)
	if gm := im.gm; gm != nil {
		f += len(gm.zs) * (1 + len(gm.abar))
		for _, v := range gm.v {
			f += len(v)
		}
	}
	if aa := im.aa; aa != nil {
		f += len(aa.rPrev) + len(aa.gPrev) + len(aa.g)
		for i := range aa.dR {
			f += len(aa.dR[i]) + len(aa.dG[i])
		}
	}
	return 8 * f
}
