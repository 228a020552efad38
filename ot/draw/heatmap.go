package draw

import (
	"cmp"
	"errors"
	"fmt"
	"image"
	"math"

	vgdraw "gonum.org/v1/plot/vg/draw"
)

// Field is a 2-D array of values in row-major order: element (r, c) is
// Data[r*Cols+c]. Row 0 is drawn at the top.
type Field struct {
	Rows, Cols int
	Data       []float64
}

func (f Field) check() error {
	if f.Rows <= 0 || f.Cols <= 0 {
		return fmt.Errorf("field of %d×%d cells is empty", f.Rows, f.Cols)
	}
	if len(f.Data) != f.Rows*f.Cols {
		return fmt.Errorf("field of %d×%d cells has %d values", f.Rows, f.Cols, len(f.Data))
	}
	return nil
}

// Panel is one titled heat map with its own colour scale.
type Panel struct {
	// Title is drawn above the map.
	Title string
	// Slices holds one field for a 2-D map, or several fields of the same
	// size (slices of a 3-D field) drawn row by row in a near-square grid,
	// sharing the colour scale.
	Slices []Field
	// Caption, if set, is drawn in small type under the map.
	Caption string
}

// HeatMapOptions controls HeatMaps; the zero value (or nil) is the default.
type HeatMapOptions struct {
	// Title, if set, is drawn above all panels.
	Title string
	// Colormap colours the values. Nil means Viridis.
	Colormap *Colormap
	// Size is the approximate side in pixels of each panel's map; cells are
	// scaled by a whole number of pixels, at least one. Zero means 320.
	Size int
	// Log colours by the logarithm of the values, for data spanning
	// decades. The scale then runs from the smallest positive finite value
	// to the largest; values ≤ 0 are drawn in NaNColor.
	Log bool
}

// Layout constants of heat maps, in pixels.
const (
	margin     = 12
	titleSize  = 14.0
	labelSize  = 11.0
	titleH     = 22
	captionH   = 18
	panelGap   = 28
	barW       = 16
	barGap     = 8
	labelGap   = 4
	sliceGap   = 2
	mainTitleH = 26
)

// panelLayout is where the pieces of one panel go.
type panelLayout struct {
	p             Panel
	colors        colorScale
	scale         int // pixels per cell
	gridCols      int // slices per row
	mapRect       image.Rectangle
	barRect       image.Rectangle
	width, height int
}

// sliceRect returns the rectangle of slice k of the panel.
func (l *panelLayout) sliceRect(k int) image.Rectangle {
	f := l.p.Slices[k]
	w, h := f.Cols*l.scale, f.Rows*l.scale
	x := l.mapRect.Min.X + (k%l.gridCols)*(w+sliceGap)
	y := l.mapRect.Min.Y + (k/l.gridCols)*(h+sliceGap)
	return image.Rect(x, y, x+w, y+h)
}

// heatLayout sizes every panel and places them side by side.
func heatLayout(panels []Panel, opt *HeatMapOptions) ([]*panelLayout, image.Rectangle, error) {
	if len(panels) == 0 {
		return nil, image.Rectangle{}, errors.New("no panels")
	}
	size := orSize(opt.Size, 320)
	top := titleTop(opt.Title)
	x := margin
	maxH := 0
	var out []*panelLayout
	for i, p := range panels {
		if len(p.Slices) == 0 {
			return nil, image.Rectangle{}, fmt.Errorf("panel %d (%q) has no field", i, p.Title)
		}
		first := p.Slices[0]
		data := make([][]float64, len(p.Slices))
		for k, f := range p.Slices {
			data[k] = f.Data
			if err := f.check(); err != nil {
				return nil, image.Rectangle{}, fmt.Errorf("panel %d (%q) slice %d: %w", i, p.Title, k, err)
			}
			if f.Rows != first.Rows || f.Cols != first.Cols {
				return nil, image.Rectangle{}, fmt.Errorf("panel %d (%q): slice %d is %d×%d but slice 0 is %d×%d",
					i, p.Title, k, f.Rows, f.Cols, first.Rows, first.Cols)
			}
		}
		l := &panelLayout{p: p}
		n := len(p.Slices)
		l.gridCols = int(math.Ceil(math.Sqrt(float64(n))))
		gridRows := (n + l.gridCols - 1) / l.gridCols
		l.scale = max(1, size/max(l.gridCols*first.Cols, gridRows*first.Rows))
		mapW := l.gridCols*first.Cols*l.scale + (l.gridCols-1)*sliceGap
		mapH := gridRows*first.Rows*l.scale + (gridRows-1)*sliceGap
		l.colors = newColorScale(opt.Log, data...)
		labW := l.colors.labelWidth() + 4
		l.width = max(mapW+barGap+barW+labelGap+labW, textWidth(p.Title, titleSize), textWidth(p.Caption, labelSize))
		l.height = titleH + mapH
		if p.Caption != "" {
			l.height += captionH
		}
		l.mapRect = image.Rect(x, top+titleH, x+mapW, top+titleH+mapH)
		l.barRect = image.Rect(l.mapRect.Max.X+barGap, l.mapRect.Min.Y, l.mapRect.Max.X+barGap+barW, l.mapRect.Max.Y)
		x += l.width + panelGap
		maxH = max(maxH, l.height)
		out = append(out, l)
	}
	w := max(x-panelGap+margin, textWidth(opt.Title, titleSize)+2*margin)
	return out, image.Rect(0, 0, w, top+maxH+margin), nil
}

