package ot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// convergedObjective is objective for a Interpolator.
func convergedObjective(t *testing.T, fi *Interpolator, loss Loss, obs, grec [][][]float64) float64 {
	t.Helper()
	return objective(t, fi, loss, obs, grec)
}

func randObs(rng *rand.Rand, recs [][][]float64, n int) [][][]float64 {
	obs := shapeLike(recs)
	for s := range obs {
		for j := range obs[s] {
			obs[s][j] = normalized(randVec(rng, n, 0.05, 1))
		}
	}
	return obs
}

// convergentKernels are the test kernels whose Sinkhorn iterations converge
// in a few hundred iterations: chainStep (I − τL, nearly the identity) is
// left out, its barycenters converge too slowly and underflow first.
func convergentKernels() []testKernel {
	var out []testKernel
	for _, tk := range testKernels {
		if tk.name != "chainStep" {
			out = append(out, tk)
		}
	}
	return out
}

// TestConvergedColdEqualsInterpolator: cold, without the tolerance test and with
// MaxIterations = L, Forward is bitwise Interpolator.Forward.
func TestConvergedColdEqualsInterpolator(t *testing.T) {
	for _, tk := range testKernels {
		for _, sc := range seqCases {
			t.Run(tk.name+"/"+sc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(11, 12))
				k := tk.make(tk.theta(rng))
				seqs := makeSeqs(rng, k.Size(), sc.times)
				ip, err := NewInterpolator(k, seqs, &Settings{Iterations: 7})
				if err != nil {
					t.Fatal(err)
				}
				fi, err := NewInterpolator(k, seqs, &Settings{Iterations: 7, Gradient: ImplicitFixedPoint})
				if err != nil {
					t.Fatal(err)
				}
				want, err := ip.Forward()
				if err != nil {
					t.Fatal(err)
				}
				for rep := 0; rep < 2; rep++ { // the second call must not warm-start
					got, err := fi.Forward()
					if err != nil {
						t.Fatal(err)
					}
					for s := range want {
						for j := range want[s] {
							for i := range want[s][j] {
								if got[s][j][i] != want[s][j][i] {
									t.Fatalf("rep %d: rec[%d][%d][%d] = %v, want %v", rep, s, j, i, got[s][j][i], want[s][j][i])
								}
							}
						}
					}
					if st := fi.Stats(); sc.name != "endpoints-only" && (st.Iterations != 7 || st.Converged || st.Warm) {
						t.Errorf("stats %+v, want 7 cold iterations, not converged", st)
					}
				}
			})
		}
	}
}

// TestConvergedWarmEqualsCold: a warm Forward (K·a_end applied with the first
// K·b, K·1 taken as 1 for OnesPreserving kernels) gives a cold Forward's
// reconstructions, endpoint frames included, at a tight tolerance: after a
// Forward at other parameters and back, for every layout and kernel.
func TestConvergedWarmEqualsCold(t *testing.T) {
	for _, tk := range convergentKernels() {
		for _, sc := range seqCases {
			t.Run(tk.name+"/"+sc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(13, 14))
				theta := tk.theta(rng)
				k := tk.make(theta)
				seqs := makeSeqs(rng, k.Size(), sc.times)
				cold, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-13, Cold: true})
				if err != nil {
					t.Fatal(err)
				}
				warm, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-13})
				if err != nil {
					t.Fatal(err)
				}
				want, err := cold.Forward()
				if err != nil {
					t.Fatal(err)
				}
				perturb(rng, k, theta, 0.1)
				if _, err := warm.Forward(); err != nil {
					t.Fatal(err)
				}
				k.setParams(theta)
				got, err := warm.Forward()
				if err != nil {
					t.Fatal(err)
				}
				if st := warm.Stats(); sc.name != "endpoints-only" && !st.Warm {
					t.Fatalf("second Forward not warm: %+v", st)
				}
				// Both converged to a violation of 1e-13 (as in
				// TestConvergedAnderson): they agree to about that.
				for s := range want {
					for j := range want[s] {
						if e := relErr(got[s][j], want[s][j]); e > 1e-10 {
							t.Errorf("rec[%d][%d]: warm differs from cold by %.3g", s, j, e)
						}
					}
				}
			})
		}
	}
}

