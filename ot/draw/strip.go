package draw

import (
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"

	vgdraw "gonum.org/v1/plot/vg/draw"
)

// StripOptions controls Strip. The zero value (or nil) gives the defaults.
type StripOptions struct {
	// Title, if set, is drawn above the strip.
	Title string
	// RowLabels are drawn left of each row ("observed", "reconstructed").
	RowLabels []string
	// ColLabels are drawn above each column of the first row ("t=0.00").
	ColLabels []string
	// Colormap colours the quantised levels. Nil means Viridis; Grey gives
	// the reference's grey-level pictures.
	Colormap *Colormap
	// Size is the approximate side in pixels of each frame; cells are scaled
	// by a whole number of pixels, at least one. Zero means 128.
	Size int
}

// Layout constants of strips, in pixels.
const (
	cellGap   = 6
	rowGap    = 10
	colLabelH = 18
)

// stripLayout places the frames of a strip.
type stripLayout struct {
	size   int // the frames' approximate side
	bounds image.Rectangle
	top    int // y of the first row
	left   int // x of the first column
	cellW  int
	cellH  int
}

// cell returns the rectangle of frame f at row i, column j, and its pixels
// per cell.
func (l *stripLayout) cell(i, j int, f Field) (image.Rectangle, int) {
	s := max(1, l.size/max(f.Rows, f.Cols))
	x, y := l.left+j*(l.cellW+cellGap), l.top+i*(l.cellH+rowGap)
	return image.Rect(x, y, x+f.Cols*s, y+f.Rows*s), s
}

func layoutStrip(rows [][]Field, opt *StripOptions) (*stripLayout, error) {
	if len(rows) == 0 {
		return nil, errors.New("no rows")
	}
	l := &stripLayout{size: orSize(opt.Size, 128)}
	ncols := 0
	for i, row := range rows {
		ncols = max(ncols, len(row))
		for j, f := range row {
			if f.Data == nil {
				continue
			}
			if err := f.check(); err != nil {
				return nil, fmt.Errorf("row %d frame %d: %w", i, j, err)
			}
			r, _ := l.cell(0, 0, f)
			l.cellW, l.cellH = max(l.cellW, r.Dx()), max(l.cellH, r.Dy())
		}
	}
	if ncols == 0 || l.cellW == 0 {
		return nil, errors.New("no frames")
	}
	labW := 0
	for _, s := range opt.RowLabels {
		labW = max(labW, textWidth(s, titleSize))
	}
	if labW > 0 {
		labW += 10
	}
	// Column labels wider than a cell widen the cells.
	for _, s := range opt.ColLabels {
		l.cellW = max(l.cellW, textWidth(s, labelSize))
	}
	l.left = margin + labW
	l.top = titleTop(opt.Title)
	if len(opt.ColLabels) > 0 {
		l.top += colLabelH
	}
	w := max(l.left+ncols*(l.cellW+cellGap)-cellGap+margin, textWidth(opt.Title, titleSize)+2*margin)
	h := l.top + len(rows)*(l.cellH+rowGap) - rowGap + margin
	l.bounds = image.Rect(0, 0, w, h)
	return l, nil
}

// Strip draws rows of 2-D frames side by side: rows[i][j] is frame j of row
// i. A Field with nil Data leaves its cell empty, so rows may be ragged.
// Each frame is scaled to its own maximum and quantised to a level
// uint8(v/max·255) (negative values give level 0; NaN and infinite values
// are drawn in NaNColor; a frame whose maximum is not positive is drawn at
// level 0), then coloured with the colour map at level/255.
func Strip(rows [][]Field, opt *StripOptions) (*image.RGBA, error) {
	opt = cmp.Or(opt, &StripOptions{})
	l, err := layoutStrip(rows, opt)
	if err != nil {
		return nil, fmt.Errorf("draw: strip: %w", err)
	}
	c := newCanvas(l.bounds.Dx(), l.bounds.Dy())
	c.title(l.bounds.Dx(), opt.Title)
	for j, s := range opt.ColLabels {
		c.text(l.left+j*(l.cellW+cellGap)+l.cellW/2, l.top-colLabelH/2, s, labelSize, vgdraw.XCenter, vgdraw.YCenter)
	}
	lut := levelColors(orViridis(opt.Colormap))
	for i, row := range rows {
		if i < len(opt.RowLabels) {
			c.text(margin, l.top+i*(l.cellH+rowGap)+l.cellH/2, opt.RowLabels[i], titleSize, vgdraw.XLeft, vgdraw.YCenter)
		}
		for j, f := range row {
			if f.Data == nil {
				continue
			}
			r, s := l.cell(i, j, f)
			paintFrame(c, f, r.Min, s, &lut)
			c.frame(r, borderColor)
		}
	}
	return c.img, nil
}

// level quantises v in [0, mx] to 0..255 by truncation, as uint8(v/mx·255).
func level(v, mx float64) int {
	if !(mx > 0) || !(v > 0) {
		return 0
	}
	return min(int(v/mx*255), 255)
}

// levelColors returns the colour of each quantised level k, cm.At(k/255).
func levelColors(cm *Colormap) [256]color.RGBA {
	var lut [256]color.RGBA
	for k := range lut {
		lut[k] = cm.At(float64(k) / 255)
	}
	return lut
}

// paintFrame draws f with its top-left cell at at, each cell as a
// scale×scale block coloured by its level (lut) relative to the largest
// finite value of f; NaN and infinite values are drawn in NaNColor.
func paintFrame(c *canvas, f Field, at image.Point, scale int, lut *[256]color.RGBA) {
	mx := 0.0
	for _, v := range f.Data {
		if !math.IsInf(v, 0) && v > mx {
			mx = v
		}
	}
	for y := range f.Rows {
		for x := range f.Cols {
			v := f.Data[y*f.Cols+x]
			col := NaNColor
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				col = lut[level(v, mx)]
			}
			x0, y0 := at.X+x*scale, at.Y+y*scale
			c.fill(image.Rect(x0, y0, x0+scale, y0+scale), col)
		}
	}
}

// FramePicture draws one 2-D frame alone, without labels or border, each
// cell as a scale×scale block (scale 0 means 1), quantised to its own
// maximum like Strip. With Grey and scale 1 it has the grey levels of the
// reference's rec-image-XXXX-YY.png pictures.
func FramePicture(f Field, cm *Colormap, scale int) (*image.RGBA, error) {
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("draw: frame picture: %w", err)
	}
	scale = max(scale, 1)
	c := newCanvas(f.Cols*scale, f.Rows*scale)
	lut := levelColors(orViridis(cm))
	paintFrame(c, f, image.Point{}, scale, &lut)
	return c.img, nil
}

// GridStrip draws the frames of every part on the d-dimensional grid of
// side n (FrameStrip of GridFrame); 3-D frames are summed over axis 0,
// the slowest, which the title then says.
func GridStrip(parts []Frames, d, n int, title string) (*image.RGBA, error) {
	if d == 3 {
		title += " (3-D frames summed over axis 0, the slowest)"
	}
	return FrameStrip(parts, func(f []float64) Field { return GridFrame(f, d, n) }, title)
}
