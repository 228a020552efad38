package color_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	stdcolor "image/color"
	"log"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
	"github.com/gmlg/gmlg/ot/color"
)

// sunsetImage returns a 24×16 picture whose colours move from a warm day
// gradient (s = 0) to a dark blue night one (s = 1), with one saturated
// red pixel.
func sunsetImage(s float64) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 24, 16))
	for y := range 16 {
		for x := range 24 {
			u, v := float64(x)/23, float64(y)/15
			r := (1-s)*(0.6+0.4*u) + s*0.1*u
			g := (1-s)*(0.3+0.5*v) + s*0.15
			b := (1-s)*0.2*v + s*(0.3+0.4*v)
			if x == 3 && y == 2 {
				r = 1
			}
			img.SetNRGBA(x, y, stdcolor.NRGBA{uint8(r * 255), uint8(g * 255), uint8(b * 255), 255})
		}
	}
	return img
}

// sunsetMetric is a positive [3, n³] colour metric that varies from
// vertex to vertex.
func sunsetMetric(n int) []float64 {
	theta := make([]float64, 3*n*n*n)
	for i := range theta {
		theta[i] = 1 + 0.5*math.Sin(0.7*float64(i))
	}
	return theta
}

// portableFactor is the pure-Go factorisation on gonum's pure-Go BLAS
// ("go-purego" in cgo builds, "go" without cgo): its bits do not depend on
// which kernels the machine's BLAS picks for its processor, unlike
// CHOLMOD's supernodal factor (OpenBLAS chooses its kernels by CPU).
func portableFactor(t *testing.T) factor.Factorizer {
	t.Helper()
	name := "go"
	if slices.Contains(kernel.Backends(), "go-purego") {
		name = "go-purego"
	}
	f, err := kernel.Backend(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// learnedKernel returns NewLearnedKernel of sunsetMetric(4) on the
// portable factor, closed at the end of the test.
func learnedKernel(t *testing.T, levels int) *kernel.Heat {
	t.Helper()
	heat, err := color.NewLearnedKernel(sunsetMetric(4), 4, &color.LearnedOptions{Levels: levels,
		Heat: kernel.HeatOptions{T: 1e-2, Steps: 3, Backend: portableFactor(t)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { heat.Close() })
	return heat
}

func euclidean(t *testing.T, n int, gamma float64) *color.Euclidean {
	t.Helper()
	k, err := color.NewEuclidean(n, gamma)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSunsetMatchesCommand renders small sunsets with every interpolation
// (linear, Euclidean, a learned kernel under the exact and the converged
// model) and compares them with what `gmlg sunset` writes for the same
// images and settings: the SHA-256 of the frames' pixels, of the
// interpolated histograms (float64, little-endian) and of the .cube LUTs.
// Every LUT also reads back (ReadCube) to the table it was written from.
// The learned kernels factorise in pure Go (portableFactor), so that the
// recorded sums hold on every amd64 processor with FMA, whatever BLAS
// kernels it runs (`gmlg sunset --backend go-purego` computes them through
// the same calls).
func TestSunsetMatchesCommand(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the recorded outputs are amd64's; other architectures fuse multiply-adds")
	}
	cases := []struct {
		name    string
		night   float64
		opt     func(t *testing.T) color.SunsetOptions
		method  string
		lutSize int
		frames  string
		hists   string
		luts    string
	}{
		{"learned exact", 1, func(t *testing.T) color.SunsetOptions {
			return color.SunsetOptions{Frames: 3, Kernel: learnedKernel(t, 1), Iterations: 10, Transfer: color.TransferOptions{Iterations: 20}}
		}, "learned", 0,
			"b523b7adeb9eedfc351f158c2a86babd0ba0b948f76fe639515489926d14c64b",
			"a5bc187eb0bfa91efbba1cfbc7bc3010584f5e519dcdccc5f7b511390cea75cf",
			"7b75159c23e147716f1b8af3ef99d31b0fa695bb799f7abbdcc88e7b93c32072"},
		{"learned converged", 1, func(t *testing.T) color.SunsetOptions {
			return color.SunsetOptions{Frames: 3, Kernel: learnedKernel(t, 0), Tol: 1e-9, Anderson: 5,
				Transfer: color.TransferOptions{Iterations: 5}}
		}, "learned", 3,
			"7217a6c9964af80b4d64e8506f3c845db857a78a1f7e185934a7f635ef32410f",
			"eff046d18a9a8d25601668b9be08411a2855591198626e0f8da9ecfacc116fe7",
			"c4565f2cd8ac77380aca16e652ce94f86aa7da9a54f78f154b2595e1cff86b45"},
		{"euclid", 0.5, func(t *testing.T) color.SunsetOptions {
			return color.SunsetOptions{Frames: 3, Kernel: euclidean(t, 9, 0.01), Transfer: color.TransferOptions{Iterations: 10, NoBilateral: true}}
		}, "euclid", 5,
			"91c25ee0bd6e483f10f64b0b5843be59a2a98c7d776bd41077ae60b9b816062e",
			"3e6eeb2780708e06d68231966f54e26ca0b0d9b15fc4efc509afed3e0cb9872c",
			"fc9215f8180dc26f4d4671a354b580b90e33bcfed0ea3d8d43f2a18248ecc876"},
		{"linear", 1, func(t *testing.T) color.SunsetOptions {
			return color.SunsetOptions{Bins: 6, Frames: 5, Transfer: color.TransferOptions{Iterations: 30, Interpolate: true}}
		}, "linear", 0,
			"27ff4177b5e2ea5ca3d9af89f604e6b2270b77693a331d7e141a7a6064496746",
			"2f17bb94cf7d06d521d968a5a6ce40a5b7acb7864bf3d950ef11b0cb9e736867",
			"21a5f4c4492b48dfd998e92624c37600abe64f2ddd362e2b0682baf6c9031331"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.method == "learned" && !strings.HasSuffix(sparsechol.SolveKernels(), "-fma") {
				t.Skipf("the recorded outputs of a learned kernel are those of the fused multiply-add solve kernels (avx2-fma and avx512-fma give the same bits); this processor runs %s", sparsechol.SolveKernels())
			}
			opt := c.opt(t)
			s, err := color.NewSunset(sunsetImage(0), sunsetImage(c.night), &opt)
			if err != nil {
				t.Fatal(err)
			}
			frames, hists, luts := sha256.New(), sha256.New(), sha256.New()
			for f, tf := range s.Times {
				out, m, err := s.Frame(f)
				if err != nil {
					t.Fatal(err)
				}
				frames.Write(out.NRGBA().Pix)
				if err := binary.Write(hists, binary.LittleEndian, s.Hists[f]); err != nil {
					t.Fatal(err)
				}
				luts.Write(cubeRoundTrip(t, m, c.lutSize, fmt.Sprintf("gmlg sunset %s frame %d t=%.4f", c.method, f, tf)))
			}
			for _, h := range []struct {
				what string
				sum  []byte
				want string
			}{{"frames", frames.Sum(nil), c.frames}, {"histograms", hists.Sum(nil), c.hists}, {"LUTs", luts.Sum(nil), c.luts}} {
				if got := fmt.Sprintf("%x", h.sum); got != h.want {
					t.Errorf("%s: SHA-256 %s, want the command's %s", h.what, got, h.want)
				}
			}
		})
	}
}

// cubeRoundTrip writes m's LUT and checks that ReadCube gives its table
// back; it returns the text.
func cubeRoundTrip(t *testing.T, m *color.Map, size int, title string) []byte {
	t.Helper()
	c, err := m.Cube(size, title)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := color.ReadCube(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if back.Title != title || back.Size != c.Size || len(back.Table) != len(c.Table) {
		t.Fatalf("read back %q size %d with %d entries, want %q size %d with %d", back.Title, back.Size, len(back.Table), title, c.Size, len(c.Table))
	}
	for k := range c.Table {
		if back.Table[k] != c.Table[k] {
			t.Fatalf("read back table[%d] = %v, want %v", k, back.Table[k], c.Table[k])
		}
	}
	return buf.Bytes()
}

// TestSunsetDefaults: zero options take the documented defaults, and the
// bins follow the kernel's grid.
func TestSunsetDefaults(t *testing.T) {
	day, night := sunsetImage(0), sunsetImage(1)
	cases := []struct {
		name         string
		opt          *color.SunsetOptions
		frames, bins int
	}{
		{"nil", nil, color.DefaultSunsetFrames, 16},
		{"zero", &color.SunsetOptions{}, color.DefaultSunsetFrames, 16},
		{"kernel's bins", &color.SunsetOptions{Frames: 2, Kernel: euclidean(t, 5, 0.01)}, 2, 5},
		{"learned kernel's bins", &color.SunsetOptions{Frames: 2, Kernel: learnedKernel(t, 1)}, 2, 7},
	}
	for _, c := range cases {
		s, err := color.NewSunset(day, night, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(s.Times) != c.frames || len(s.Hists) != c.frames || len(s.Day) != c.bins*c.bins*c.bins {
			t.Errorf("%s: %d times, %d histograms, a %d-long day histogram, want %d frames and %d bins",
				c.name, len(s.Times), len(s.Hists), len(s.Day), c.frames, c.bins)
		}
	}
}

// TestSunsetEndpoints: the linear interpolation starts at the day
// histogram and ends at the night one, and transferring the day's own
// histogram without smoothing maps every bin to its centre's neighbourhood.
func TestSunsetEndpoints(t *testing.T) {
	s, err := color.NewSunset(sunsetImage(0), sunsetImage(1), &color.SunsetOptions{Bins: 8, Frames: 4})
	if err != nil {
		t.Fatal(err)
	}
	last := len(s.Hists) - 1
	for i := range s.Day {
		if s.Hists[0][i] != s.Day[i] || s.Hists[last][i] != s.Night[i] {
			t.Fatalf("bin %d: frames %v and %v, want the day's %v and the night's %v", i, s.Hists[0][i], s.Hists[last][i], s.Day[i], s.Night[i])
		}
	}
	day, _, err := s.Frame(0)
	if err != nil {
		t.Fatal(err)
	}
	night, _, err := s.Frame(last)
	if err != nil {
		t.Fatal(err)
	}
	if d0, d1 := meanAbsDiff(day, sunsetImage(0)), meanAbsDiff(night, sunsetImage(0)); !(d0 < d1/4) {
		t.Errorf("frame 0 differs from the day image by %.3g grey levels, the last frame by %.3g; want the first far smaller", d0, d1)
	}
}

// meanAbsDiff is the mean absolute channel difference between a and b in
// grey levels.
func meanAbsDiff(a *color.Image, b *image.NRGBA) float64 {
	pa := a.NRGBA().Pix
	var s float64
	for i := range pa {
		s += math.Abs(float64(pa[i]) - float64(b.Pix[i]))
	}
	return s / float64(len(pa))
}

// TestSunsetErrors: options that cannot make a sunset, and frames out of
// range, are errors.
func TestSunsetErrors(t *testing.T) {
	day, night := sunsetImage(0), sunsetImage(1)
	cases := []struct {
		name string
		opt  color.SunsetOptions
		want string
	}{
		{"one frame", color.SunsetOptions{Frames: 1}, "frames = 1"},
		{"one bin", color.SunsetOptions{Bins: 1}, "bins = 1"},
		{"kernel of another size", color.SunsetOptions{Bins: 4, Kernel: euclidean(t, 5, 0.01)}, "kernel of size 125 for 4³ bins"},
		{"negative iterations", color.SunsetOptions{Bins: 4, Kernel: euclidean(t, 4, 0.01), Iterations: -1}, "negative iteration"},
		{"negative tolerance", color.SunsetOptions{Bins: 4, Kernel: euclidean(t, 4, 0.01), Tol: -1}, "tol = -1"},
		{"NaN tolerance", color.SunsetOptions{Bins: 4, Kernel: euclidean(t, 4, 0.01), Tol: math.NaN()}, "tol = NaN"},
		{"negative sigma", color.SunsetOptions{Bins: 4, SigmaTransfer: -1}, "sigma of the transfer = -1"},
	}
	for _, c := range cases {
		_, err := color.NewSunset(day, night, &c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	s, err := color.NewSunset(day, night, &color.SunsetOptions{Bins: 4, Frames: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []int{-1, 2} {
		if _, _, err := s.Frame(f); err == nil {
			t.Errorf("Frame(%d) of 2: no error", f)
		}
	}
}

// TestNewLearnedKernel: the kernel lives on the prolonged grid with the
// reference's alpha (n_hi−1)² after a prolongation and the learning's
// 1/h² without; a uniform metric gives the kernel of unit weights; a metric
// too large for the heat matrix is an error matching factor.ErrNotPosDef.
func TestNewLearnedKernel(t *testing.T) {
	for _, c := range []struct {
		levels, nHi int
		alpha       float64
	}{{0, 4, kernel.GridAlpha(4)}, {1, 7, 36}, {2, 13, 144}} {
		uniform := make([]float64, 3*4*4*4)
		for i := range uniform {
			uniform[i] = 1
		}
		opt := color.LearnedOptions{Levels: c.levels, Heat: kernel.HeatOptions{T: 1e-2, Steps: 3}}
		heat, err := color.NewLearnedKernel(uniform, 4, &opt)
		if err != nil {
			t.Fatal(err)
		}
		N := c.nHi * c.nHi * c.nHi
		if heat.Size() != N || heat.Options().Alpha != c.alpha {
			t.Errorf("levels %d: size %d, alpha %v, want %d and %v", c.levels, heat.Size(), heat.Options().Alpha, N, c.alpha)
		}
		g, err := kernel.Cube(3, c.nHi)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := kernel.NewHeat(g, &kernel.HeatOptions{T: 1e-2, Steps: 3, Alpha: c.alpha})
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, g.NumEdges())
		for i := range w {
			w[i] = 1
		}
		if err := ref.SetWeights(w); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, N)
		for i := range x {
			x[i] = 1 + math.Sin(float64(i))
		}
		got, want := make([]float64, N), make([]float64, N)
		if err := heat.Apply(got, x, 1); err != nil {
			t.Fatal(err)
		}
		if err := ref.Apply(want, x, 1); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("levels %d: K·x[%d] = %v, want the unit-weight kernel's %v", c.levels, i, got[i], want[i])
			}
		}
		heat.Close()
		ref.Close()
	}
	huge := sunsetMetric(4)
	huge[0] = 1e300
	if _, err := color.NewLearnedKernel(huge, 4, &color.LearnedOptions{Levels: 1}); !errors.Is(err, factor.ErrNotPosDef) {
		t.Errorf("huge metric: error %v, want factor.ErrNotPosDef", err)
	}
	if _, err := color.NewLearnedKernel(huge[:10], 4, nil); err == nil {
		t.Error("metric of the wrong length: no error")
	}
}

// TestApplyMapAndDirect: NewDirect's From, through ApplyMap, gives Apply's
// image and Map's map.
func TestApplyMapAndDirect(t *testing.T) {
	target, source := sunsetImage(0), sunsetImage(1)
	const n = 6
	opt := color.DirectOptions{Bins: n, SigmaGamma: 0.05, Transfer: color.TransferOptions{Iterations: 20}}
	d, err := color.NewDirect(target, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, m, err := d.From(source)
	if err != nil {
		t.Fatal(err)
	}
	k := euclidean(t, n, color.GammaFromSigma(0.05))
	tr, err := color.NewTransfer(k, n)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := color.Histogram(target, &color.HistOptions{Bins: n})
	q, _ := color.Histogram(source, &color.HistOptions{Bins: n})
	wantMap, err := tr.Map(p, q, 20)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tr.Apply(color.FromImage(target), p, q, &opt.Transfer)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Pix {
		if got.Pix[i] != want.Pix[i] {
			t.Fatalf("pixel channel %d: From %v, Apply %v", i, got.Pix[i], want.Pix[i])
		}
	}
	for i := range wantMap.Colors {
		if m.Colors[i] != wantMap.Colors[i] {
			t.Fatalf("map colour %d: From %v, Map %v", i, m.Colors[i], wantMap.Colors[i])
		}
	}
}

func ExampleNewSunset() {
	// A warm day picture and a blue night one, interpolated at 3 frames
	// under the Euclidean kernel on 9³ bins, each frame's colours
	// transferred onto the day picture.
	day, night := sunsetImage(0), sunsetImage(1)
	k, err := color.NewEuclidean(9, 0.01)
	if err != nil {
		log.Fatal(err)
	}
	s, err := color.NewSunset(day, night, &color.SunsetOptions{Frames: 3, Kernel: k, Transfer: color.TransferOptions{Iterations: 100}})
	if err != nil {
		log.Fatal(err)
	}
	for f, t := range s.Times {
		im, m, err := s.Frame(f) // the frame and its colour map
		if err != nil {
			log.Fatal(err)
		}
		lut, err := m.Cube(0, fmt.Sprintf("frame %d", f)) // a 9³ .cube LUT
		if err != nil {
			log.Fatal(err)
		}
		var mean [3]float64
		for i, v := range im.Pix {
			mean[i%3] += v / float64(im.W*im.H)
		}
		fmt.Printf("t=%.1f: mean colour %.0f %.0f %.0f, LUT %d³\n", t, 255*mean[0], 255*mean[1], 255*mean[2], lut.Size)
	}
	// Output:
	// t=0.0: mean colour 201 138 30, LUT 9³
	// t=0.5: mean colour 108 89 78, LUT 9³
	// t=1.0: mean colour 20 41 129, LUT 9³
}