// TestConvergedGradientFD checks the implicit gradient against central finite
// differences of the converged objective (relative error ≤ 1e-5), for every
// test kernel, sequence layout and loss.
func TestConvergedGradientFD(t *testing.T) {
	for _, tk := range convergentKernels() {
		for _, sc := range seqCases {
			for _, loss := range []Loss{L2, KL} {
				for _, gmres := range []bool{false, true} {
					name := tk.name + "/" + sc.name + "/" + loss.String()
					if gmres {
						name += "/gmres"
					}
					t.Run(name, func(t *testing.T) {
						rng := rand.New(rand.NewPCG(5, uint64(loss)))
						theta := tk.theta(rng)
						k := tk.make(theta)
						n := k.Size()
						fi, err := NewInterpolator(k, makeSeqs(rng, n, sc.times), &Settings{Tol: 1e-14, AdjointTol: 1e-14, Gradient: adjointSolver(gmres)})
						if err != nil {
							t.Fatal(err)
						}
						obs := randObs(rng, fi.Recs(), n)
						grec := shapeLike(fi.Recs())
						convergedObjective(t, fi, loss, obs, grec)
						gp := make([]float64, k.NumParams())
						if err := fi.Backward(gp, grec); err != nil {
							t.Fatal(err)
						}
						st := fi.Stats()
						if !st.Converged || !st.AdjointConverged {
							t.Fatalf("not converged: %+v", st)
						}
						fd := fdGrad(func(th []float64) float64 {
							k.setParams(th)
							return convergedObjective(t, fi, loss, obs, nil)
						}, theta, 1e-5)
						e := relErr(gp, fd)
						t.Logf("relative error %.2g, %d iterations, %d adjoint iterations", e, st.Iterations, st.AdjointIterations)
						if e > 1e-5 || math.IsNaN(e) {
							t.Errorf("relative error %.3g (stats %+v)\ngot  %v\nwant %v", e, st, gp, fd)
						}
					})
				}
			}
		}
	}
}

// TestConvergedVsUnrolled compares the implicit gradient with the unrolled one
// of Interpolator.Backward when L is large enough for both to be
// converged, and the reconstructions.
func TestConvergedVsUnrolled(t *testing.T) {
	for _, tk := range convergentKernels() {
		t.Run(tk.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			k := tk.make(tk.theta(rng))
			n := k.Size()
			seqs := makeSeqs(rng, n, seqCases[0].times)
			fi, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-14})
			if err != nil {
				t.Fatal(err)
			}
			obs := randObs(rng, fi.Recs(), n)
			grec := shapeLike(fi.Recs())
			convergedObjective(t, fi, L2, obs, grec)
			st := fi.Stats()
			if !st.Converged {
				t.Fatalf("forward not converged: %+v", st)
			}
			gFast := make([]float64, k.NumParams())
			if err := fi.Backward(gFast, grec); err != nil {
				t.Fatal(err)
			}
			recFast := fi.Recs()
			L := 3*st.Iterations + 20
			ip, err := NewInterpolator(k, seqs, &Settings{Iterations: L})
			if err != nil {
				t.Fatal(err)
			}
			grecU := shapeLike(ip.Recs())
			objective(t, ip, L2, obs, grecU)
			for s := range recFast {
				for j := range recFast[s] {
					if e := relErr(recFast[s][j], ip.Recs()[s][j]); e > 1e-10 {
						t.Errorf("rec[%d][%d]: relative difference %.3g", s, j, e)
					}
				}
			}
			gU := make([]float64, k.NumParams())
			if err := ip.Backward(gU, grecU); err != nil {
				t.Fatal(err)
			}
			if e := relErr(gFast, gU); e > 1e-8 {
				t.Errorf("implicit vs unrolled (L = %d): relative difference %.3g\nfast     %v\nunrolled %v", L, e, gFast, gU)
			}
		})
	}
}

