package color_test

import (
	"fmt"
	"image"
	stdcolor "image/color"
	"log"
	"math"
	"os"
	"strings"

	"github.com/gmlg/gmlg/ot"
	"github.com/gmlg/gmlg/ot/color"
)

func ExampleHistogram() {
	// A 2×2 image: two black pixels, one pure red (R = 255) and one grey.
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.SetNRGBA(0, 0, stdcolor.NRGBA{0, 0, 0, 255})
	img.SetNRGBA(1, 0, stdcolor.NRGBA{0, 0, 0, 255})
	img.SetNRGBA(0, 1, stdcolor.NRGBA{255, 0, 0, 255})
	img.SetNRGBA(1, 1, stdcolor.NRGBA{128, 128, 128, 255})
	const n = 4
	for _, drop := range []bool{false, true} {
		h, err := color.Histogram(img, &color.HistOptions{Bins: n, DropSaturated: drop})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("DropSaturated=%v: black %.4f, red %.4f, grey %.4f\n", drop,
			h[color.Index(0, 0, 0, n)], h[color.Index(3, 0, 0, n)], h[color.Index(2, 2, 2, n)])
	}
	// Output:
	// DropSaturated=false: black 0.5000, red 0.2500, grey 0.2500
	// DropSaturated=true: black 0.6667, red 0.0000, grey 0.3333
}

func ExampleNewEuclidean() {
	// The reference's colour unit: n = 5, γ = 0.05, v_i = 1 + 0.5 sin(0.9 i).
	k, err := color.NewEuclidean(5, 0.05)
	if err != nil {
		log.Fatal(err)
	}
	v := make([]float64, k.Size())
	for i := range v {
		v[i] = 1 + 0.5*math.Sin(0.9*float64(i))
	}
	u := make([]float64, k.Size())
	if err := k.Apply(u, v, 1); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("u[0] = %.10f, u[62] = %.10f\n", u[0], u[62])
	// Output:
	// u[0] = 2.0435285392, u[62] = 3.7908043320
}

func ExampleTransfer_Map() {
	// Barycentric colours of the reference's colour unit (n = 5, γ = 0.05, 30
	// Sinkhorn iterations).
	const n = 5
	k, _ := color.NewEuclidean(n, 0.05)
	tr, err := color.NewTransfer(k, n)
	if err != nil {
		log.Fatal(err)
	}
	N := k.Size()
	p, q := make([]float64, N), make([]float64, N)
	var sp, sq float64
	for i := range N {
		p[i], q[i] = 1.2+math.Sin(0.7*float64(i)), 1.2+math.Cos(0.4*float64(i))
		sp, sq = sp+p[i], sq+q[i]
	}
	for i := range N {
		p[i], q[i] = p[i]/sp, q[i]/sq
	}
	m, err := tr.Map(p, q, 30)
	if err != nil {
		log.Fatal(err)
	}
	r, g, b := color.BinCentre(0, n)
	fmt.Printf("bin 0: centre (%.2f %.2f %.2f) → (%.6f %.6f %.6f)\n", r, g, b, m.Colors[0], m.Colors[1], m.Colors[2])
	// Output:
	// bin 0: centre (0.10 0.10 0.10) → (0.114930 0.115350 0.129592)
}

func ExampleTransfer_Apply() {
	// Recolour a small gradient image with the histogram of a warmer copy.
	src := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	warm := image.NewNRGBA(src.Bounds())
	for y := range 32 {
		for x := range 32 {
			v := uint8(8 * x)
			src.SetNRGBA(x, y, stdcolor.NRGBA{v, v, uint8(8 * y), 255})
			warm.SetNRGBA(x, y, stdcolor.NRGBA{uint8(min(255, int(v)+40)), v, uint8(4 * y), 255})
		}
	}
	const n = 8
	p, _ := color.Histogram(src, &color.HistOptions{Bins: n})
	q, _ := color.Histogram(warm, &color.HistOptions{Bins: n})
	k, _ := color.NewEuclidean(n, color.GammaFromSigma(0.05))
	tr, _ := color.NewTransfer(k, n)
	out, err := tr.Apply(color.FromImage(src), p, q, nil) // 100 iterations, bilateral σs = 2, σr = 0.1
	if err != nil {
		log.Fatal(err)
	}
	var before, after float64
	im := color.FromImage(src)
	for k := 0; k < len(out.Pix); k += 3 {
		before += im.Pix[k] - im.Pix[k+1]
		after += out.Pix[k] - out.Pix[k+1]
	}
	fmt.Printf("mean R−G before %.3f, after %.3f\n", before/1024, after/1024)
	// Output:
	// mean R−G before 0.000, after 0.134
}

