package learn

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"encoding/binary"
	"fmt"
	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
	"strings"
)

// dataDir returns ../shared/data relative to the repository root, or skips.
func dataDir(t testing.TB) string {
	t.Helper()
	// go test runs in the package folder, learn/.
	dir := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("reference data not found at %s (../shared/data from the repository root): %v", dir, err)
	}
	return dir
}

// loadFrames reads the sorted .npy files matching pattern as float64 arrays.
// With normalise, each frame is divided by its sum (the 2-D script's rule);
// otherwise it is used as stored (the colour histograms, already normalised
// in float32 by the reference).
func loadFrames(t testing.TB, pattern string, normalise bool) [][]float64 {
	t.Helper()
	paths, _ := filepath.Glob(pattern)
	if len(paths) == 0 {
		t.Skipf("no files match %s", pattern)
	}
	sort.Strings(paths)
	var out [][]float64
	for _, p := range paths {
		data, err := readNPY(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if normalise {
			var s float64
			for _, v := range data {
				s += v
			}
			for i := range data {
				data[i] /= s
			}
		}
		out = append(out, data)
	}
	return out
}

// TestReferenceFullData reproduces the "full data at x = 0" rows of
// docs/method.md, "Reference values": one objective and gradient evaluation
// on the reference datasets with the README settings, to 1e-9 relative.
func TestReferenceFullData(t *testing.T) {
	if testing.Short() {
		t.Skip("full-size reference evaluations skipped in -short mode")
	}
	dir := dataDir(t)
	cases := []struct {
		name, pattern string
		d, n          int
		normalise     bool
		loss          ot.Loss
		lc, ls, tHeat float64
		steps         int
		f, norm       float64
		gi            [2]int
		g             [2]float64
	}{
		{"F3", "toydataF3/array-*.npy", 2, 50, true, ot.L1, 0, 0.03, 3e-3, 100,
			9.7559991302683144e+00, 1.8470147925582214e-01, [2]int{1275, 2500 + 1275}, [2]float64{4.2488288169250515e-03, 7.4638954000511588e-03}},
		{"F4", "toydataF4/array-*.npy", 2, 50, true, ot.KL, 0, 0.03, 3e-3, 100,
			7.1204427125551417e+00, 3.4266293102447737e-01, [2]int{1275, 2500 + 1275}, [2]float64{7.5056186721032137e-03, 1.0807209312713176e-02}},
		{"F6", "toydataF6/array-*.npy", 2, 50, true, ot.L2, 0, 10, 3e-3, 100,
			8.2838572993055024e+01, 1.1030887809193032e+01, [2]int{1275, 2500 + 1275}, [2]float64{2.0733692784496549e-04, -1.6902095107772314e-06}},
		{"seldovia2", "seldovia2/hists16/hist-array-*.npy", 3, 16, false, ot.L2, 0, 1, 1e-3, 20,
			4.1627333474443349e+03, 1.2441245340334297e+03, [2]int{0, 4096 + 2000}, [2]float64{5.2828089154643317e+02, -7.7222508208318078e-07}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			frames := loadFrames(t, filepath.Join(dir, c.pattern), c.normalise)
			g, _ := kernel.Cube(c.d, c.n)
			o, err := NewObjective(g, []Sequence{{Frames: frames}}, &Config{
				Heat: kernel.HeatOptions{T: c.tHeat, Steps: c.steps}, Sinkhorn: ot.Settings{Iterations: 50},
				Loss: c.loss, LambdaC: c.lc, LambdaS: c.ls,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			x := make([]float64, o.Dim())
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
			const tol = 1e-9 // acceptance tolerance against the reference
			if !close(f, c.f, tol) || !close(norm, c.norm, tol) {
				t.Errorf("F=%.17g ‖g‖=%.17g, want %.17g and %.17g", f, norm, c.f, c.norm)
			}
			for k, i := range c.gi {
				// Tiny entries (|g| ~ 1e-6 against ‖g‖ ~ 10) are compared
				// relative to the gradient's norm.
				if math.Abs(grad[i]-c.g[k]) > tol*math.Max(math.Abs(c.g[k]), 1e-3*norm) {
					t.Errorf("g[%d]=%.17g, want %.17g", i, grad[i], c.g[k])
				}
			}
		})
	}
}

// readNPY reads a little-endian float32 or float64 C-order .npy file (version
// 1 header), enough for the reference datasets; the CLI has the full reader.
func readNPY(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 10 || string(b[1:6]) != "NUMPY" || b[6] != 1 {
		return nil, fmt.Errorf("not a version-1 .npy file")
	}
	off := 10 + int(binary.LittleEndian.Uint16(b[8:10]))
	header := string(b[10:off])
	if strings.Contains(header, "'fortran_order': True") {
		return nil, fmt.Errorf("fortran order not supported here")
	}
	var out []float64
	switch {
	case strings.Contains(header, "'<f8'"):
		for i := off; i+8 <= len(b); i += 8 {
			out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		}
	case strings.Contains(header, "'<f4'"):
		for i := off; i+4 <= len(b); i += 4 {
			out = append(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
		}
	default:
		return nil, fmt.Errorf("unsupported dtype in header %q", header)
	}
	return out, nil
}
