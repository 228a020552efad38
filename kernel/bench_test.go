package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gmlg/gmlg/learn/cputime"
)

// loop runs f b.N times and reports the CPU time per operation (all
// threads) next to the wall time: on a shared machine the CPU time is the
// figure that does not grow with the load.
func loop(b *testing.B, f func() error) {
	c0 := cputime.Used()
	b.ResetTimer()
	for range b.N {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Used()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkHeat measures one Apply (Steps=20 multi-RHS solves on a 20-column
// block) and one Apply+Adjoint (Recompute, the default, and Store) on the
// grids of the paper's timing table, for every sparse backend compiled in.
//
//	go test -run '^$' -bench BenchmarkHeat -benchtime 20x ./kernel/
func BenchmarkHeat(b *testing.B) {
	const steps, cols = 20, 20
	for _, name := range Backends() {
		if name == "dense" {
			continue
		}
		backend, _ := Backend(name)
		for _, sz := range []struct{ d, n int }{{2, 50}, {2, 100}, {3, 16}, {3, 32}} {
			g, _ := Cube(sz.d, sz.n)
			rng := rand.New(rand.NewPCG(1, 1))
			h, err := NewHeat(g, &HeatOptions{T: 1e-3, Steps: steps, Backend: backend})
			if err != nil {
				b.Fatal(err)
			}
			if err := h.SetWeights(randWeights(rng, g.NumEdges(), 0.5, 2)); err != nil {
				b.Fatal(err)
			}
			x := randBlock(rng, g.N()*cols)
			y := make([]float64, len(x))
			gx := make([]float64, len(x))
			gw := make([]float64, g.NumEdges())
			label := fmt.Sprintf("%s/d=%d/n=%d", name, sz.d, sz.n)
			b.Run("Apply/"+label, func(b *testing.B) {
				loop(b, func() error { return h.Apply(y, x, cols) })
			})
			b.Run("ApplyAdjoint/"+label, func(b *testing.B) {
				loop(b, func() error {
					if err := h.Apply(y, x, cols); err != nil {
						return err
					}
					return h.Adjoint(gx, gw, x, y, cols)
				})
			})
			b.Run("ApplyAdjointStore/"+label, func(b *testing.B) {
				hs, err := NewHeat(g, &HeatOptions{T: 1e-3, Steps: steps, Backend: backend, Memory: Store})
				if err != nil {
					b.Fatal(err)
				}
				defer hs.Close()
				if err := hs.SetWeights(h.Weights()); err != nil {
					b.Fatal(err)
				}
				loop(b, func() error {
					if err := hs.Apply(y, x, cols); err != nil {
						return err
					}
					return hs.Adjoint(gx, gw, x, y, cols)
				})
			})
			b.Run("SetWeights/"+label, func(b *testing.B) {
				w := h.Weights()
				b.ResetTimer()
				for range b.N {
					if err := h.SetWeights(w); err != nil {
						b.Fatal(err)
					}
				}
			})
			h.Close()
		}
	}
}

// BenchmarkAccumulate measures the weight-gradient accumulation of one
// adjoint (Steps=20, 20 columns) on a 50×50 grid, without the solves.
func BenchmarkAccumulate(b *testing.B) {
	g, _ := Cube(2, 50)
	h, err := NewHeat(g, &HeatOptions{Steps: 20, Backend: Dense{}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	cols := 20
	u := randBlock(rng, 21*g.N()*cols)
	v := randBlock(rng, 20*g.N()*cols)
	gw := make([]float64, g.NumEdges())
	b.ResetTimer()
	for range b.N {
		h.accumulate(gw, u, v, cols)
	}
}