func ExampleNewBilateralGrid() {
	// Smooth a noisy step while keeping the step: the edge image is the
	// clean step.
	const h, w = 8, 16
	data := make([]float64, h*w)
	edge := make([]float64, h*w)
	for i := range h {
		for j := range w {
			if j >= w/2 {
				edge[i*w+j] = 1
			}
			data[i*w+j] = edge[i*w+j] + 0.05*math.Sin(float64(7*i+3*j))
		}
	}
	g, err := color.NewBilateralGrid(h, w, 2, 0.1, 0, 1)
	if err != nil {
		log.Fatal(err)
	}
	out := make([]float64, h*w)
	if err := g.Filter(out, data, edge); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("left %.2f, right %.2f\n", out[3*w+2], out[3*w+13])
	// Output:
	// left 0.00, right 1.00
}

func ExampleMap_Cube() {
	// The identity map on 2 bins per channel exports the identity LUT.
	m := &color.Map{Bins: 2, Colors: make([]float64, 3*8)}
	for i := range 8 {
		m.Colors[3*i], m.Colors[3*i+1], m.Colors[3*i+2] = color.BinCentre(i, 2)
	}
	c, err := m.Cube(0, "identity")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.WriteTo(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// TITLE "identity"
	// LUT_3D_SIZE 2
	// DOMAIN_MIN 0 0 0
	// DOMAIN_MAX 1 1 1
	// 0 0 0
	// 1 0 0
	// 0 1 0
	// 1 1 0
	// 0 0 1
	// 1 0 1
	// 0 1 1
	// 1 1 1
}

func ExampleReadCube() {
	lut := "LUT_3D_SIZE 2\n" + strings.Repeat("0.5 0.25 1\n", 8)
	c, err := color.ReadCube(strings.NewReader(lut))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Size, c.DomainMax)
	fmt.Println(c.Eval(0.3, 0.7, 0.1))
	// Output:
	// 2 [1 1 1]
	// 0.5 0.25 1
}

func ExampleNewDirect() {
	// Give a grey ramp the colours of a blue ramp (direct transfer, n = 8).
	grey := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	blue := image.NewNRGBA(grey.Bounds())
	for y := range 30 {
		for x := range 40 {
			v := uint8(6 * x)
			grey.SetNRGBA(x, y, stdcolor.NRGBA{v, v, v, 255})
			blue.SetNRGBA(x, y, stdcolor.NRGBA{v / 2, v / 2, v, 255})
		}
	}
	d, err := color.NewDirect(grey, color.DirectOptions{Bins: 8, SigmaGamma: 0.05})
	if err != nil {
		log.Fatal(err)
	}
	out, _, err := d.From(blue)
	if err != nil {
		log.Fatal(err)
	}
	c := out.NRGBA().NRGBAAt(30, 15)
	fmt.Println("input", grey.NRGBAAt(30, 15), "→ output blue channel > red:", c.B > c.R)
	// Output:
	// input {180 180 180 255} → output blue channel > red: true
}

// A colour interpolation as the reference computes it: ot.Interpolate
// with the Euclidean kernel of the colour cube, every frame, the endpoints
// included, running the full Sinkhorn loop.
func Example_interpolate() {
	const n = 5
	warm, dark := make([]float64, n*n*n), make([]float64, n*n*n)
	for i := range warm {
		warm[i], dark[i] = 1e-6, 1e-6
	}
	warm[color.Index(4, 3, 1, n)] = 1
	dark[color.Index(0, 0, 1, n)] = 1
	k, err := color.NewEuclidean(n, 0.05)
	if err != nil {
		log.Fatal(err)
	}
	recs, err := ot.Interpolate(k, []ot.Sequence{{Source: warm, Target: dark, Times: ot.Linspace(3)}},
		&ot.Settings{Iterations: 100, IterateEndpoints: true})
	if err != nil {
		log.Fatal(err)
	}
	for f, h := range recs[0] {
		// The mean red level moves from warm to dark. The end frames are
		// the poles blurred once by the kernel, K(P/K·1), hence 0.85 and
		// not the pole's 0.9.
		mass, red := 0.0, 0.0
		for i, v := range h {
			r, _, _ := color.BinCentre(i, n)
			mass += v
			red += v * r
		}
		fmt.Printf("frame %d: mean R = %.2f\n", f, red/mass)
	}
	// Output:
	// frame 0: mean R = 0.85
	// frame 1: mean R = 0.50
	// frame 2: mean R = 0.15
}