// TestConvergedWarmStart checks that a warm start after a small change of the
// kernel needs fewer iterations than a cold one and reaches the same
// reconstructions, and that SaveWarm/LoadWarm/ResetWarm restore states.
func TestConvergedWarmStart(t *testing.T) {
	tk := testKernels[1] // heat kernel
	rng := rand.New(rand.NewPCG(31, 32))
	theta := tk.theta(rng)
	k := tk.make(theta)
	seqs := makeSeqs(rng, k.Size(), seqCases[0].times)
	fi, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-11})
	if err != nil {
		t.Fatal(err)
	}
	cold, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-11, Cold: true})
	if err != nil {
		t.Fatal(err)
	}
	fwd := func(f *Interpolator) Stats {
		t.Helper()
		if _, err := f.Forward(); err != nil {
			t.Fatal(err)
		}
		return f.Stats()
	}
	st0 := fwd(fi)
	var saved WarmStart
	fi.SaveWarm(&saved)
	th := append([]float64(nil), theta...)
	for i := range th {
		th[i] *= 1 + 1e-3*(rng.Float64()-0.5)
	}
	k.setParams(th)
	stW := fwd(fi)
	stC := fwd(cold)
	if !stW.Warm || stC.Warm || !stW.Converged || !stC.Converged {
		t.Fatalf("warm %+v, cold %+v", stW, stC)
	}
	if 3*stW.Iterations > 2*stC.Iterations {
		t.Errorf("warm start took %d iterations, cold %d: want at most 2/3", stW.Iterations, stC.Iterations)
	}
	for s := range fi.Recs() {
		for j := range fi.Recs()[s] {
			if e := relErr(fi.Recs()[s][j], cold.Recs()[s][j]); e > 1e-9 {
				t.Errorf("rec[%d][%d]: warm and cold differ by %.3g", s, j, e)
			}
		}
	}
	t.Logf("cold %d iterations, warm after a 0.1%% change %d (first call %d)", stC.Iterations, stW.Iterations, st0.Iterations)
	// Back at θ from the saved state: converged at once.
	k.setParams(theta)
	fi.LoadWarm(&saved)
	if st := fwd(fi); st.Iterations > 2 {
		t.Errorf("after LoadWarm at the same point: %d iterations, want ≤ 2", st.Iterations)
	}
	fi.ResetWarm()
	if st := fwd(fi); st.Warm || st.Iterations != st0.Iterations {
		t.Errorf("after ResetWarm: %+v, want the cold %d iterations", st, st0.Iterations)
	}
	// The zero WarmStart is the cold state.
	fi.LoadWarm(&WarmStart{})
	if st := fwd(fi); st.Warm {
		t.Errorf("after LoadWarm(zero): warm start")
	}
}

