package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	imgcolor "image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/color"
)

// fuzzFile writes data to the file name in dir and returns its path. The
// fuzz targets reuse one folder per process (f.TempDir: the inputs of one
// process run one after the other), as a new t.TempDir per input costs
// far more than reading the input.
func fuzzFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fuzzImages returns small encoded images for the seed corpora: an RGB PNG,
// a grey PNG, a JPEG and a 1×1 PNG of a saturated colour.
func fuzzImages(f *testing.F) [][]byte {
	rgb := image.NewNRGBA(image.Rect(0, 0, 5, 3))
	gray := image.NewGray(image.Rect(0, 0, 4, 4))
	for i := range 16 {
		rgb.SetNRGBA(i%5, i%3, imgcolor.NRGBA{R: uint8(16 * i), G: uint8(255 - 9*i), B: 77, A: uint8(128 + i)})
		gray.SetGray(i%4, i/4, imgcolor.Gray{Y: uint8(15 * i)})
	}
	white := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	white.SetNRGBA(0, 0, imgcolor.NRGBA{R: 255, G: 255, B: 255, A: 255})
	var out [][]byte
	for _, im := range []image.Image{rgb, gray, white} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, im); err != nil {
			f.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, rgb, &jpeg.Options{Quality: 50}); err != nil {
		f.Fatal(err)
	}
	return append(out, buf.Bytes())
}

// FuzzColorImage feeds arbitrary bytes, as a PNG and as a JPEG file, through
// the colour commands' path from an image file to a histogram
// (colorLoadImage, then color.Histogram with and without dropping
// saturated pixels). It must not panic; an image it accepts is non-empty,
// and an accepted histogram has n³ finite non-negative bins summing to 1
// up to float32 round-off.
func FuzzColorImage(f *testing.F) {
	for _, b := range fuzzImages(f) {
		f.Add(b, uint8(4), false)
		f.Add(b, uint8(2), true)
	}
	f.Add([]byte("\x89PNG\r\n\x1a\n"), uint8(3), false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, bins uint8, drop bool) {
		n := 1 + int(bins%8)
		for _, name := range []string{"im.png", "im.jpg"} {
			img, err := colorLoadImage(fuzzFile(t, dir, name, data), 0)
			if err != nil {
				continue
			}
			if b := img.Bounds(); b.Dx() <= 0 || b.Dy() <= 0 {
				t.Fatalf("%s: accepted an image with bounds %v", name, b)
			}
			h, err := color.Histogram(img, &color.HistOptions{Bins: n, DropSaturated: drop})
			if err != nil {
				continue
			}
			checkHistogram(t, h, n*n*n)
		}
	})
}

