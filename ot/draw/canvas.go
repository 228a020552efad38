package draw

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	xfont "golang.org/x/image/font"
)

// sansFont is the typeface of every label (gonum/plot's Liberation Sans).
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// borderColor outlines maps, frames and colour bars.
var borderColor = color.RGBA{0x60, 0x60, 0x60, 0xff}

// rgb is a colour with channels in [0,1], as blended lines and discs use it.
type rgb [3]float64

// canvas is a white RGBA picture on which the package sets pixels directly,
// blends lines and discs, and writes text: labels in Liberation Sans through
// gonum/plot, and short tags in a 7×13 bitmap face. Coordinates are pixels
// relative to origin (the top-left corner of img on a sub-canvas, else
// (0, 0)); drawing outside img's bounds is clipped.
type canvas struct {
	img    *image.RGBA
	origin image.Point
	dc     *vgdraw.Canvas // nil on a sub-canvas, which has no vector text
	h      int
}

// newCanvas returns a white canvas of w×h pixels.
func newCanvas(w, h int) *canvas {
	// At 72 dpi one vg point is one pixel.
	vc := vgimg.NewWith(vgimg.UseWH(vg.Length(w), vg.Length(h)), vgimg.UseDPI(72))
	dc := vgdraw.New(vc)
	return &canvas{img: vc.Image().(*image.RGBA), dc: &dc, h: h}
}

func textStyle(size float64, xa text.XAlignment, ya text.YAlignment) vgdraw.TextStyle {
	_ = plot.DefaultFont // importing plot registers the Liberation fonts
	return vgdraw.TextStyle{
		Color:   color.Black,
		Font:    font.From(sansFont, font.Length(size)),
		XAlign:  xa,
		YAlign:  ya,
		Handler: plot.DefaultTextHandler,
	}
}

// text draws s in Liberation Sans at pixel (x, y) with the given alignment.
func (c *canvas) text(x, y int, s string, size float64, xa text.XAlignment, ya text.YAlignment) {
	if s == "" {
		return
	}
	c.dc.FillText(textStyle(size, xa, ya), vg.Point{X: vg.Length(x), Y: vg.Length(c.h - y)}, s)
}

// orSize returns v, or d if v is not positive: a size's default.
func orSize(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// title draws the title s centred at the top of a picture w pixels wide.
func (c *canvas) title(w int, s string) {
	c.text(w/2, margin+mainTitleH/2, s, titleSize, vgdraw.XCenter, vgdraw.YCenter)
}

// titleTop returns the y below the top margin and the title, if any.
func titleTop(title string) int {
	if title == "" {
		return margin
	}
	return margin + mainTitleH
}

// textWidth returns the width in pixels of s in Liberation Sans of the size.
func textWidth(s string, size float64) int {
	if s == "" {
		return 0
	}
	return int(textStyle(size, vgdraw.XLeft, vgdraw.YTop).Width(s)) + 1
}

// tagAdvance is the advance in pixels of a character of the 7×13 bitmap face.
const tagAdvance = 7

// tag draws s in the bitmap face with its baseline at y, starting at x.
func (c *canvas) tag(x, y int, s string, col color.RGBA) {
	d := xfont.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: basicfont.Face7x13, Dot: fixed.P(c.origin.X+x, c.origin.Y+y)}
	d.DrawString(s)
}

// fill paints the rectangle r with colour col.
func (c *canvas) fill(r image.Rectangle, col color.RGBA) {
	r = r.Add(c.origin).Intersect(c.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		off := c.img.PixOffset(r.Min.X, y)
		for range r.Dx() {
			p := c.img.Pix[off : off+4 : off+4]
			p[0], p[1], p[2], p[3] = col.R, col.G, col.B, col.A
			off += 4
		}
	}
}

// frame draws a one-pixel border just outside r.
func (c *canvas) frame(r image.Rectangle, col color.RGBA) {
	c.fill(image.Rect(r.Min.X-1, r.Min.Y-1, r.Max.X+1, r.Min.Y), col)
	c.fill(image.Rect(r.Min.X-1, r.Max.Y, r.Max.X+1, r.Max.Y+1), col)
	c.fill(image.Rect(r.Min.X-1, r.Min.Y, r.Min.X, r.Max.Y), col)
	c.fill(image.Rect(r.Max.X, r.Min.Y, r.Max.X+1, r.Max.Y), col)
}

// blend paints colour col with opacity a (clamped to 1) over pixel (x, y),
// rounding each channel to the nearest level; the pixel becomes opaque.
func (c *canvas) blend(x, y int, col rgb, a float64) {
	x, y = x+c.origin.X, y+c.origin.Y
	if !(image.Point{x, y}.In(c.img.Rect)) || a <= 0 {
		return
	}
	a = min(a, 1)
	off := c.img.PixOffset(x, y)
	for ch := range 3 {
		old := float64(c.img.Pix[off+ch]) / 255
		c.img.Pix[off+ch] = uint8(math.Round(255 * (old*(1-a) + col[ch]*a)))
	}
	c.img.Pix[off+3] = 255
}

// line draws a one-pixel line from (x0, y0) to (x1, y1) in opaque col,
// sampling it at half-pixel steps and painting each pixel hit once.
func (c *canvas) line(x0, y0, x1, y1 float64, col rgb) {
	steps := int(math.Ceil(2*math.Max(math.Abs(x1-x0), math.Abs(y1-y0)))) + 1
	lastX, lastY := math.MinInt, math.MinInt
	for s := range steps + 1 {
		t := float64(s) / float64(steps)
		x := int(math.Floor(x0 + t*(x1-x0)))
		y := int(math.Floor(y0 + t*(y1-y0)))
		if x == lastX && y == lastY {
			continue
		}
		lastX, lastY = x, y
		c.blend(x, y, col, 1)
	}
}

// disc draws an anti-aliased disc of radius r (at least 0.8) centred on
// (x, y) with opacity 0.9; discs wider than 2.5 pixels get a one-pixel rim
// in colour rim.
func (c *canvas) disc(x, y, r float64, col, rim rgb) {
	r = max(r, 0.8)
	x0, x1 := int(math.Floor(x-r-1)), int(math.Ceil(x+r+1))
	y0, y1 := int(math.Floor(y-r-1)), int(math.Ceil(y+r+1))
	for py := y0; py <= y1; py++ {
		for px := x0; px <= x1; px++ {
			dist := math.Hypot(float64(px)+0.5-x, float64(py)+0.5-y)
			cover := r + 0.5 - dist
			if cover <= 0 {
				continue
			}
			k := col
			if r > 2.5 && dist > r-1 {
				k = rim
			}
			c.blend(px, py, k, 0.9*min(cover, 1))
		}
	}
}

// EncodePNG writes img to w as PNG at the default compression level: on
// these mostly flat-coloured pictures the best level saves only a few per
// cent of the bytes and takes several times as long.
func EncodePNG(w io.Writer, img image.Image) error {
	return png.Encode(w, img)
}
