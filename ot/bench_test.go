package ot

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkInterpolate measures one objective evaluation's OT part
// (Forward, and Forward+Backward) with a cheap O(N)-per-column kernel, next
// to the same kernel calls alone ("kernel-only"), so the difference is the
// overhead of package ot (elementwise Sinkhorn updates and recomputation).
// One sequence of 11 frames (9 interior, C = 18), L = 50, as for the
// reference's toy data.
func BenchmarkInterpolate(b *testing.B) {
	for _, n := range []int{2500, 4096} {
		rng := rand.New(rand.NewPCG(1, 1))
		theta := randVec(rng, n-1, 0.5, 1.5)
		k := &chainStep{n: n, tau: 0.2, theta: theta}
		seqs := []Sequence{{Source: normalized(randVec(rng, n, 0.1, 1)), Target: normalized(randVec(rng, n, 0.1, 1)), Frames: 11}}
		ip, err := NewInterpolator(k, seqs, nil)
		if err != nil {
			b.Fatal(err)
		}
		grec := shapeLike(ip.Recs())
		for s := range grec {
			for j := range grec[s] {
				grec[s][j] = randVec(rng, n, -1, 1)
			}
		}
		gp := make([]float64, k.NumParams())
		c, e := ip.Columns()
		name := fmt.Sprintf("N=%d/C=%d/L=%d", n, c, ip.Settings().Iterations)
		b.Run(name+"/forward", func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				if _, err := ip.Forward(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/forward+backward", func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				if _, err := ip.Forward(); err != nil {
					b.Fatal(err)
				}
				if err := ip.Backward(gp, grec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/kernel-only", func(b *testing.B) {
			src, dst := randVec(rng, n*c, 0.1, 1), make([]float64, n*c)
			gsrc := make([]float64, n*c)
			calls := 2*ip.Settings().Iterations - 1
			b.ResetTimer()
			for range b.N {
				for range calls {
					_ = k.Apply(dst, src, c)
				}
				_ = k.Apply(dst[:n], src[:n], 1)
				_ = k.Apply(dst[:n*e], src[:n*e], e)
				for range calls {
					_ = k.Adjoint(gsrc, gp, src, dst, c)
				}
				_ = k.Adjoint(nil, gp, src[:n], dst[:n], 1)
				_ = k.Adjoint(gsrc[:n*e], gp, src[:n*e], dst[:n*e], e)
			}
		})
	}
}
