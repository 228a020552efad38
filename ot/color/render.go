package color

import (
	"fmt"
	"image"
	stdcolor "image/color"
	"image/draw"
	"math"
	"sort"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// RenderOptions configures RenderHistogram and RenderStrip. A nil pointer
// or zero fields mean the documented defaults.
type RenderOptions struct {
	// Size is the side of one square panel in pixels; zero means 320.
	Size int
	// Threshold is the smallest bin mass drawn; zero means 1/N (the mass
	// of a uniform histogram), negative means every non-zero bin.
	Threshold float64
	// Scale multiplies the disc radii; zero means 1. The largest bin gets
	// a disc of radius 0.07·Size·Scale and areas are proportional to mass.
	Scale float64
	// Title is drawn at the top of a single panel (RenderHistogram).
	Title string
}

// Fixed viewpoint (matplotlib's default 3-D view): azimuth −60°,
// elevation 30°, orthographic projection. R runs to the front right, G to
// the back right and B upwards.
const (
	viewAzimuth   = -60 * math.Pi / 180
	viewElevation = 30 * math.Pi / 180
)

type projector struct {
	right, up, toward [3]float64
	scale, cx, cy     float64
}

func newProjector(size int) projector {
	ca, sa := math.Cos(viewAzimuth), math.Sin(viewAzimuth)
	ce, se := math.Cos(viewElevation), math.Sin(viewElevation)
	p := projector{
		right:  [3]float64{-sa, ca, 0},
		up:     [3]float64{-se * ca, -se * sa, ce},
		toward: [3]float64{ce * ca, ce * sa, se},
	}
	// Fit the projected unit cube into the panel with a margin for the
	// title, the labels and the discs.
	var umax, wmax float64
	for c := range 8 {
		x := [3]float64{float64(c&1) - 0.5, float64(c>>1&1) - 0.5, float64(c>>2&1) - 0.5}
		umax = max(umax, math.Abs(dot(x, p.right)))
		wmax = max(wmax, math.Abs(dot(x, p.up)))
	}
	s := float64(size)
	p.scale = 0.36 * s / max(umax, wmax)
	p.cx, p.cy = 0.5*s, 0.53*s
	return p
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// project maps a colour-cube point (R,G,B) ∈ [0,1]³ to panel pixels and a
// depth (larger is closer to the viewer).
func (p projector) project(x [3]float64) (px, py, depth float64) {
	c := [3]float64{x[0] - 0.5, x[1] - 0.5, x[2] - 0.5}
	return p.cx + p.scale*dot(c, p.right), p.cy - p.scale*dot(c, p.up), dot(c, p.toward)
}

// RenderHistogram draws a colour histogram h (length n³, flat index
// R·n²+G·n+B) as a picture: every bin above the threshold is a disc at its
// bin centre, filled with that colour, with an area proportional to its
// mass, projected orthographically from a fixed viewpoint and painted from
// back to front over the edges of the colour cube. The output is
// deterministic.
func RenderHistogram(h []float64, n int, opt *RenderOptions) (*image.NRGBA, error) {
	var o RenderOptions
	if opt != nil {
		o = *opt
	}
	if o.Size == 0 {
		o.Size = 320
	}
	if o.Size < 32 || o.Size > 8192 {
		return nil, fmt.Errorf("color: render: size %d, want 32–8192", o.Size)
	}
	img := image.NewNRGBA(image.Rect(0, 0, o.Size, o.Size))
	draw.Draw(img, img.Bounds(), image.NewUniform(stdcolor.White), image.Point{}, draw.Src)
	if err := renderPanel(img, h, n, o); err != nil {
		return nil, err
	}
	return img, nil
}

// RenderStrip draws several histograms side by side, one RenderHistogram
// panel each, with titles[k] (if given) above panel k. All panels share the
// disc scale of the largest bin over all histograms, so masses compare
// across panels.
func RenderStrip(hs [][]float64, n int, titles []string, opt *RenderOptions) (*image.NRGBA, error) {
	if len(hs) == 0 {
		return nil, fmt.Errorf("color: render strip: no histograms")
	}
	if titles != nil && len(titles) != len(hs) {
		return nil, fmt.Errorf("color: render strip: %d titles for %d histograms", len(titles), len(hs))
	}
	var o RenderOptions
	if opt != nil {
		o = *opt
	}
	if o.Size == 0 {
		o.Size = 320
	}
	if o.Size < 32 || o.Size > 8192 || len(hs)*o.Size > 1<<15 {
		return nil, fmt.Errorf("color: render strip: %d panels of %d pixels, want size 32–8192 and a total width ≤ 32768", len(hs), o.Size)
	}
	var gmax float64
	for _, h := range hs {
		for _, v := range h {
			gmax = max(gmax, v)
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, len(hs)*o.Size, o.Size))
	draw.Draw(img, img.Bounds(), image.NewUniform(stdcolor.White), image.Point{}, draw.Src)
	for k, h := range hs {
		po := o
		po.Title = ""
		if titles != nil {
			po.Title = titles[k]
		}
		var hmax float64
		for _, v := range h {
			hmax = max(hmax, v)
		}
		if hmax > 0 && gmax > 0 {
			po.Scale = o.Scale
			if po.Scale == 0 {
				po.Scale = 1
			}
			po.Scale *= math.Sqrt(hmax / gmax)
		}
		sub := img.SubImage(image.Rect(k*o.Size, 0, (k+1)*o.Size, o.Size)).(*image.NRGBA)
		if err := renderPanel(sub, h, n, po); err != nil {
			return nil, fmt.Errorf("color: render strip: panel %d: %w", k, err)
		}
	}
	return img, nil
}

type disc struct {
	x, y, r, depth float64
	col            [3]float64
}

func renderPanel(img *image.NRGBA, h []float64, n int, o RenderOptions) error {
	if n < 1 || len(h) != n*n*n {
		return fmt.Errorf("color: render: len(h) = %d, want n³ with n = %d", len(h), n)
	}
	var hmax float64
	for i, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("color: render: h[%d] = %v, want finite and ≥ 0", i, v)
		}
		hmax = max(hmax, v)
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	thr := o.Threshold
	if thr == 0 {
		thr = 1 / float64(len(h))
	}
	size := img.Bounds().Dx()
	ox, oy := img.Bounds().Min.X, img.Bounds().Min.Y
	p := newProjector(size)

	// Cube edges (the three meeting at the hidden back corner (0,1,0) in a
	// lighter grey), then axis labels beside the front edges: R along the
	// bottom front edge, G along the bottom right edge and B along the left
	// vertical edge.
	for c := range 8 {
		for axis := range 3 {
			if c>>axis&1 == 1 {
				continue
			}
			a := [3]float64{float64(c & 1), float64(c >> 1 & 1), float64(c >> 2 & 1)}
			b := a
			b[axis] = 1
			col := [3]float64{0.7, 0.7, 0.7}
			if a == [3]float64{0, 1, 0} || b == [3]float64{0, 1, 0} {
				col = [3]float64{0.88, 0.88, 0.88}
			}
			x0, y0, _ := p.project(a)
			x1, y1, _ := p.project(b)
			drawLine(img, ox, oy, x0, y0, x1, y1, col)
		}
	}
	ccx, ccy, _ := p.project([3]float64{0.5, 0.5, 0.5})
	for _, l := range []struct {
		text string
		mid  [3]float64
	}{{"R", [3]float64{0.5, 0, 0}}, {"G", [3]float64{1, 0.5, 0}}, {"B", [3]float64{0, 0, 0.5}}} {
		x, y, _ := p.project(l.mid)
		dx, dy := x-ccx, y-ccy
		d := math.Hypot(dx, dy)
		x += 16 * dx / d
		y += 16 * dy / d
		drawText(img, ox+int(x)-3, oy+int(y)+5, l.text)
	}
	if o.Title != "" {
		drawText(img, ox+6, oy+16, o.Title)
	}
	if hmax == 0 {
		return nil
	}

	rmax := 0.07 * float64(size) * o.Scale
	discs := make([]disc, 0, len(h))
	for i, v := range h {
		if v < thr || v == 0 {
			continue
		}
		r, g, b := BinCentre(i, n)
		x, y, depth := p.project([3]float64{r, g, b})
		discs = append(discs, disc{x: x, y: y, r: rmax * math.Sqrt(v/hmax), depth: depth, col: [3]float64{r, g, b}})
	}
	// Painter's order: farthest first; ties broken by position so the
	// picture does not depend on the sort algorithm.
	sort.Slice(discs, func(a, b int) bool {
		da, db := discs[a], discs[b]
		if da.depth != db.depth {
			return da.depth < db.depth
		}
		if da.y != db.y {
			return da.y < db.y
		}
		return da.x < db.x
	})
	for _, d := range discs {
		fillDisc(img, ox, oy, d)
	}
	return nil
}

// blend paints colour c with opacity a over pixel (x,y) of img.
func blend(img *image.NRGBA, x, y int, c [3]float64, a float64) {
	if !(image.Point{x, y}.In(img.Bounds())) || a <= 0 {
		return
	}
	a = min(a, 1)
	off := img.PixOffset(x, y)
	for ch := range 3 {
		old := float64(img.Pix[off+ch]) / 255
		img.Pix[off+ch] = uint8(math.Round(255 * (old*(1-a) + c[ch]*a)))
	}
	img.Pix[off+3] = 255
}

// fillDisc draws an anti-aliased disc with a darker rim.
func fillDisc(img *image.NRGBA, ox, oy int, d disc) {
	r := max(d.r, 0.8)
	rim := [3]float64{0.55 * d.col[0], 0.55 * d.col[1], 0.55 * d.col[2]}
	x0, x1 := int(math.Floor(d.x-r-1)), int(math.Ceil(d.x+r+1))
	y0, y1 := int(math.Floor(d.y-r-1)), int(math.Ceil(d.y+r+1))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			dist := math.Hypot(float64(x)+0.5-d.x, float64(y)+0.5-d.y)
			cover := r + 0.5 - dist
			if cover <= 0 {
				continue
			}
			c := d.col
			if r > 2.5 && dist > r-1 {
				c = rim
			}
			blend(img, ox+x, oy+y, c, 0.9*min(cover, 1))
		}
	}
}

func drawLine(img *image.NRGBA, ox, oy int, x0, y0, x1, y1 float64, c [3]float64) {
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
		blend(img, ox+x, oy+y, c, 1)
	}
}

func drawText(img *image.NRGBA, x, y int, s string) {
	d := font.Drawer{
		Dst:  img,
		Src:  image.NewUniform(stdcolor.NRGBA{40, 40, 40, 255}),
		Face: basicfont.Face7x13,
		Dot:  fixed.P(x, y),
	}
	d.DrawString(s)
}