// TestConvergedNotConverged: MaxIterations reached is reported, not an error.
func TestConvergedNotConverged(t *testing.T) {
	tk := testKernels[1]
	rng := rand.New(rand.NewPCG(41, 42))
	k := tk.make(tk.theta(rng))
	fi, err := NewInterpolator(k, makeSeqs(rng, k.Size(), seqCases[0].times), &Settings{Tol: 1e-15, MaxIterations: 3, AdjointMaxIterations: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fi.Forward(); err != nil {
		t.Fatal(err)
	}
	grec := shapeLike(fi.Recs())
	grec[0][1][0] = 1
	if err := fi.Backward(make([]float64, k.NumParams()), grec); err != nil {
		t.Fatal(err)
	}
	st := fi.Stats()
	if st.Converged || st.Iterations != 3 || !(st.Violation > 1e-15) || st.AdjointConverged || st.AdjointIterations != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestConvergedNoAllocs: Forward and Backward allocate nothing once warmed up
// (with a kernel that allocates nothing).
func TestConvergedNoAllocs(t *testing.T) {
	tk := testKernels[2]
	rng := rand.New(rand.NewPCG(51, 52))
	k := tk.make(tk.theta(rng))
	fi, err := NewInterpolator(k, makeSeqs(rng, k.Size(), seqCases[0].times), &Settings{Tol: 1e-6, MaxIterations: 20})
	if err != nil {
		t.Fatal(err)
	}
	grec := shapeLike(fi.Recs())
	gp := make([]float64, k.NumParams())
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := fi.Forward(); err != nil {
			t.Fatal(err)
		}
		if err := fi.Backward(gp, grec); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Forward+Backward", allocs)
	}
	// The GMRES adjoint allocates its basis in the first Backward only; a
	// non-zero loss gradient so that it builds Krylov vectors.
	gm, err := NewInterpolator(k, makeSeqs(rng, k.Size(), seqCases[0].times), &Settings{Tol: 1e-6, MaxIterations: 20, Gradient: ImplicitGMRES})
	if err != nil {
		t.Fatal(err)
	}
	gg := shapeLike(gm.Recs())
	for s := range gg {
		for j := range gg[s] {
			for i := range gg[s][j] {
				gg[s][j][i] = 1 + float64(i%3)
			}
		}
	}
	run := func() {
		if _, err := gm.Forward(); err != nil {
			t.Fatal(err)
		}
		if err := gm.Backward(gp, gg); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if gm.Stats().AdjointIterations < 2 {
		t.Fatalf("GMRES built no Krylov vector: %+v", gm.Stats())
	}
	if allocs := testing.AllocsPerRun(3, run); allocs != 0 {
		t.Errorf("GMRES: %v allocations per Forward+Backward", allocs)
	}
}

// perturb sets the kernel's parameters to θ with each entry changed by a
// random relative amount in ±rel/2.
func perturb(rng *rand.Rand, k paramKernel, theta []float64, rel float64) {
	th := append([]float64(nil), theta...)
	for i := range th {
		th[i] *= 1 + rel*(rng.Float64()-0.5)
	}
	k.setParams(th)
}

// fastGrad runs Forward and Backward of the L2 loss against obs and returns
// the parameter gradient and the stats.
func convergedGrad(t *testing.T, fi *Interpolator, k paramKernel, obs [][][]float64) ([]float64, Stats) {
	t.Helper()
	grec := shapeLike(fi.Recs())
	convergedObjective(t, fi, L2, obs, grec)
	g := make([]float64, k.NumParams())
	if err := fi.Backward(g, grec); err != nil {
		t.Fatal(err)
	}
	return g, fi.Stats()
}

// TestConvergedGMRES: the GMRES adjoint solve gives the fixed-point iteration's
// gradient, in no more adjoint-map evaluations on a slowly converging
// case, cold and warm-started, and with restarts (a restart length of 2).
func TestConvergedGMRES(t *testing.T) {
	tk := testKernels[1] // heat kernel
	for _, restart := range []int{2, 0} {
		rng := rand.New(rand.NewPCG(51, 52))
		theta := tk.theta(rng)
		k := tk.make(theta)
		seqs := makeSeqs(rng, k.Size(), seqCases[0].times)
		var fis [2]*Interpolator
		for m, gmres := range []bool{false, true} {
			fi, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-13, AdjointTol: 1e-11, Gradient: adjointSolver(gmres), AdjointRestart: restart})
			if err != nil {
				t.Fatal(err)
			}
			fis[m] = fi
		}
		obs := randObs(rng, fis[0].Recs(), k.Size())
		for step := 0; step < 2; step++ {
			if step == 1 {
				perturb(rng, k, theta, 1e-2)
			}
			var grads [2][]float64
			var its [2]int
			for m, fi := range fis {
				var st Stats
				grads[m], st = convergedGrad(t, fi, k, obs)
				if !st.AdjointConverged {
					t.Fatalf("restart %d step %d gmres=%v: adjoint not converged: %+v", restart, step, m == 1, st)
				}
				its[m] = st.AdjointIterations
			}
			if e := relErr(grads[1], grads[0]); e > 1e-8 {
				t.Errorf("restart %d step %d: GMRES gradient differs by %.3g", restart, step, e)
			}
			if restart == 0 && its[1] > its[0] {
				t.Errorf("step %d: GMRES took %d map evaluations, the fixed point %d", step, its[1], its[0])
			}
			t.Logf("restart %d step %d: adjoint maps: fixed point %d, GMRES %d", restart, step, its[0], its[1])
		}
	}
}

// TestConvergedGMRESKeptImages: the adjoint v̄ and ū that GMRES leaves for the
// weight gradient are consistent, ū = −(K·v̄)⊙a/u, when ū comes from the
// kept kernel images of the Krylov vectors rather than a kernel
// application: stopped by the iteration bound inside a cycle, at a restart,
// and converged.
func TestConvergedGMRESKeptImages(t *testing.T) {
	tk := testKernels[1] // heat kernel
	for _, maxIt := range []int{1, 2, 3, 4, 7, 0} {
		rng := rand.New(rand.NewPCG(53, 54))
		theta := tk.theta(rng)
		k := tk.make(theta)
		seqs := makeSeqs(rng, k.Size(), seqCases[0].times)
		fi, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-13, AdjointTol: 1e-11, Gradient: ImplicitGMRES,
			AdjointRestart: 2, AdjointMaxIterations: maxIt})
		if err != nil {
			t.Fatal(err)
		}
		obs := randObs(rng, fi.Recs(), k.Size())
		for step := 0; step < 2; step++ {
			if step == 1 {
				perturb(rng, k, theta, 1e-2)
			}
			_, st := convergedGrad(t, fi, k, obs)
			want := make([]float64, len(fi.im.ub))
			if err := k.Apply(want, fi.im.vb, len(fi.sk.pole)); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i] *= -fi.sk.a[i] / fi.sk.tapeU[i]
			}
			// Two ways of computing the same linear map: they differ by
			// the round-off of up to AdjointRestart+1 combined blocks.
			if e := relErr(fi.im.ub, want); e > 1e-10 {
				t.Errorf("max %d step %d (%d maps, converged %v): ū differs from −K·v̄⊙a/u by %.3g",
					maxIt, step, st.AdjointIterations, st.AdjointConverged, e)
			}
		}
	}
}