// checkHistogram fails t unless h has size bins, each finite and ≥ 0, and
// sums to 1 within float32 round-off.
func checkHistogram(t *testing.T, h []float64, size int) {
	t.Helper()
	if len(h) != size {
		t.Fatalf("histogram has %d bins, want %d", len(h), size)
	}
	var s float64
	for i, v := range h {
		if !(v >= 0) || math.IsInf(v, 0) {
			t.Fatalf("bin %d is %v", i, v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-4 {
		t.Fatalf("histogram sums to %v", s)
	}
}

// fuzzMetricSide is the side of the 2-D grid FuzzMetricFile reads metrics
// for, and of the colour cube of runlog.ReadMetric.
const fuzzMetricSide = 3

// fuzzMetrics returns .npy seeds: metrics that fit (vertex values, an edge
// metric with its zero padding, the [d,n,n] layout, float32 and Fortran
// order), a wrong shape, a negative and a NaN value.
func fuzzMetrics(f *testing.F) [][]byte {
	const n = fuzzMetricSide
	ones := func(shape ...int) *dataset.Array {
		a := &dataset.Array{Shape: shape}
		size := 1
		for _, s := range shape {
			size *= s
		}
		for i := range size {
			a.Data = append(a.Data, 1+float64(i%5)/4)
		}
		return a
	}
	g, err := kernel.Cube(2, n)
	if err != nil {
		f.Fatal(err)
	}
	edge := &dataset.Array{Shape: []int{2, n * n}, Data: dataset.PadMetric(g, learn.EdgeMetric, ones(g.NumEdges()).Data)}
	neg, nan := ones(2, n*n), ones(2, n*n)
	neg.Data[4], nan.Data[7] = -1, math.NaN()
	var out [][]byte
	for _, a := range []*dataset.Array{ones(2, n*n), edge, ones(3, n*n*n), ones(2, n*n+1), neg, nan} {
		var buf bytes.Buffer
		if err := dataset.WriteNpy(&buf, a); err != nil {
			f.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return append(out, fortranFloat32(ones(2, n, n)))
}

// fortranFloat32 returns a 3-D array as NumPy saves
// np.asfortranarray(a, dtype='<f4'): element [i,j,k] of shape (a,b,c) is
// stored at i + a*j + a*b*k.
func fortranFloat32(a *dataset.Array) []byte {
	s0, s1, s2 := a.Shape[0], a.Shape[1], a.Shape[2]
	data := make([]byte, 4*len(a.Data))
	for i := range s0 {
		for j := range s1 {
			for k := range s2 {
				v := float32(a.Data[(i*s1+j)*s2+k])
				binary.LittleEndian.PutUint32(data[4*(i+s0*j+s0*s1*k):], math.Float32bits(v))
			}
		}
	}
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': True, 'shape': %s, }\n", dataset.ShapeString(a.Shape))
	head := binary.LittleEndian.AppendUint16([]byte("\x93NUMPY\x01\x00"), uint16(len(dict)))
	return append(append(head, dict...), data...)
}

// FuzzMetricFile feeds arbitrary bytes, as a .npy metric file, to the
// metric readers: readMetric for a 2-D grid with either parameterisation
// (eval --metric-file, interp --metric-file, learn --init, render) and
// runlog.ReadMetric (sunset). They must not panic; an accepted metric has
// one value per parameter, each positive and finite, and then
// kernel.HeatBound.CheckMetric either accepts it or says why not.
func FuzzMetricFile(f *testing.F) {
	for _, b := range fuzzMetrics(f) {
		f.Add(b)
	}
	f.Add([]byte("\x93NUMPY\x01\x00"))
	g, err := kernel.Cube(2, fuzzMetricSide)
	if err != nil {
		f.Fatal(err)
	}
	cube, err := kernel.Cube(3, fuzzMetricSide)
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzFile(t, dir, "metric.npy", data)
		for _, kind := range []learn.MetricKind{learn.VertexMetric, learn.EdgeMetric} {
			theta, err := dataset.ReadMetric(path, g, kind)
			if err != nil {
				continue
			}
			want := 2 * g.N()
			if kind == learn.EdgeMetric {
				want = g.NumEdges()
			}
			checkPositive(t, theta, want)
			if err := kernel.GridHeatBound(2, fuzzMetricSide).CheckMetric(path, theta, 1e-2, 20); err != nil && !(maxOf(theta) > 1e12) {
				t.Fatalf("CheckMetric refused max %g: %v", maxOf(theta), err)
			}
		}
		if theta, err := runlog.ReadMetric(path, dataset.Space{Graph: cube, Colour: true}, learn.VertexMetric); err == nil {
			checkPositive(t, theta, 3*cube.N())
		}
	})
}

// checkPositive fails t unless theta has size values, each positive and
// finite.
func checkPositive(t *testing.T, theta []float64, size int) {
	t.Helper()
	if len(theta) != size {
		t.Fatalf("accepted %d values, want %d", len(theta), size)
	}
	for i, v := range theta {
		if !(v > 0) || math.IsInf(v, 0) {
			t.Fatalf("accepted value %d = %v", i, v)
		}
	}
}

// maxOf returns the largest value of v (0 for none).
func maxOf(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
