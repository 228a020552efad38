package draw

import (
	"fmt"
	"image"
	"math"

	vgdraw "gonum.org/v1/plot/vg/draw"
)

// colorScale maps values to positions in [0,1] along a colour map:
// linearly from the smallest to the largest finite value, or, with log,
// linearly in the logarithm from the smallest to the largest positive
// finite value. It also holds the labels of its colour bar.
type colorScale struct {
	lo, hi     float64 // range of the values that count; 0, 0 if none does
	log        bool
	base, span float64 // position t = (x − base)/span, x = v or log v
	// minLab, midLab and maxLab label the bottom, middle and top of the
	// colour bar; the middle is the geometric one on a logarithmic scale.
	minLab, midLab, maxLab string
}

// newColorScale returns the scale of the values in data.
func newColorScale(log bool, data ...[]float64) colorScale {
	s := colorScale{lo: math.Inf(1), hi: math.Inf(-1), log: log}
	for _, d := range data {
		for _, v := range d {
			if !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0) {
				s.lo, s.hi = min(s.lo, v), max(s.hi, v)
			}
		}
	}
	if s.lo > s.hi { // no value counts
		s.lo, s.hi = 0, 0
		s.minLab = "no finite value"
		return s
	}
	s.base, s.span = s.lo, s.hi-s.lo
	if log {
		s.base, s.span = math.Log(s.lo), math.Log(s.hi)-math.Log(s.lo)
	}
	s.minLab, s.maxLab = fmt.Sprintf("min %.4g", s.lo), fmt.Sprintf("max %.4g", s.hi)
	if s.hi > s.lo {
		mid := s.lo + (s.hi-s.lo)/2
		if log {
			mid = math.Sqrt(s.lo) * math.Sqrt(s.hi)
		}
		s.midLab = fmt.Sprintf("%.4g", mid)
	}
	return s
}

// at returns the position of v: 0.5 on a scale of one value, NaN for NaN
// and infinite values and, on a logarithmic scale, for values ≤ 0.
func (s colorScale) at(v float64) float64 {
	x := v
	if s.log {
		x = math.Log(v) // NaN for v < 0, −Inf for 0
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN()
	}
	if s.span > 0 {
		return (x - s.base) / s.span
	}
	return 0.5
}

// labelWidth is the width in pixels of the widest colour-bar label.
func (s colorScale) labelWidth() int {
	return max(textWidth(s.minLab, labelSize), textWidth(s.maxLab, labelSize), textWidth(s.midLab, labelSize))
}

// colorBar draws the colour bar of s in cm into b, maximum at the top, with
// ticks and labels at its top, middle and bottom right of it.
func (c *canvas) colorBar(b image.Rectangle, cm *Colormap, s colorScale) {
	for y := b.Min.Y; y < b.Max.Y; y++ {
		t := 1 - (float64(y-b.Min.Y)+0.5)/float64(b.Dy())
		c.fill(image.Rect(b.Min.X, y, b.Max.X, y+1), cm.At(t))
	}
	c.frame(b, borderColor)
	lx := b.Max.X + labelGap + 4
	c.text(lx, b.Min.Y, s.maxLab, labelSize, vgdraw.XLeft, vgdraw.YTop)
	c.text(lx, b.Max.Y, s.minLab, labelSize, vgdraw.XLeft, vgdraw.YBottom)
	mid := b.Min.Y + b.Dy()/2
	for _, y := range []int{b.Min.Y, mid, b.Max.Y - 1} {
		c.fill(image.Rect(b.Max.X+1, y, b.Max.X+4, y+1), borderColor)
	}
	c.text(lx, mid, s.midLab, labelSize, vgdraw.XLeft, vgdraw.YCenter)
}
