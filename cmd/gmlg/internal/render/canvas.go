package render

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/atomicfile"
)

// sansFont is the typeface of every label (gonum/plot's Liberation Sans).
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// canvas is a white RGBA picture on which we set pixels directly and draw
// text with gonum/plot's fonts. Coordinates are pixels, origin top-left.
type canvas struct {
	img *image.RGBA
	vc  *vgimg.Canvas
	dc  draw.Canvas
	h   int
}

func newCanvas(w, h int) *canvas {
	// At 72 dpi one vg point is one pixel.
	vc := vgimg.NewWith(vgimg.UseWH(vg.Length(w), vg.Length(h)), vgimg.UseDPI(72))
	return &canvas{img: vc.Image().(*image.RGBA), vc: vc, dc: draw.New(vc), h: h}
}

func textStyle(size float64, xa text.XAlignment, ya text.YAlignment) draw.TextStyle {
	_ = plot.DefaultFont // importing plot registers the Liberation fonts
	return draw.TextStyle{
		Color:   color.Black,
		Font:    font.From(sansFont, font.Length(size)),
		XAlign:  xa,
		YAlign:  ya,
		Handler: plot.DefaultTextHandler,
	}
}

// text draws s at pixel (x, y) with the given alignment.
func (c *canvas) text(x, y int, s string, size float64, xa text.XAlignment, ya text.YAlignment) {
	if s == "" {
		return
	}
	c.dc.FillText(textStyle(size, xa, ya), vg.Point{X: vg.Length(x), Y: vg.Length(c.h - y)}, s)
}

// textWidth returns the width in pixels of s at the given size.
func textWidth(s string, size float64) int {
	if s == "" {
		return 0
	}
	return int(textStyle(size, draw.XLeft, draw.YTop).Width(s)) + 1
}

// fill paints the rectangle r with colour col.
func (c *canvas) fill(r image.Rectangle, col color.RGBA) {
	r = r.Intersect(c.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := c.img.Pix[y*c.img.Stride:]
		for x := r.Min.X; x < r.Max.X; x++ {
			p := row[4*x : 4*x+4 : 4*x+4]
			p[0], p[1], p[2], p[3] = col.R, col.G, col.B, col.A
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

var borderColor = color.RGBA{0x60, 0x60, 0x60, 0xff}

// EncodePNG writes img as PNG to w.
func EncodePNG(w io.Writer, img image.Image) error {
	return png.Encode(w, img)
}

// SavePNG writes img as a PNG file at path, atomically.
func SavePNG(path string, img image.Image) error {
	if err := atomicfile.Write(path, 0, func(w io.Writer) error { return png.Encode(w, img) }); err != nil {
		return fmt.Errorf("render: save PNG: %w", err)
	}
	return nil
}