// TestConvergedAnderson: Anderson mixing reaches the plain iteration's fixed
// point (reconstructions and implicit gradient at a tight tolerance), cold
// and warm-started, in no more iterations on every convergent test kernel,
// and allocates nothing after its first Forward.
func TestConvergedAnderson(t *testing.T) {
	for _, tk := range convergentKernels() {
		for _, sc := range seqCases {
			if sc.name == "endpoints-only" {
				continue
			}
			t.Run(tk.name+"/"+sc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(61, 62))
				theta := tk.theta(rng)
				k := tk.make(theta)
				seqs := makeSeqs(rng, k.Size(), sc.times)
				var fis [2]*Interpolator
				for m, depth := range []int{0, 5} {
					fi, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-13, AdjointTol: 1e-12, Anderson: depth})
					if err != nil {
						t.Fatal(err)
					}
					fis[m] = fi
				}
				obs := randObs(rng, fis[0].Recs(), k.Size())
				for step := 0; step < 2; step++ {
					if step == 1 { // warm start after a 1% change
						perturb(rng, k, theta, 1e-2)
					}
					var grads [2][]float64
					var st [2]Stats
					for m, fi := range fis {
						grads[m], st[m] = convergedGrad(t, fi, k, obs)
						if !st[m].Converged || !st[m].AdjointConverged {
							t.Fatalf("step %d depth %d: not converged: %+v", step, m*5, st[m])
						}
					}
					for s := range fis[0].Recs() {
						for j := range fis[0].Recs()[s] {
							// Both converged to a violation of 1e-13: the
							// reconstructions agree to about that.
							if e := relErr(fis[1].Recs()[s][j], fis[0].Recs()[s][j]); e > 1e-10 {
								t.Errorf("step %d rec[%d][%d]: Anderson and plain differ by %.3g", step, s, j, e)
							}
						}
					}
					// As in TestConvergedGMRES: adjoints solved to 1e-12.
					if e := relErr(grads[1], grads[0]); e > 1e-8 {
						t.Errorf("step %d: gradients differ by %.3g", step, e)
					}
					if st[1].Iterations > st[0].Iterations {
						t.Errorf("step %d: Anderson took %d iterations, plain %d", step, st[1].Iterations, st[0].Iterations)
					}
					t.Logf("step %d: Sinkhorn iterations plain %d, Anderson %d (%d restarts)", step, st[0].Iterations, st[1].Iterations, st[1].AndersonRestarts)
				}
				gp := make([]float64, k.NumParams())
				grec := shapeLike(fis[1].Recs())
				if allocs := testing.AllocsPerRun(2, func() {
					if _, err := fis[1].Forward(); err != nil {
						t.Fatal(err)
					}
					if err := fis[1].Backward(gp, grec); err != nil {
						t.Fatal(err)
					}
				}); allocs != 0 {
					t.Errorf("%v allocations per Forward+Backward", allocs)
				}
			})
		}
	}
}

