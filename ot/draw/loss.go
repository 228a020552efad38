package draw

import (
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
)

// LossOptions controls LossPlot. The zero value (or nil) gives the defaults.
type LossOptions struct {
	// Title, if set, is drawn above both panels.
	Title string
	// Width and Height are the picture size in pixels. Zero means 960×400.
	Width, Height int
	// FirstIteration is the iteration number of loss[0]. Zero means 1, the
	// reference's numbering (entry k−1 of 1-loss.npy is iteration k).
	FirstIteration int
}

var lossColor = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}

// LossPlot draws the loss per iteration twice, side by side, with
// gonum/plot: on a linear y axis and on a logarithmic one (the reference's
// 1-loss_plot.png). Non-finite values are left out of both panels and
// non-positive ones out of the logarithmic panel; it is an error if no
// value is finite.
func LossPlot(loss []float64, opt *LossOptions) (*image.RGBA, error) {
	opt = cmp.Or(opt, &LossOptions{})
	w, h := orSize(opt.Width, 960), orSize(opt.Height, 400)
	first := cmp.Or(opt.FirstIteration, 1)
	var lin, pos plotter.XYs
	for i, v := range loss {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		pt := plotter.XY{X: float64(first + i), Y: v}
		lin = append(lin, pt)
		if v > 0 {
			pos = append(pos, pt)
		}
	}
	if len(lin) == 0 {
		return nil, errors.New("draw: loss plot: no finite loss value")
	}
	pl, err := lossPanel(lin, "loss", false)
	if err != nil {
		return nil, err
	}
	row := []*plot.Plot{pl}
	if len(pos) > 0 {
		pg, err := lossPanel(pos, "loss (log scale)", true)
		if err != nil {
			return nil, err
		}
		row = append(row, pg)
	}
	c := newCanvas(w, h)
	dc := *c.dc
	if opt.Title != "" {
		sty := textStyle(titleSize, vgdraw.XCenter, vgdraw.YTop)
		dc.FillText(sty, vg.Point{X: vg.Length(w) / 2, Y: vg.Length(h - 8)}, opt.Title)
		dc = vgdraw.Crop(dc, 0, 0, 0, -vg.Length(mainTitleH))
	}
	tiles := vgdraw.Tiles{Rows: 1, Cols: len(row), PadX: 30, PadTop: 6, PadBottom: 6, PadLeft: 6, PadRight: 12}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for j, p := range row {
		p.Draw(canvases[0][j])
	}
	return c.img, nil
}

func lossPanel(xy plotter.XYs, title string, logY bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sansFont, 13)
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = "loss"
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(sansFont, 12)
		ax.Tick.Label.Font = font.From(sansFont, 10)
	}
	p.Add(plotter.NewGrid())
	line, err := plotter.NewLine(xy)
	if err != nil {
		return nil, fmt.Errorf("draw: loss plot: %w", err)
	}
	line.Color = lossColor
	line.Width = 1.5
	p.Add(line)
	if len(xy) <= 60 {
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("draw: loss plot: %w", err)
		}
		sc.GlyphStyle.Color = lossColor
		sc.GlyphStyle.Radius = 2
		sc.GlyphStyle.Shape = vgdraw.CircleGlyph{}
		p.Add(sc)
	}
	// A single point or a flat loss still gets a readable range.
	if p.X.Min == p.X.Max {
		p.X.Min, p.X.Max = p.X.Min-1, p.X.Max+1
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		if p.Y.Min == p.Y.Max {
			p.Y.Min, p.Y.Max = p.Y.Min/2, p.Y.Max*2
		}
	} else if p.Y.Min == p.Y.Max {
		d := math.Max(math.Abs(p.Y.Min)/2, 1)
		p.Y.Min, p.Y.Max = p.Y.Min-d, p.Y.Max+d
	}
	return p, nil
}

// logTicks labels a logarithmic axis at 1, 2 and 5 times the powers of ten
// it spans, with minor ticks at the other integer multiples; over more than
// three decades only the powers of ten are labelled.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	wide := e1-e0 > 3
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, float64(e))
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
