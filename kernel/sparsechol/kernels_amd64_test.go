//go:build amd64 && !noasm

package sparsechol

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRunKernels checks the kernels of runs of one-column supernodes
// (forward1AVX, backward1AVX, rowKernels.fwd1Run and bwd1Run) against a
// model of their arithmetic in Go, bit for bit: forward x_f = dinv·x_f,
// then x_i = fma(−l, x_f, x_i) for each row below; backward a sum from +0
// of fma(l, x_i, ·) from the last row up, then x_f = (x_f − sum)·dinv;
// every row width up to 72 values, on the AVX-512 kernels and the 4-wide
// ones (wider rows in slices), on every run of every test factor.
func TestRunKernels(t *testing.T) {
	if !useAVX {
		t.Skip(noKernels(false))
	}
	avx512 := useWide
	defer func() { useWide = avx512 }()
	tested := 0
	for _, tc := range testCases() {
		f := factorCase(t, tc, 1)
		c := f.(*chol)
		sym, num := c.sym, c.num
		var runs [][2]int
		for s := 0; s < sym.ns; s++ {
			e := s
			for e < sym.ns && sym.single[e] {
				e++
			}
			if e > s {
				runs = append(runs, [2]int{s, e})
				s = e
			}
		}
		if len(runs) == 0 {
			f.Close()
			continue
		}
		tested++
		for _, wide := range []bool{false, true} {
			if wide && !avx512 {
				continue
			}
			useWide = wide
			// Up to 72 values: 18 quads, three slices of the 4-wide kernels
			// (maxQuads a slice), the last partial.
			for cw := 4; cw <= 72; cw += 4 {
				x := randomBlock(rand.New(rand.NewPCG(uint64(cw), 7)), sym.n*cw)
				want := slices.Clone(x)
				for _, r := range runs {
					if k := wideRows(cw); k != nil {
						k.fwd1Run(sym, num, r[0], r[1], x)
					} else {
						forward1AVX(sym, num, r[0], r[1], x, cw)
					}
					runModel(sym, num, r[0], r[1], want, cw, true)
				}
				for _, r := range slices.Backward(runs) {
					if k := wideRows(cw); k != nil {
						k.bwd1Run(sym, num, r[0], r[1], x)
					} else {
						backward1AVX(sym, num, r[0], r[1], x, cw)
					}
					runModel(sym, num, r[0], r[1], want, cw, false)
				}
				if i := firstBitDiff(x, want); i >= 0 {
					t.Errorf("%s: wide=%v, rows of %d: x[%d] = %v, the model %v", tc.name, wide, cw, i, x[i], want[i])
				}
			}
		}
		f.Close()
	}
	if tested == 0 {
		t.Fatal("no test factor has runs of one-column supernodes")
	}
}

// runModel is TestRunKernels' model: the one-column supernodes s0..s1-1
// of x (rows of cw values), forward or backward.
func runModel(sym *symbolic, num *numeric, s0, s1 int, x []float64, cw int, forward bool) {
	row := func(i int32) []float64 { return x[int(i)*cw : int(i+1)*cw] }
	for k := range s1 - s0 {
		s := s0 + k
		if !forward {
			s = s1 - 1 - k
		}
		f := sym.first[s]
		p0, p1 := sym.rowPtr[s], sym.rowPtr[s+1]
		l := num.lx[sym.off[s] : sym.off[s]+p1-p0]
		xf := x[f*cw : (f+1)*cw]
		for c := range xf {
			if forward {
				xf[c] *= num.dinv[f]
				for p := p0 + 1; p < p1; p++ {
					xi := row(sym.rows[p])
					xi[c] = math.FMA(-l[p-p0], xf[c], xi[c])
				}
				continue
			}
			sum := 0.0
			for p := p1 - 1; p > p0; p-- {
				sum = math.FMA(l[p-p0], row(sym.rows[p])[c], sum)
			}
			xf[c] = (xf[c] - sum) * num.dinv[f]
		}
	}
}