// TestConvergedCorrection: Stats().Correction after Backward removes the
// first-order error of the objective at unconverged scalings. Measured
// (cold, and warm from the scalings at a metric 10% away; both adjoint
// solvers; the adjoint tolerance equal to the marginal one): the corrected
// error is 0.004–0.14 of the uncorrected one at tol 1e-3 and 2e-4–0.009 at
// 1e-4, the ratio shrinking with the tolerance as a second-order error's
// does. The bounds are 0.25 and 0.025 (without the correction the ratio is
// 1).
func TestConvergedCorrection(t *testing.T) {
	for _, tk := range convergentKernels() {
		for _, gmres := range []bool{false, true} {
			for _, warm := range []bool{false, true} {
				name := tk.name
				if gmres {
					name += "/gmres"
				}
				if warm {
					name += "/warm"
				}
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(5, 7))
					theta := tk.theta(rng)
					k := tk.make(theta)
					n := k.Size()
					seqs := makeSeqs(rng, n, seqCases[0].times)
					ref, err := NewInterpolator(k, seqs, &Settings{Tol: 1e-14, Cold: true})
					if err != nil {
						t.Fatal(err)
					}
					obs := randObs(rng, ref.Recs(), n)
					th2 := append([]float64(nil), theta...)
					for i := range th2 {
						th2[i] *= 1 + 0.2*(rng.Float64()-0.5)
					}
					for _, tc := range []struct{ tol, ratio float64 }{{1e-3, 0.25}, {1e-4, 0.025}} {
						fi, err := NewInterpolator(k, seqs, &Settings{Tol: tc.tol, Gradient: adjointSolver(gmres)})
						if err != nil {
							t.Fatal(err)
						}
						if warm {
							// Warm start from the scalings at θ, evaluate at θ₂.
							k.setParams(theta)
							convergedObjective(t, fi, KL, obs, nil)
						}
						k.setParams(th2)
						fstar := convergedObjective(t, ref, KL, obs, nil)
						grec := shapeLike(fi.Recs())
						f := convergedObjective(t, fi, KL, obs, grec)
						if err := fi.Backward(make([]float64, k.NumParams()), grec); err != nil {
							t.Fatal(err)
						}
						st := fi.Stats()
						e0, e1 := math.Abs(f-fstar), math.Abs(f+st.Correction-fstar)
						t.Logf("tol %g: %d iterations, error %.3g, corrected %.3g (ratio %.2g)", tc.tol, st.Iterations, e0, e1, e1/e0)
						if !(e1 <= tc.ratio*e0) {
							t.Errorf("tol %g: corrected error %.3g, uncorrected %.3g: want at most %g of it", tc.tol, e1, e0, tc.ratio)
						}
					}
				})
			}
		}
	}
}

