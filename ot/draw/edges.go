package draw

import (
	"cmp"
	"fmt"
	"image"
	"math"
	"sort"
)

// EdgeMap draws a graph with its vertices at the points xy (x to the right,
// y up, scaled uniformly to fit) and each edge {i, j} = edges[e] as a
// straight line coloured by its weight w[e], with a colour bar to the right
// labelled as the heat maps' are. Heavier edges are drawn over lighter
// ones, and NaN or infinite weights (and, with Log, weights ≤ 0) in
// NaNColor, on top. Of opt, Title, Colormap and Log apply as in HeatMaps;
// Size is the side in pixels of the drawing area (zero means 480).
func EdgeMap(xy [][2]float64, edges [][2]int, w []float64, opt *HeatMapOptions) (*image.RGBA, error) {
	opt = cmp.Or(opt, &HeatMapOptions{})
	if err := checkEdgeMap(xy, edges, w); err != nil {
		return nil, fmt.Errorf("draw: edge map: %w", err)
	}
	size := orSize(opt.Size, 480)
	cm := orViridis(opt.Colormap)
	colors := newColorScale(opt.Log, w)
	top := titleTop(opt.Title)
	area := image.Rect(margin, top, margin+size, top+size)
	bar := image.Rect(area.Max.X+barGap, top, area.Max.X+barGap+barW, top+size)
	width := max(bar.Max.X+labelGap+colors.labelWidth()+4+margin, textWidth(opt.Title, titleSize)+2*margin)
	c := newCanvas(width, area.Max.Y+margin)
	c.title(width, opt.Title)
	px := fitPoints(xy, area)
	for _, e := range edgeOrder(w, colors) {
		col := cm.At(colors.at(w[e]))
		a, b := px[edges[e][0]], px[edges[e][1]]
		steps := int(2*math.Hypot(b[0]-a[0], b[1]-a[1])) + 1
		for s := range steps + 1 {
			f := float64(s) / float64(steps)
			x, y := int(math.Round(a[0]+f*(b[0]-a[0]))), int(math.Round(a[1]+f*(b[1]-a[1])))
			c.fill(image.Rect(x-1, y-1, x+1, y+1), col)
		}
	}
	c.colorBar(bar, cm, colors)
	return c.img, nil
}

// checkEdgeMap checks that there is a weight per edge, that every edge
// joins two of the points and that the points are finite.
func checkEdgeMap(xy [][2]float64, edges [][2]int, w []float64) error {
	if len(w) != len(edges) {
		return fmt.Errorf("%d weights for %d edges", len(w), len(edges))
	}
	for e, ed := range edges {
		for _, i := range ed {
			if i < 0 || i >= len(xy) {
				return fmt.Errorf("edge %d joins vertex %d, outside [0,%d)", e, i, len(xy))
			}
		}
	}
	for i, p := range xy {
		if math.IsNaN(p[0]+p[1]) || math.IsInf(p[0]+p[1], 0) {
			return fmt.Errorf("vertex %d at (%g, %g) is not finite", i, p[0], p[1])
		}
	}
	return nil
}

// fitPoints returns the pixel positions of the points xy scaled uniformly
// into the square area, y pointing up: the bounding box's bottom-left
// corner goes to area's bottom-left pixel.
func fitPoints(xy [][2]float64, area image.Rectangle) [][2]float64 {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range xy {
		x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
	}
	scale := float64(area.Dx()-1) / max(x1-x0, y1-y0, 1e-300)
	out := make([][2]float64, len(xy))
	for i, p := range xy {
		out[i] = [2]float64{float64(area.Min.X) + (p[0]-x0)*scale, float64(area.Max.Y-1) - (p[1]-y0)*scale}
	}
	return out
}

// edgeOrder returns the edges in drawing order: by increasing position on
// the colour scale, those without a colour (NaNColor) last.
func edgeOrder(w []float64, colors colorScale) []int {
	key := func(e int) float64 {
		if t := colors.at(w[e]); !math.IsNaN(t) {
			return t
		}
		return math.Inf(1)
	}
	order := make([]int, len(w))
	for e := range order {
		order[e] = e
	}
	sort.SliceStable(order, func(a, b int) bool { return key(order[a]) < key(order[b]) })
	return order
}
