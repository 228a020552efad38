package color

import (
	"fmt"
	"image"
	stdcolor "image/color"
	"math"
)

// Image is an RGB image with float64 channels, nominally in [0,1], as the
// colour transfer works on it. Pixels are row-major with interleaved
// channels: channel c (0=R, 1=G, 2=B) of pixel (x,y) is Pix[3·(y·W+x)+c].
type Image struct {
	W, H int
	Pix  []float64
}

// NewImage returns a black w×h image.
func NewImage(w, h int) *Image {
	if w < 0 || h < 0 {
		panic(fmt.Sprintf("color: NewImage: negative size %d×%d", w, h))
	}
	return &Image{W: w, H: h, Pix: make([]float64, 3*w*h)}
}

// FromImage converts img to an Image with channels V/255, where V are the
// non-premultiplied 8-bit channel values (16-bit images are reduced to
// their high byte; alpha is ignored), matching the reference's
// imageio.imread(png)/255. The result's origin is img.Bounds().Min.
func FromImage(img image.Image) *Image {
	b := img.Bounds()
	m := NewImage(b.Dx(), b.Dy())
	k := 0
	eachRGB8(img, func(r, g, bl uint8) {
		m.Pix[k] = float64(r) / 255
		m.Pix[k+1] = float64(g) / 255
		m.Pix[k+2] = float64(bl) / 255
		k += 3
	})
	return m
}

// NRGBA converts m to an opaque 8-bit image by To8, as the reference saves
// its results (docs/method.md, "Colour transfer", step 5).
func (m *Image) NRGBA() *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, m.W, m.H))
	for k := range m.W * m.H {
		p := out.Pix[4*k : 4*k+4]
		for c := range 3 {
			p[c] = To8(m.Pix[3*k+c])
		}
		p[3] = 255
	}
	return out
}

// To8 converts a channel value in [0,1] to 8 bits by truncation,
// uint8(⌊x·255⌋), clamping to [0,1] first; NaN becomes 0.
func To8(x float64) uint8 {
	if !(x > 0) {
		return 0
	}
	if x >= 1 {
		return 255
	}
	return uint8(math.Floor(x * 255))
}

// eachRGB8 calls f with each pixel's unpremultiplied 8-bit R, G, B, row-major.
func eachRGB8(img image.Image, f func(r, g, b uint8)) {
	bounds := img.Bounds()
	switch m := img.(type) {
	case *image.NRGBA:
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			row := m.Pix[m.PixOffset(bounds.Min.X, y):]
			for x := 0; x < bounds.Dx(); x++ {
				f(row[4*x], row[4*x+1], row[4*x+2])
			}
		}
	case *image.RGBA:
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			row := m.Pix[m.PixOffset(bounds.Min.X, y):]
			for x := 0; x < bounds.Dx(); x++ {
				p := row[4*x : 4*x+4]
				if p[3] == 255 {
					f(p[0], p[1], p[2])
					continue
				}
				c := stdcolor.NRGBAModel.Convert(stdcolor.RGBA{p[0], p[1], p[2], p[3]}).(stdcolor.NRGBA)
				f(c.R, c.G, c.B)
			}
		}
	default:
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				c := stdcolor.NRGBAModel.Convert(img.At(x, y)).(stdcolor.NRGBA)
				f(c.R, c.G, c.B)
			}
		}
	}
}
