package draw

import (
	"image/color"
	"math"
)

// NaNColor is used for NaN and infinite values: magenta, which no colour
// map here produces.
var NaNColor = color.RGBA{R: 255, G: 0, B: 255, A: 255}

// Colormap maps numbers in [0,1] to colours by linear interpolation, in
// sRGB, between evenly spaced stops.
type Colormap struct {
	name  string
	stops []color.RGBA
}

// Viridis approximates matplotlib's viridis colour map from its colours at
// 0, 1/8, ..., 1 (the nine-class viridis palette).
var Viridis = &Colormap{name: "viridis", stops: []color.RGBA{
	{0x44, 0x01, 0x54, 0xff},
	{0x47, 0x2d, 0x7b, 0xff},
	{0x3b, 0x52, 0x8b, 0xff},
	{0x2c, 0x72, 0x8e, 0xff},
	{0x21, 0x91, 0x8c, 0xff},
	{0x28, 0xae, 0x80, 0xff},
	{0x5e, 0xc9, 0x62, 0xff},
	{0xad, 0xdc, 0x30, 0xff},
	{0xfd, 0xe7, 0x25, 0xff},
}}

// Grey maps 0 to black and 1 to white.
var Grey = &Colormap{name: "grey", stops: []color.RGBA{{0, 0, 0, 0xff}, {0xff, 0xff, 0xff, 0xff}}}

// orViridis returns m, or Viridis if m is nil.
func orViridis(m *Colormap) *Colormap {
	if m == nil {
		return Viridis
	}
	return m
}

// At returns the colour of t. Values below 0 or above 1 are clamped; NaN
// and infinities give NaNColor.
func (m *Colormap) At(t float64) color.RGBA {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return NaNColor
	}
	t = min(max(t, 0), 1)
	x := t * float64(len(m.stops)-1)
	i := int(x)
	if i >= len(m.stops)-1 {
		return m.stops[len(m.stops)-1]
	}
	f := x - float64(i)
	a, b := m.stops[i], m.stops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + f*(float64(q)-float64(p)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}
