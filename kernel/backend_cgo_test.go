//go:build cgo

package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/netlib/blas/netlib"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// TestGoBackendsCgo checks the registration of a cgo build: CHOLMOD stays
// the default, "go" runs on OpenBLAS (netlib) and "go-purego" on gonum's
// BLAS, each reporting its own name.
func TestGoBackendsCgo(t *testing.T) {
	if got := DefaultBackend().Name(); got != "cholmod" {
		t.Errorf("DefaultBackend() = %q, want cholmod", got)
	}
	for _, c := range []struct {
		name   string
		netlib bool
	}{{"go", true}, {"go-purego", false}} {
		if !slices.Contains(Backends(), c.name) {
			t.Fatalf("Backends() = %v, want %q among them", Backends(), c.name)
		}
		f, err := Backend(c.name)
		if err != nil {
			t.Fatal(err)
		}
		var sb sparsechol.Backend
		switch f := f.(type) {
		case sparsechol.Backend:
			sb = f
		case oneBLASThread:
			sb = f.Backend
		default:
			t.Fatalf("Backend(%q) is a %T, want a sparsechol.Backend", c.name, f)
		}
		if _, isNetlib := sb.BLAS.(netlib.Implementation); isNetlib != c.netlib {
			t.Errorf("Backend(%q).BLAS = %T, want netlib: %v", c.name, sb.BLAS, c.netlib)
		}
		if got := f.Name(); got != c.name {
			t.Errorf("Backend(%q).Name() = %q", c.name, got)
		}
	}
}

// TestOneBLASThread checks that analysing with the backends whose
// factorisation calls OpenBLAS ("cholmod" and "go") sets OpenBLAS to one
// thread, and that "go-purego" leaves the setting alone.
func TestOneBLASThread(t *testing.T) {
	defer cholmod.SetBLASThreads(cholmod.BLASThreads())
	g, err := Grid(6, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want int
	}{{"cholmod", 1}, {"go", 1}, {"go-purego", 3}} {
		if !cholmod.SetBLASThreads(3) {
			t.Skip("OpenBLAS is not the BLAS of this process")
		}
		f, _ := Backend(c.name)
		h, err := NewHeat(g, &HeatOptions{Backend: f, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
		if got := cholmod.BLASThreads(); got != c.want {
			t.Errorf("OpenBLAS threads after analysing with %q: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestGoBLASAgree compares heat-kernel applications (backward Euler, 5
// sub-steps, 4 columns) and their adjoints through the "go" backend on
// OpenBLAS with those through "go-purego", on a 2-D and a 3-D grid.
func TestGoBLASAgree(t *testing.T) {
	goNetlib, _ := Backend("go")
	goPure, err := Backend("go-purego")
	if err != nil {
		t.Fatal(err)
	}
	const cols = 4
	for _, dims := range [][]int{{60, 60}, {14, 14, 14}} {
		g, err := Grid(dims...)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(31, 31))
		w := randWeights(rng, g.NumEdges(), 0.5, 2)
		x := randBlock(rng, g.N()*cols)
		run := func(h *Heat) (y, gx, gw []float64) {
			y, gx, gw = make([]float64, len(x)), make([]float64, len(x)), make([]float64, g.NumEdges())
			if err := h.Apply(y, x, cols); err != nil {
				t.Fatal(err)
			}
			if err := h.Adjoint(gx, gw, x, y, cols); err != nil {
				t.Fatal(err)
			}
			return y, gx, gw
		}
		opt := HeatOptions{T: 1e-2, Steps: 5}
		opt.Backend = goNetlib
		yn, gxn, gwn := run(newHeat(t, g, opt, w))
		opt.Backend = goPure
		yp, gxp, gwp := run(newHeat(t, g, opt, w))
		for _, c := range []struct {
			what      string
			got, want []float64
		}{{"Apply", yn, yp}, {"Adjoint gx", gxn, gxp}, {"Adjoint gw", gwn, gwp}} {
			if r := relErr(c.got, c.want); !(r <= 1e-12) {
				t.Errorf("grid%v %s: ‖netlib − purego‖/‖purego‖ = %g > 1e-12", dims, c.what, r)
			}
		}
	}
}

// TestOnBLAS checks which backends of a cgo build factorise on OpenBLAS.
func TestOnBLAS(t *testing.T) {
	for name, want := range map[string]bool{"cholmod": true, "auto": true, "": true, "go": true, "go-purego": false, "dense": false, "nosuch": false} {
		if got := OnBLAS(name); got != want {
			t.Errorf("OnBLAS(%q) = %v, want %v", name, got, want)
		}
	}
	if b := BLAS(); b.Core != cholmod.BLASCore() {
		t.Errorf("BLAS().Core = %q, cholmod.BLASCore() %q", b.Core, cholmod.BLASCore())
	}
}
