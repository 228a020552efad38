package learn

import (
	"math"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// specInputs builds the closed-form inputs of docs/method.md,
// "Reference values": obs[k][i] ∝ 1.2+sin(0.7i+1.3k) and
// x[p][i] = 0.3·cos(0.37i+1.1p).
func specInputs(n, frames, d int) ([]Sequence, []float64) {
	obs := make([][]float64, frames)
	for k := range obs {
		obs[k] = make([]float64, n)
		var s float64
		for i := range obs[k] {
			obs[k][i] = 1.2 + math.Sin(0.7*float64(i)+1.3*float64(k))
			s += obs[k][i]
		}
		for i := range obs[k] {
			obs[k][i] /= s
		}
	}
	x := make([]float64, d*n)
	for p := 0; p < d; p++ {
		for i := 0; i < n; i++ {
			x[p*n+i] = 0.3 * math.Cos(0.37*float64(i)+1.1*float64(p))
		}
	}
	return []Sequence{{Frames: obs}}, x
}

func close(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

func forEachSparseBackend(t *testing.T, f func(t *testing.T, name string)) {
	for _, name := range kernel.Backends() {
		t.Run(name, func(t *testing.T) { f(t, name) })
	}
}

// TestSpec2D reproduces the 2-D n=8 table of docs/method.md,
// "Reference values" (reference numbers, LU solver).
func TestSpec2D(t *testing.T) {
	forEachSparseBackend(t, func(t *testing.T, backend string) {
		b, _ := kernel.Backend(backend)
		g, _ := kernel.Cube(2, 8)
		seqs, x := specInputs(64, 4, 2)
		cases := []struct {
			loss            ot.Loss
			lc, ls          float64
			f, norm, g0, g9 float64
		}{
			{ot.L1, 0, 0, 1.4777526507712180e+00, 2.6186508360784167e-02, 2.2183951253331681e-03, 2.3939415685787255e-03},
			{ot.L2, 0, 0, 8.5297967899035632e-01, 1.8420419449758932e-02, 8.2831438596784311e-04, 2.4130447783066895e-03},
			{ot.KL, 0, 0, 6.2997668629668835e-01, 1.2483876834663619e-02, 5.6882178432599646e-04, 1.5938799524505211e-03},
			{ot.L2, 0.5, 0.7, 7.1348438358611403e+00, 2.9685028144505345e+00, 2.0168467554450056e-01, -9.5990506680497314e-02},
		}
		for _, c := range cases {
			o, err := NewObjective(g, seqs, &Config{
				Heat:     kernel.HeatOptions{T: 1e-2, Steps: 5, Backend: b},
				Sinkhorn: ot.Settings{Iterations: 10}, Loss: c.loss, LambdaC: c.lc, LambdaS: c.ls,
			})
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, len(x))
			f, err := o.Eval(grad, x)
			if err != nil {
				t.Fatal(err)
			}
			var norm float64
			for _, v := range grad {
				norm += v * v
			}
			norm = math.Sqrt(norm)
			const tol = 1e-9 // one evaluation must match the reference to 1e-9 relative
			if !close(f, c.f, tol) || !close(norm, c.norm, tol) || !close(grad[0], c.g0, tol) || !close(grad[64+9], c.g9, tol) {
				t.Errorf("%v λ=(%v,%v): F=%.17g ‖g‖=%.17g g[0,0]=%.17g g[1,9]=%.17g\nwant F=%.17g ‖g‖=%.17g g[0,0]=%.17g g[1,9]=%.17g",
					c.loss, c.lc, c.ls, f, norm, grad[0], grad[73], c.f, c.norm, c.g0, c.g9)
			}
			if c.lc != 0 {
				terms := o.LastTerms()
				if !close(terms.FC, 9.0356294019073288e-02, 1e-12) || !close(terms.FS, 8.9095514426589233e+00, 1e-12) {
					t.Errorf("f_c=%.17g f_s=%.17g, want 9.0356294019073288e-02 and 8.9095514426589233e+00", terms.FC, terms.FS)
				}
			}
			if c.loss == ot.L2 && c.lc == 0 {
				recs := o.Reconstructions()[0]
				sum := func(v []float64) (s float64) {
					for _, x := range v {
						s += x
					}
					return
				}
				for _, r := range []struct {
					got, want float64
				}{
					{sum(recs[0]), 0.99999999999999989},
					{recs[0][0], 1.6101758352204527e-02},
					{sum(recs[1]), 9.9977292132449935e-01},
					{recs[1][27], 1.6014598469593643e-02},
					{recs[2][63], 1.0009471587311455e-02},
					{recs[3][0], 8.1281750107428021e-03},
				} {
					if !close(r.got, r.want, tol) {
						t.Errorf("reconstruction value %.17g, want %.17g", r.got, r.want)
					}
				}
			}
			o.Close()
		}
	})
}

// TestSpec3D reproduces the 3-D n=4 case of docs/method.md, "Reference values".
func TestSpec3D(t *testing.T) {
	forEachSparseBackend(t, func(t *testing.T, backend string) {
		b, _ := kernel.Backend(backend)
		g, _ := kernel.Cube(3, 4)
		seqs, x := specInputs(64, 3, 3)
		cases := []struct {
			loss   ot.Loss
			lc, ls float64
			f      float64
			check  func(t *testing.T, grad []float64)
		}{
			{ot.L1, 0, 0, 7.4754545877266709e-01, nil},
			{ot.L2, 0, 0, 2.9074165689237508e-01, func(t *testing.T, grad []float64) {
				var norm float64
				for _, v := range grad {
					norm += v * v
				}
				if !close(math.Sqrt(norm), 1.2087291671821019e-02, 1e-9) || !close(grad[64+5], 8.8059371180172926e-04, 1e-9) {
					t.Errorf("‖g‖=%.17g g[1,5]=%.17g", math.Sqrt(norm), grad[69])
				}
			}},
			{ot.KL, 0, 0, 2.3724864924517031e-01, nil},
			{ot.L2, 0.5, 0.7, 3.9998085175503313e+00, func(t *testing.T, grad []float64) {
				if !close(grad[2*64+63], 2.6164831201970419e-02, 1e-9) {
					t.Errorf("g[2,63]=%.17g, want 2.6164831201970419e-02", grad[2*64+63])
				}
			}},
		}
		for _, c := range cases {
			o, err := NewObjective(g, seqs, &Config{
				Heat:     kernel.HeatOptions{T: 1e-2, Steps: 3, Backend: b},
				Sinkhorn: ot.Settings{Iterations: 5}, Loss: c.loss, LambdaC: c.lc, LambdaS: c.ls,
			})
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, len(x))
			f, err := o.Eval(grad, x)
			if err != nil {
				t.Fatal(err)
			}
			if !close(f, c.f, 1e-9) {
				t.Errorf("%v λ=(%v,%v): F=%.17g, want %.17g", c.loss, c.lc, c.ls, f, c.f)
			}
			if c.check != nil {
				c.check(t, grad)
			}
			if c.lc != 0 {
				terms := o.LastTerms()
				if !close(terms.FC, 1.3866746101822114e-01, 1e-12) || !close(terms.FS, 5.1996187573554948e+00, 1e-12) {
					t.Errorf("f_c=%.17g f_s=%.17g", terms.FC, terms.FS)
				}
			}
			o.Close()
		}
	})
}
