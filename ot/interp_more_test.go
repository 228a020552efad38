package ot

import (
	"math/rand/v2"
	"testing"
)

// TestForwardOnlyAndMemory checks that ForwardOnly gives the same
// reconstructions without the tape, that MemoryBytes follows the documented
// formulas, and that Backward leaves the reconstructions untouched.
func TestForwardOnlyAndMemory(t *testing.T) {
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
	c, e := full.Columns()
	if got, want := full.MemoryBytes(), 8*n*(2*L*c+L*c/2+5*c+4*e+3); got != want {
		t.Errorf("MemoryBytes = %d, want 8·N·((2.5L+5)·C+4E+3) = %d", got, want)
	}
	if got, want := lite.MemoryBytes(), 8*n*(11*c/2+2*e+2); got != want {
		t.Errorf("ForwardOnly MemoryBytes = %d, want 8·N·(5.5·C+2E+2) = %d", got, want)
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
