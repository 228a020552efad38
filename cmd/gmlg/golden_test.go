package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestEvalSpecGolden evaluates the objective on the reference's toy data
// through the command line and compares with the "Full data at x = 0" rows of
// docs/method.md, "Reference values". Each evaluation takes about half a
// minute of CPU (50×50 grid, 100 kernel steps), so the test runs only with
// GMLG_SLOW_TESTS=1.
func TestEvalSpecGolden(t *testing.T) {
	if os.Getenv("GMLG_SLOW_TESTS") != "1" {
		t.Skip("set GMLG_SLOW_TESTS=1 to evaluate the full-data golden values of docs/method.md (about a minute)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(root, "..", "shared", "data")
	for _, tc := range []struct {
		name     string
		args     []string
		f, gnorm float64 // reference values
		g0, g1   float64 // g[0,1275], g[1,1275]
	}{
		{"toydataF3", []string{"--loss", "l1", "--lambda-s", "0.03"},
			9.7559991302683144e+00, 1.8470147925582214e-01, 4.2488288169250515e-03, 7.4638954000511588e-03},
		{"toydataF4", []string{"--loss", "kl", "--lambda-s", "0.03"},
			7.1204427125551417e+00, 3.4266293102447737e-01, 7.5056186721032137e-03, 1.0807209312713176e-02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(shared, tc.name)
			if _, err := os.Stat(data); err != nil {
				t.Skipf("reference data %s not found: %v", data, err)
			}
			out := filepath.Join(t.TempDir(), "eval")
			mustGmlg(t, append([]string{"eval", data, "-o", out, "--t", "3e-3", "--steps", "100", "--sinkhorn-iters", "50"}, tc.args...)...)
			var ev evalParams
			readJSON(t, filepath.Join(out, "eval.json"), &ev)
			g := readNpy(t, filepath.Join(out, "grad.npy"))
			sameShape(t, g, 2, 2500)
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"F", ev.Result.F, tc.f}, {"‖g‖", ev.Result.GradNorm, tc.gnorm},
				{"g[0,1275]", g.Data[1275], tc.g0}, {"g[1,1275]", g.Data[2500+1275], tc.g1},
			} {
				if math.Abs(c.got-c.want) > 1e-9*math.Abs(c.want) {
					t.Errorf("%s = %.17g, docs/method.md gives %.17g", c.what, c.got, c.want)
				}
			}
		})
	}
}