// HeatMaps draws the panels side by side, each with a colour bar labelled
// with its minimum (bottom), middle and maximum (top) finite value (the
// geometric middle with Options.Log). A constant panel is drawn in the
// middle colour of the map.
func HeatMaps(panels []Panel, opt *HeatMapOptions) (*image.RGBA, error) {
	opt = cmp.Or(opt, &HeatMapOptions{})
	cm := orViridis(opt.Colormap)
	layout, bounds, err := heatLayout(panels, opt)
	if err != nil {
		return nil, fmt.Errorf("draw: heat map: %w", err)
	}
	c := newCanvas(bounds.Dx(), bounds.Dy())
	c.title(bounds.Dx(), opt.Title)
	for _, l := range layout {
		for k, f := range l.p.Slices {
			r := l.sliceRect(k)
			for i := range f.Rows {
				for j := range f.Cols {
					x0, y0 := r.Min.X+j*l.scale, r.Min.Y+i*l.scale
					c.fill(image.Rect(x0, y0, x0+l.scale, y0+l.scale), cm.At(l.colors.at(f.Data[i*f.Cols+j])))
				}
			}
			if len(l.p.Slices) == 1 {
				c.frame(r, borderColor)
			}
		}
		c.colorBar(l.barRect, cm, l.colors)
		c.text(l.mapRect.Min.X+l.mapRect.Dx()/2, l.mapRect.Min.Y-titleH/2, l.p.Title, titleSize, vgdraw.XCenter, vgdraw.YCenter)
		if l.p.Caption != "" {
			c.text(l.mapRect.Min.X, l.mapRect.Max.Y+captionH/2+1, l.p.Caption, labelSize, vgdraw.XLeft, vgdraw.YCenter)
		}
	}
	return c.img, nil
}

// MetricPanels returns the heat-map panels of a metric stored in the
// reference's [d,N] layout (docs/method.md, "Grid and vertex order"):
// metric[p*N+i] is the value of axis p at vertex i, N = n^d, vertices in C
// order.
//
// In 2-D the panels are "Horizontal" (row 0, the column axis) and
// "Vertical" (row 1), each an n×n map. In 3-D (vertices [R,G,B]) they are
// "R" (row 2), "G" (row 1) and "B" (row 0), each shown as n slices
// R = 0..n-1 of n×n [G,B] images (G down, B across).
func MetricPanels(metric []float64, d, n int) ([]Panel, error) {
	if (d != 2 && d != 3) || n < 1 {
		return nil, fmt.Errorf("draw: metric panels: need d = 2 or 3 and n ≥ 1, got d = %d, n = %d", d, n)
	}
	N := n * n
	if d == 3 {
		N *= n
	}
	if len(metric) != d*N {
		return nil, fmt.Errorf("draw: metric panels: metric has %d values, want d·n^d = %d", len(metric), d*N)
	}
	row := func(p int) []float64 { return metric[p*N : (p+1)*N] }
	if d == 2 {
		return []Panel{
			{Title: "Horizontal", Slices: []Field{{Rows: n, Cols: n, Data: row(0)}}},
			{Title: "Vertical", Slices: []Field{{Rows: n, Cols: n, Data: row(1)}}},
		}, nil
	}
	var panels []Panel
	for i, name := range []string{"R", "G", "B"} {
		p := 2 - i
		sl := make([]Field, n)
		for k := range n {
			sl[k] = Field{Rows: n, Cols: n, Data: row(p)[k*n*n : (k+1)*n*n]}
		}
		panels = append(panels, Panel{
			Title:   fmt.Sprintf("%s axis (metric row %d)", name, p),
			Slices:  sl,
			Caption: fmt.Sprintf("slices R = 0..%d left to right, then down; in each, G down and B across", n-1),
		})
	}
	return panels, nil
}