// TestConvergedReevaluation: started from the state a point's evaluation ended
// with (SaveWarm/LoadWarm), an evaluation at the same parameters takes one
// Sinkhorn iteration and one adjoint map, and returns the same corrected
// value and gradient; at a nearby point along a direction d the corrected
// value changes at the rate the gradient gives (what a line search needs
// near its start). Before the warm start stored the last iteration's input,
// the value at the same point differed by the tolerance-level error.
func TestConvergedReevaluation(t *testing.T) {
	for _, tk := range convergentKernels() {
		for _, set := range []Settings{{Tol: 1e-3, Gradient: ImplicitGMRES, Anderson: 3}, {Tol: 1e-3, Gradient: ImplicitGMRES}, {Tol: 1e-3}} {
			t.Run(fmt.Sprintf("%s/anderson%d/%v", tk.name, set.Anderson, set.Gradient), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(81, 82))
				theta := tk.theta(rng)
				k := tk.make(theta)
				n := k.Size()
				fi, err := NewInterpolator(k, makeSeqs(rng, n, seqCases[0].times), &set)
				if err != nil {
					t.Fatal(err)
				}
				obs := randObs(rng, fi.Recs(), n)
				eval := func(th []float64) (float64, []float64, Stats) {
					k.setParams(th)
					grec := shapeLike(fi.Recs())
					f := convergedObjective(t, fi, KL, obs, grec)
					g := make([]float64, k.NumParams())
					if err := fi.Backward(g, grec); err != nil {
						t.Fatal(err)
					}
					st := fi.Stats()
					return f + st.Correction, g, st
				}
				f0, g0, _ := eval(theta)
				var saved WarmStart
				fi.SaveWarm(&saved)
				other := append([]float64(nil), theta...)
				for i := range other {
					other[i] *= 1 + 0.1*(rng.Float64()-0.5)
				}
				eval(other) // moves the warm state away
				fi.LoadWarm(&saved)
				f1, g1, st := eval(theta)
				// Measured: value 0–4e-16 and gradient 2e-16–2e-15
				// relative (round-off of the gauge scaling); with the old
				// warm start 2e-8–1.4e-7 and 4e-5–2.5e-4.
				if st.Iterations != 1 || st.AdjointIterations != 1 {
					t.Errorf("re-evaluation took %d Sinkhorn iterations and %d adjoint maps, want 1 and 1", st.Iterations, st.AdjointIterations)
				}
				if d := math.Abs(f1-f0) / math.Abs(f0); d > 1e-12 {
					t.Errorf("re-evaluated value %.15g, first %.15g (relative %.2g)", f1, f0, d)
				}
				if e := relErr(g1, g0); e > 1e-10 {
					t.Errorf("re-evaluated gradient differs by %.3g", e)
				}
				// Along a random direction (relative to θ): the value's
				// central difference over ±h against the gradient's slope.
				// Measured 7e-10–4e-9 relative (round-off ε·F/h); 1e-6
				// leaves room, and the old warm start gave 1e-5–2.3e-4.
				dir := randVec(rng, len(theta), -1, 1)
				const h = 1e-6
				at := func(s float64) float64 {
					th := append([]float64(nil), theta...)
					for i := range th {
						th[i] += s * dir[i] * theta[i]
					}
					fi.LoadWarm(&saved)
					f, _, _ := eval(th)
					return f
				}
				slope := 0.0
				for i := range dir {
					slope += g0[i] * dir[i] * theta[i]
				}
				fd := (at(h) - at(-h)) / (2 * h)
				t.Logf("slope %.10g, central difference %.10g", slope, fd)
				if math.Abs(fd-slope) > 1e-6*math.Abs(slope) {
					t.Errorf("central difference %.10g of the value, gradient's slope %.10g", fd, slope)
				}
			})
		}
	}
}

// adjointSolver returns the implicit gradient with the GMRES adjoint solve
// or the fixed-point one.
func adjointSolver(gmres bool) Gradient {
	if gmres {
		return ImplicitGMRES
	}
	return ImplicitFixedPoint
}
