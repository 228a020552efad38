package draw

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var outDir = flag.String("draw.out", "", "also write the test pictures as PNG files to this folder, to look at them")

// save writes img to -draw.out when set.
func save(t *testing.T, name string, img image.Image) {
	t.Helper()
	if *outDir == "" {
		return
	}
	var buf bytes.Buffer
	if err := EncodePNG(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*outDir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// analyticMetric returns a [2,n²] metric resembling the reference's ground
// truth (docs/method.md, "Synthetic data"): low values along two rotated
// Gaussian ridges.
func analyticMetric(n int) []float64 {
	m := make([]float64, 2*n*n)
	for p := range 2 {
		th := math.Pi / 4
		if p == 1 {
			th = -th
		}
		for r := range n {
			for c := range n {
				x := -3 + 6*float64(c)/float64(n-1)
				y := -3 + 6*float64(r)/float64(n-1)
				u := math.Cos(th)*x + math.Sin(th)*y
				v := -math.Sin(th)*x + math.Cos(th)*y
				g := math.Exp(-u*u/(2*0.6) - v*v/(2*6))
				m[p*n*n+r*n+c] = 1 - 0.999*g
			}
		}
	}
	return m
}

// luminance is a rough perceived brightness.
func luminance(c color.RGBA) float64 {
	return 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
}

// nearestT inverts a colour map by searching 1024 samples.
func nearestT(cm *Colormap, c color.RGBA) float64 {
	best, bestD := 0.0, math.Inf(1)
	for k := 0; k <= 1023; k++ {
		t := float64(k) / 1023
		q := cm.At(t)
		d := sq(float64(q.R)-float64(c.R)) + sq(float64(q.G)-float64(c.G)) + sq(float64(q.B)-float64(c.B))
		if d < bestD {
			best, bestD = t, d
		}
	}
	return best
}

func sq(x float64) float64 { return x * x }

func TestColormap(t *testing.T) {
	t.Parallel()
	for _, cm := range []*Colormap{Viridis, Grey} {
		if cm.At(-3) != cm.At(0) || cm.At(7) != cm.At(1) {
			t.Errorf("%s: no clamping", cm.name)
		}
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			if cm.At(v) != NaNColor {
				t.Errorf("%s: At(%v) = %v, want NaNColor", cm.name, v, cm.At(v))
			}
		}
		// Perceptual maps get brighter monotonically.
		prev := -1.0
		for k := range 256 {
			l := luminance(cm.At(float64(k) / 255))
			if l < prev-1e-9 {
				t.Errorf("%s: luminance drops at %d/255: %v < %v", cm.name, k, l, prev)
			}
			prev = l
		}
	}
	if got := Viridis.At(0); got != (color.RGBA{0x44, 0x01, 0x54, 0xff}) {
		t.Errorf("viridis(0) = %v", got)
	}
	if got := Viridis.At(0.5); got != (color.RGBA{0x21, 0x91, 0x8c, 0xff}) {
		t.Errorf("viridis(0.5) = %v", got)
	}
	if got := Grey.At(128.0 / 255); got != (color.RGBA{128, 128, 128, 255}) {
		t.Errorf("grey(128/255) = %v", got)
	}
}

func TestHeatMapsPixels(t *testing.T) {
	t.Parallel()
	// A 5×6 field with values 0..29 plus one NaN cell.
	f := Field{Rows: 5, Cols: 6, Data: make([]float64, 30)}
	for i := range f.Data {
		f.Data[i] = float64(i)
	}
	f.Data[7] = math.NaN()
	flat := Field{Rows: 3, Cols: 3, Data: []float64{2, 2, 2, 2, 2, 2, 2, 2, 2}}
	panels := []Panel{{Title: "ramp", Slices: []Field{f}}, {Title: "flat", Slices: []Field{flat}, Caption: "constant"}}
	opt := &HeatMapOptions{Title: "test", Size: 120}
	img, err := HeatMaps(panels, opt)
	if err != nil {
		t.Fatal(err)
	}
	save(t, "heatmaps-test.png", img)
	layout, bounds, err := heatLayout(panels, opt)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != bounds {
		t.Fatalf("bounds %v, layout %v", img.Bounds(), bounds)
	}
	l := layout[0]
	if l.scale != 20 || l.colors.lo != 0 || l.colors.hi != 29 {
		t.Fatalf("scale %d, range [%v, %v]; want 20, [0, 29]", l.scale, l.colors.lo, l.colors.hi)
	}
	// Every cell has the colour of its value.
	r := l.sliceRect(0)
	for i := range f.Rows {
		for j := range f.Cols {
			got := img.RGBAAt(r.Min.X+j*l.scale+l.scale/2, r.Min.Y+i*l.scale+l.scale/2)
			want := Viridis.At(f.Data[i*6+j] / 29)
			if got != want {
				t.Errorf("cell (%d,%d): %v, want %v", i, j, got, want)
			}
		}
	}
	// Cells differ where values differ.
	if img.RGBAAt(r.Min.X+1, r.Min.Y+1) == img.RGBAAt(r.Max.X-2, r.Max.Y-2) {
		t.Error("first and last cells have the same colour")
	}
	// The colour bar runs monotonically from the maximum (top) to the minimum.
	b := l.barRect
	prev := 2.0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		tt := nearestT(Viridis, img.RGBAAt(b.Min.X+barW/2, y))
		if tt > prev+1e-9 {
			t.Fatalf("colour bar not monotone at row %d: %v after %v", y-b.Min.Y, tt, prev)
		}
		prev = tt
	}
	if top := nearestT(Viridis, img.RGBAAt(b.Min.X+barW/2, b.Min.Y)); top < 0.98 {
		t.Errorf("bar top at t = %v", top)
	}
	if prev > 0.02 {
		t.Errorf("bar bottom at t = %v", prev)
	}
	// The labels left ink right of the bar.
	if !hasInk(img, image.Rect(b.Max.X+6, b.Min.Y, b.Max.X+60, b.Min.Y+12)) ||
		!hasInk(img, image.Rect(b.Max.X+6, b.Max.Y-12, b.Max.X+60, b.Max.Y)) {
		t.Error("no min/max label next to the colour bar")
	}
	// A constant panel is drawn in the middle colour.
	r2 := layout[1].sliceRect(0)
	if got := img.RGBAAt(r2.Min.X+5, r2.Min.Y+5); got != Viridis.At(0.5) {
		t.Errorf("constant panel colour %v, want %v", got, Viridis.At(0.5))
	}
	// Deterministic.
	again, _ := HeatMaps(panels, opt)
	if string(again.Pix) != string(img.Pix) {
		t.Error("two renderings differ")
	}
}

