package ot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// paramKernel is a test DiffKernel whose parameters can be set.
type paramKernel interface {
	DiffKernel
	setParams(theta []float64)
}

func (k *chainStep) setParams(theta []float64) { k.theta = append(k.theta[:0], theta...) }

// testKernel is a named constructor of a parameterised test kernel at θ.
type testKernel struct {
	name  string
	theta func(rng *rand.Rand) []float64
	make  func(theta []float64) paramKernel
}

// testKernels are the parameterised kernels the gradient tests run over:
// a Gibbs kernel that does not preserve mass (so the K·1 adjoint matters)
// and a heat kernel on a 3×4 grid graph (mass-preserving, like gmlg's).
var testKernels = []testKernel{
	{
		name: "chainGibbs",
		theta: func(rng *rand.Rand) []float64 {
			th := make([]float64, 11)
			for i := range th {
				th[i] = (0.7 + 0.6*rng.Float64()) / 11
			}
			return th
		},
		make: func(theta []float64) paramKernel { return newChainGibbs(theta, 0.04) },
	},
	{
		name: "heatGraph",
		theta: func(rng *rand.Rand) []float64 {
			th := make([]float64, len(gridEdges(4, 3)))
			for i := range th {
				th[i] = 0.5 + rng.Float64()
			}
			return th
		},
		make: func(theta []float64) paramKernel {
			return newHeatGraph(12, gridEdges(4, 3), 0.3, 4, theta)
		},
	},
	{
		name: "chainStep",
		theta: func(rng *rand.Rand) []float64 {
			th := make([]float64, 11)
			for i := range th {
				th[i] = 0.5 + rng.Float64()
			}
			return th
		},
		make: func(theta []float64) paramKernel {
			return &chainStep{n: 12, tau: 0.2, theta: append([]float64(nil), theta...)}
		},
	},
}

func randVec(rng *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return v
}

func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// relErr returns ‖got − want‖∞ / ‖want‖∞.
func relErr(got, want []float64) float64 {
	var d, m float64
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		m = math.Max(m, math.Abs(want[i]))
	}
	return d / m
}

// fdGrad returns the central finite-difference gradient of f at theta.
func fdGrad(f func([]float64) float64, theta []float64, h float64) []float64 {
	g := make([]float64, len(theta))
	th := append([]float64(nil), theta...)
	for i := range th {
		th[i] = theta[i] + h
		fp := f(th)
		th[i] = theta[i] - h
		fm := f(th)
		th[i] = theta[i]
		g[i] = (fp - fm) / (2 * h)
	}
	return g
}

// TestTestKernelAdjoints checks the hand-written adjoints of the test
// kernels: the parameter gradient of φ(θ) = ⟨gdst, K(θ)·src⟩ against central
// finite differences, and gsrc against ⟨gsrc, s'⟩ = ⟨gdst, K·s'⟩.
func TestTestKernelAdjoints(t *testing.T) {
	for _, tk := range testKernels {
		t.Run(tk.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			theta := tk.theta(rng)
			k := tk.make(theta)
			n, cols := k.Size(), 3
			src := randVec(rng, n*cols, 0.1, 1)
			gdst := randVec(rng, n*cols, -1, 1)
			gp := make([]float64, k.NumParams())
			gsrc := make([]float64, n*cols)
			if err := k.Adjoint(gsrc, gp, src, gdst, cols); err != nil {
				t.Fatal(err)
			}
			dst := make([]float64, n*cols)
			phi := func(th []float64) float64 {
				k.setParams(th)
				if err := k.Apply(dst, src, cols); err != nil {
					t.Fatal(err)
				}
				return dot(gdst, dst)
			}
			fd := fdGrad(phi, theta, 1e-6)
			k.setParams(theta)
			// Central differences with h = 1e-6: truncation O(h²) and
			// round-off O(1e-16/h), both ≪ 1e-7 relative here.
			if e := relErr(gp, fd); e > 1e-7 {
				t.Errorf("parameter gradient: relative error %.3g vs finite differences\ngot  %v\nwant %v", e, gp, fd)
			}
			s2 := randVec(rng, n*cols, -1, 1)
			if err := k.Apply(dst, s2, cols); err != nil {
				t.Fatal(err)
			}
			if l, r := dot(gsrc, s2), dot(gdst, dst); math.Abs(l-r) > 1e-12*math.Abs(r) {
				t.Errorf("input gradient: <gsrc,s> = %v, <gdst,K s> = %v", l, r)
			}
		})
	}
}
