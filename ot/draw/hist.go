package draw

import (
	"cmp"
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	otcolor "github.com/gmlg/gmlg/ot/color"
)

// HistogramOptions configures Histogram and HistogramStrip. A nil pointer
// or zero fields mean the documented defaults.
type HistogramOptions struct {
	// Size is the side of one square panel in pixels; zero means 320.
	Size int
	// Threshold is the smallest bin mass drawn; zero means 1/N (the mass
	// of a uniform histogram), negative means every non-zero bin.
	Threshold float64
	// Scale multiplies the disc radii; zero means 1. The largest bin gets
	// a disc of radius 0.07·Size·Scale and areas are proportional to mass.
	Scale float64
	// Title is drawn at the top of a single panel (Histogram).
	Title string
}

// Fixed viewpoint (matplotlib's default 3-D view): azimuth −60°,
// elevation 30°, orthographic projection. R runs to the front right, G to
// the back right and B upwards.
const (
	viewAzimuth   = -60 * math.Pi / 180
	viewElevation = 30 * math.Pi / 180
)

// projector maps the colour cube, seen from the fixed viewpoint, onto a square
// panel: right and up span the picture plane, toward points to the viewer.
type projector struct {
	right, up, toward [3]float64
	scale, cx, cy     float64
}

// newProjector returns the projector of a panel size pixels wide.
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

// Histogram draws a colour histogram h (n³ bins in the layout of package
// ot/color): every bin above the threshold is a disc at its bin centre,
// filled with that colour, with an area proportional to its mass, projected
// orthographically from a fixed viewpoint and painted from back to front
// over the edges of the colour cube. It is HistogramStrip of one panel.
func Histogram(h []float64, n int, opt *HistogramOptions) (*image.RGBA, error) {
	return HistogramStrip([][]float64{h}, n, []string{histDefaults(opt).Title}, opt)
}

// HistogramStrip draws several histograms side by side, one Histogram
// panel each, with titles[k] (if titles is not nil) above panel k. All
// panels share the disc scale of the largest bin over all histograms, so
// masses compare across panels; opt.Title is not used.
func HistogramStrip(hs [][]float64, n int, titles []string, opt *HistogramOptions) (*image.RGBA, error) {
	if len(hs) == 0 {
		return nil, fmt.Errorf("draw: histogram strip: no histograms")
	}
	if titles != nil && len(titles) != len(hs) {
		return nil, fmt.Errorf("draw: histogram strip: %d titles for %d histograms", len(titles), len(hs))
	}
	o := histDefaults(opt)
	if o.Size < 32 || o.Size > 8192 || len(hs)*o.Size > 1<<15 {
		return nil, fmt.Errorf("draw: histogram strip: %d panels of %d pixels, want size 32–8192 and a total width ≤ 32768", len(hs), o.Size)
	}
	var gmax float64
	for _, h := range hs {
		gmax = max(gmax, maxOf(h))
	}
	c := newCanvas(len(hs)*o.Size, o.Size)
	for k, h := range hs {
		po := o
		po.Title = ""
		if titles != nil {
			po.Title = titles[k]
		}
		if hmax := maxOf(h); hmax > 0 && gmax > 0 {
			po.Scale *= math.Sqrt(hmax / gmax)
		}
		// The panel: a sub-canvas with its origin at its corner, clipped to it.
		r := image.Rect(k*o.Size, 0, (k+1)*o.Size, o.Size).Add(c.origin)
		panel := &canvas{img: c.img.SubImage(r).(*image.RGBA), origin: r.Min}
		if err := histPanel(panel, h, n, po); err != nil {
			return nil, fmt.Errorf("draw: histogram strip: panel %d: %w", k, err)
		}
	}
	return c.img, nil
}

// histDefaults returns *opt (or the zero options) with the defaults of Size
// and Scale filled in.
func histDefaults(opt *HistogramOptions) HistogramOptions {
	o := *cmp.Or(opt, &HistogramOptions{})
	o.Size = cmp.Or(o.Size, 320)
	o.Scale = cmp.Or(o.Scale, 1)
	return o
}

// maxOf returns the largest element of x, or 0 if none is larger.
func maxOf(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// disc is one bin's disc in panel pixels.
type disc struct {
	x, y, r, depth float64
	col            rgb
}

// Colours of the cube's edges and of the bitmap text of histograms.
var (
	cubeEdge   = rgb{0.7, 0.7, 0.7}
	hiddenEdge = rgb{0.88, 0.88, 0.88}
	histInk    = color.RGBA{40, 40, 40, 255}
)

// histPanel draws one histogram on a square canvas, whose side is the size.
func histPanel(c *canvas, h []float64, n int, o HistogramOptions) error {
	if n < 1 || len(h) != n*n*n {
		return fmt.Errorf("len(h) = %d, want n³ with n = %d", len(h), n)
	}
	for i, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("h[%d] = %v, want finite and ≥ 0", i, v)
		}
	}
	size := c.img.Rect.Dx()
	p := newProjector(size)
	drawCube(c, p)
	if o.Title != "" {
		c.tag(6, 16, o.Title, histInk)
	}
	hmax := maxOf(h)
	if hmax == 0 {
		return nil
	}
	thr := cmp.Or(o.Threshold, 1/float64(len(h)))
	rmax := 0.07 * float64(size) * o.Scale
	discs := make([]disc, 0, len(h))
	for i, v := range h {
		if v < thr || v == 0 {
			continue
		}
		r, g, b := otcolor.BinCentre(i, n)
		x, y, depth := p.project([3]float64{r, g, b})
		discs = append(discs, disc{x: x, y: y, r: rmax * math.Sqrt(v/hmax), depth: depth, col: rgb{r, g, b}})
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
		rim := rgb{0.55 * d.col[0], 0.55 * d.col[1], 0.55 * d.col[2]}
		c.disc(d.x, d.y, d.r, d.col, rim)
	}
	return nil
}

// drawCube draws the edges of the colour cube, those meeting at the hidden
// corner (0,1,0) lighter, and the labels R, G and B beside the bottom front,
// bottom right and left vertical edges.
func drawCube(c *canvas, p projector) {
	back := [3]float64{0, 1, 0}
	for k := range 8 {
		for axis := range 3 {
			if k>>axis&1 == 1 {
				continue
			}
			a := [3]float64{float64(k & 1), float64(k >> 1 & 1), float64(k >> 2 & 1)}
			b := a
			b[axis] = 1
			col := cubeEdge
			if a == back || b == back {
				col = hiddenEdge
			}
			x0, y0, _ := p.project(a)
			x1, y1, _ := p.project(b)
			c.line(x0, y0, x1, y1, col)
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
		c.tag(int(x)-3, int(y)+5, l.text, histInk)
	}
}