// hasInk reports whether r contains a pixel darker than light grey.
func hasInk(img *image.RGBA, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if luminance(img.RGBAAt(x, y)) < 160 {
				return true
			}
		}
	}
	return false
}

func TestHeatMapsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		panels []Panel
		want   string
	}{
		{"none", nil, "no panels"},
		{"no field", []Panel{{Title: "x"}}, "has no field"},
		{"short data", []Panel{{Slices: []Field{{Rows: 2, Cols: 2, Data: []float64{1}}}}}, "has 1 values"},
		{"empty", []Panel{{Slices: []Field{{Rows: 0, Cols: 2}}}}, "is empty"},
		{"mixed slices", []Panel{{Slices: []Field{{1, 1, []float64{1}}, {1, 2, []float64{1, 2}}}}}, "slice 1 is 1×2"},
	}
	for _, tc := range tests {
		_, err := HeatMaps(tc.panels, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "draw: ") {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestMetricPanels(t *testing.T) {
	t.Parallel()
	n := 4
	m := make([]float64, 2*n*n)
	for i := range m {
		m[i] = float64(i)
	}
	ps, err := MetricPanels(m, 2, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Title != "Horizontal" || ps[1].Title != "Vertical" ||
		ps[0].Slices[0].Data[5] != 5 || ps[1].Slices[0].Data[0] != 16 || ps[1].Slices[0].Rows != n {
		t.Errorf("2-D panels = %+v", ps)
	}
	m3 := make([]float64, 3*n*n*n)
	for i := range m3 {
		m3[i] = float64(i)
	}
	ps, err = MetricPanels(m3, 3, n)
	if err != nil {
		t.Fatal(err)
	}
	// Panel R shows row 2; its slice k is R = k: values 2·64 + k·16 + (G·4 + B).
	if len(ps) != 3 || !strings.HasPrefix(ps[0].Title, "R") || !strings.HasPrefix(ps[2].Title, "B") || len(ps[0].Slices) != n {
		t.Fatalf("3-D panels: %d, %q", len(ps), ps[0].Title)
	}
	if got := ps[0].Slices[3].Data[1*4+2]; got != 2*64+3*16+6 {
		t.Errorf("R panel slice 3 [G=1,B=2] = %v", got)
	}
	if got := ps[2].Slices[0].Data[0]; got != 0 {
		t.Errorf("B panel starts at %v", got)
	}
	img, err := HeatMaps(ps, nil)
	if err != nil {
		t.Fatal(err)
	}
	save(t, "metric-3d.png", img)
	if _, err := MetricPanels(m, 2, 5); err == nil {
		t.Error("wrong length: no error")
	}
	if _, err := MetricPanels(m, 4, 2); err == nil {
		t.Error("d = 4: no error")
	}
	ps, _ = MetricPanels(analyticMetric(50), 2, 50)
	img, err = HeatMaps(ps, &HeatMapOptions{Title: "a-metric (iteration 20)"})
	if err != nil {
		t.Fatal(err)
	}
	save(t, "metric-2d.png", img)
}

func TestStrip(t *testing.T) {
	t.Parallel()
	mk := func(n int, f func(r, c int) float64) Field {
		d := make([]float64, n*n)
		for i := range d {
			d[i] = f(i/n, i%n)
		}
		return Field{Rows: n, Cols: n, Data: d}
	}
	a := mk(8, func(r, c int) float64 { return float64(r*8 + c) })
	b := mk(8, func(r, c int) float64 { return 1e-9 * float64(c) }) // scaled to its own max
	zero := mk(8, func(r, c int) float64 { return 0 })
	rows := [][]Field{{a, b, a}, {b, {}, zero}}
	opt := &StripOptions{Colormap: Grey, Size: 32, RowLabels: []string{"observed", "reconstructed"}, ColLabels: []string{"t=0", "t=0.5", "t=1"}}
	img, err := Strip(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	save(t, "strip-test.png", img)
	l, err := layoutStrip(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, s := l.cell(0, 0, a); img.Bounds() != l.bounds || s != 4 {
		t.Fatalf("bounds %v vs %v, scale %d", img.Bounds(), l.bounds, s)
	}
	check := func(i, j int, f Field) {
		t.Helper()
		mx := 0.0
		for _, v := range f.Data {
			mx = max(mx, v)
		}
		r, s := l.cell(i, j, f)
		for y := range f.Rows {
			for x := range f.Cols {
				want := uint8(0)
				if mx > 0 {
					want = uint8(f.Data[y*f.Cols+x] / mx * 255) // the reference's quantisation
				}
				got := img.RGBAAt(r.Min.X+x*s+1, r.Min.Y+y*s+1)
				if got.R != want || got.G != want || got.B != want {
					t.Fatalf("frame (%d,%d) pixel (%d,%d) = %v, want grey %d", i, j, y, x, got, want)
				}
			}
		}
	}
	check(0, 0, a)
	check(0, 1, b)
	check(1, 0, b)
	check(1, 2, zero)
	if r, _ := l.cell(1, 1, b); hasInk(img, r) {
		t.Error("the absent frame is drawn")
	}
	if !hasInk(img, image.Rect(margin, l.top, l.left, l.top+l.cellH)) {
		t.Error("no row label")
	}
	// Viridis by default, and a larger, readable version for -draw.out.
	if _, err := Strip(rows, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Strip(nil, nil); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("no rows: err = %v", err)
	}
	if _, err := Strip([][]Field{{{}}}, nil); err == nil || !strings.Contains(err.Error(), "no frames") {
		t.Errorf("no frames: err = %v", err)
	}
	if _, err := Strip([][]Field{{{Rows: 2, Cols: 2, Data: []float64{1}}}}, nil); err == nil {
		t.Error("bad field: no error")
	}
}

func TestLossPlot(t *testing.T) {
	t.Parallel()
	loss := make([]float64, 120)
	for k := range loss {
		loss[k] = 0.4 + 9*math.Exp(-float64(k)/20)
	}
	loss[50] = math.NaN()
	img, err := LossPlot(loss, &LossOptions{Title: "loss"})
	if err != nil {
		t.Fatal(err)
	}
	save(t, "loss.png", img)
	if img.Bounds() != image.Rect(0, 0, 960, 400) {
		t.Errorf("bounds %v", img.Bounds())
	}
	w := img.Bounds().Dx()
	left := countColor(img, image.Rect(0, 0, w/2, 400), lossColor)
	right := countColor(img, image.Rect(w/2, 0, w, 400), lossColor)
	if left < 100 || right < 100 {
		t.Errorf("curve pixels: %d left, %d right", left, right)
	}
	again, _ := LossPlot(loss, &LossOptions{Title: "loss"})
	if string(again.Pix) != string(img.Pix) {
		t.Error("two renderings differ")
	}
	// Negative losses: only the linear panel has a curve.
	neg := []float64{-1, -2, -3}
	img, err = LossPlot(neg, &LossOptions{Width: 400, Height: 300})
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 400 || countColor(img, img.Bounds(), lossColor) == 0 {
		t.Error("negative losses not drawn")
	}
	if _, err := LossPlot(loss[:1], nil); err != nil {
		t.Errorf("single value: %v", err)
	}
	if _, err := LossPlot([]float64{math.NaN()}, nil); err == nil {
		t.Error("all NaN: no error")
	}
	if _, err := LossPlot(nil, nil); err == nil {
		t.Error("empty: no error")
	}
}

func countColor(img *image.RGBA, r image.Rectangle, c color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == c {
				n++
			}
		}
	}
	return n
}

func TestLogTicks(t *testing.T) {
	t.Parallel()
	var labels []string
	for _, tk := range (logTicks{}).Ticks(0.3, 12) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0.5 1 2 5 10" {
		t.Errorf("labels %q", got)
	}
	labels = nil
	for _, tk := range (logTicks{}).Ticks(1e-3, 1e3) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0.001 0.01 0.1 1 10 100 1000" {
		t.Errorf("wide labels %q", got)
	}
}

// TestEncodePNGRoundTrip draws a strip, encodes it as PNG, decodes it and
// checks the size, a frame's grey levels, the border and the background.
func TestEncodePNGRoundTrip(t *testing.T) {
	t.Parallel()
	f := Field{Rows: 2, Cols: 2, Data: []float64{0, 1, 2, 4}}
	opt := &StripOptions{Colormap: Grey, Size: 8}
	img, err := Strip([][]Field{{f}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodePNG(&buf, img); err != nil {
		t.Fatal(err)
	}
	back, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layoutStrip([][]Field{{f}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if back.Bounds() != l.bounds || back.Bounds() != img.Bounds() {
		t.Fatalf("decoded bounds %v, want %v", back.Bounds(), l.bounds)
	}
	r, s := l.cell(0, 0, f)
	for _, tc := range []struct {
		name string
		at   image.Point
		want color.RGBA
	}{
		{"cell (0,0)", r.Min, color.RGBA{0, 0, 0, 255}},
		{"cell (0,1)", r.Min.Add(image.Pt(s, 0)), color.RGBA{63, 63, 63, 255}}, // uint8(1/4·255)
		{"cell (1,0)", r.Min.Add(image.Pt(0, s)), color.RGBA{127, 127, 127, 255}},
		{"cell (1,1)", r.Max.Sub(image.Pt(1, 1)), color.RGBA{255, 255, 255, 255}},
		{"border", r.Min.Sub(image.Pt(1, 1)), borderColor},
		{"background", image.Pt(0, 0), color.RGBA{255, 255, 255, 255}},
	} {
		if got := color.RGBAModel.Convert(back.At(tc.at.X, tc.at.Y)); got != tc.want {
			t.Errorf("%s at %v = %v after the round trip, want %v", tc.name, tc.at, got, tc.want)
		}
	}
	for y := 0; y < img.Bounds().Dy(); y += 3 {
		for x := 0; x < img.Bounds().Dx(); x += 3 {
			if color.RGBAModel.Convert(back.At(x, y)) != img.RGBAAt(x, y) {
				t.Fatalf("pixel (%d,%d) differs after the PNG round trip", x, y)
			}
		}
	}
}

// TestStripNonFinite draws frames holding infinities and NaN: those cells
// are drawn in NaNColor and the others keep their levels.
func TestStripNonFinite(t *testing.T) {
	t.Parallel()
	for _, bad := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		f := Field{Rows: 1, Cols: 3, Data: []float64{bad, 1, 2}}
		opt := &StripOptions{Colormap: Grey, Size: 3}
		img, err := Strip([][]Field{{f}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := layoutStrip([][]Field{{f}}, opt)
		r, s := l.cell(0, 0, f)
		want := []color.RGBA{NaNColor, {127, 127, 127, 255}, {255, 255, 255, 255}}
		for j, w := range want {
			if got := img.RGBAAt(r.Min.X+j*s, r.Min.Y); got != w {
				t.Errorf("%v: cell %d = %v, want %v", bad, j, got, w)
			}
		}
		one, err := FramePicture(f, Grey, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := one.RGBAAt(0, 0); got != NaNColor {
			t.Errorf("%v: frame picture cell 0 = %v, want NaNColor", bad, got)
		}
	}
}

func TestFramePicture(t *testing.T) {
	t.Parallel()
	f := Field{Rows: 2, Cols: 3, Data: []float64{0, 1, 2, 3, 4, math.NaN()}}
	img, err := FramePicture(f, Grey, 2)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 6, 4) {
		t.Fatalf("bounds %v", img.Bounds())
	}
	for i, v := range f.Data[:5] {
		want := uint8(v / 4 * 255)
		if got := img.RGBAAt(2*(i%3)+1, 2*(i/3)+1); got != (color.RGBA{want, want, want, 255}) {
			t.Errorf("cell %d = %v, want grey %d", i, got, want)
		}
	}
	if img.RGBAAt(5, 3) != NaNColor {
		t.Errorf("NaN cell = %v", img.RGBAAt(5, 3))
	}
	if _, err := FramePicture(Field{Rows: 1, Cols: 2}, nil, 0); err == nil {
		t.Error("bad field: no error")
	}
}

func TestHeatMapsLog(t *testing.T) {
	t.Parallel()
	f := Field{Rows: 1, Cols: 5, Data: []float64{1e-3, 1e-2, 1e-1, 1, 0}}
	panels := []Panel{{Slices: []Field{f}}}
	opt := &HeatMapOptions{Log: true, Size: 50}
	img, err := HeatMaps(panels, opt)
	if err != nil {
		t.Fatal(err)
	}
	layout, _, _ := heatLayout(panels, opt)
	l := layout[0]
	if l.colors.lo != 1e-3 || l.colors.hi != 1 || l.colors.midLab != "0.03162" {
		t.Errorf("log scale [%v, %v], middle label %q", l.colors.lo, l.colors.hi, l.colors.midLab)
	}
	r := l.sliceRect(0)
	for j, want := range []color.RGBA{Viridis.At(0), Viridis.At(1.0 / 3), Viridis.At(2.0 / 3), Viridis.At(1), NaNColor} {
		got := img.RGBAAt(r.Min.X+j*l.scale+l.scale/2, r.Min.Y+l.scale/2)
		if d := sq(float64(got.R)-float64(want.R)) + sq(float64(got.G)-float64(want.G)); d > 2 {
			t.Errorf("cell %d = %v, want %v", j, got, want)
		}
	}
}
