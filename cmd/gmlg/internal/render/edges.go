package render

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gonum.org/v1/plot/vg/draw"
)

// EdgeMap draws a graph with its vertices at the points xy (x to the right,
// y up, scaled uniformly to fit) and each edge {i, j} = edges[e] as a
// straight line coloured by its weight w[e], with a colour scale under the
// drawing labelled with the smallest and largest finite weight. Heavier
// edges are drawn over lighter ones, and NaN or infinite weights in
// NaNColor. Of opt, Title, Colormap and Log apply as in HeatMaps; Size is
// the side in pixels of the drawing area (zero means 480).
func EdgeMap(xy [][2]float64, edges [][2]int, w []float64, opt *HeatMapOptions) (*image.RGBA, error) {
	if opt == nil {
		opt = &HeatMapOptions{}
	}
	if len(w) != len(edges) {
		return nil, fmt.Errorf("render: edge map: %d weights for %d edges", len(w), len(edges))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for e, ed := range edges {
		for _, i := range ed {
			if i < 0 || i >= len(xy) {
				return nil, fmt.Errorf("render: edge map: edge %d joins vertex %d, outside [0,%d)", e, i, len(xy))
			}
		}
		if v := w[e]; !math.IsNaN(v) && !math.IsInf(v, 0) && (!opt.Log || v > 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, p := range xy {
		if math.IsNaN(p[0]+p[1]) || math.IsInf(p[0]+p[1], 0) {
			return nil, fmt.Errorf("render: edge map: vertex %d at (%g, %g) is not finite", i, p[0], p[1])
		}
		x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
	}
	size := opt.Size
	if size <= 0 {
		size = 480
	}
	cm := opt.Colormap
	if cm == nil {
		cm = Viridis
	}
	scale := float64(size-1) / max(x1-x0, y1-y0, 1e-300)
	top := margin
	if opt.Title != "" {
		top += mainTitleH
	}
	c := newCanvas(size+2*margin, top+size+barGap+barW+titleH+margin)
	if opt.Title != "" {
		c.text(c.img.Rect.Dx()/2, margin+mainTitleH/2, opt.Title, titleSize, draw.XCenter, draw.YCenter)
	}
	at := func(v float64) float64 { // position of v on the colour scale
		if opt.Log {
			v, lo, hi := math.Log(v), math.Log(lo), math.Log(hi)
			return (v - lo) / max(hi-lo, 1e-300)
		}
		if hi == lo {
			return 0.5
		}
		return (v - lo) / (hi - lo)
	}
	order := make([]int, len(edges))
	for e := range order {
		order[e] = e
	}
	key := func(e int) float64 { // NaN colours last, over everything
		if t := at(w[e]); !math.IsNaN(t) && !math.IsInf(t, 0) {
			return t
		}
		return math.Inf(1)
	}
	sort.SliceStable(order, func(a, b int) bool { return key(order[a]) < key(order[b]) })
	px := func(p [2]float64) (float64, float64) {
		return float64(margin) + (p[0]-x0)*scale, float64(top+size-1) - (p[1]-y0)*scale
	}
	for _, e := range order {
		col := cm.At(at(w[e]))
		ax, ay := px(xy[edges[e][0]])
		bx, by := px(xy[edges[e][1]])
		steps := int(2*math.Hypot(bx-ax, by-ay)) + 1
		for s := 0; s <= steps; s++ {
			f := float64(s) / float64(steps)
			x, y := int(math.Round(ax+f*(bx-ax))), int(math.Round(ay+f*(by-ay)))
			c.fill(image.Rect(x-1, y-1, x+1, y+1), col)
		}
	}
	bar := image.Rect(margin, top+size+barGap, margin+size, top+size+barGap+barW)
	for x := bar.Min.X; x < bar.Max.X; x++ {
		c.fill(image.Rect(x, bar.Min.Y, x+1, bar.Max.Y), cm.At((float64(x-bar.Min.X)+0.5)/float64(bar.Dx())))
	}
	c.frame(bar, borderColor)
	if lo <= hi {
		c.text(bar.Min.X, bar.Max.Y+labelGap, fmt.Sprintf("min %.4g", lo), labelSize, draw.XLeft, draw.YTop)
		c.text(bar.Max.X, bar.Max.Y+labelGap, fmt.Sprintf("max %.4g", hi), labelSize, draw.XRight, draw.YTop)
	}
	return c.img, nil
}
