package draw

import (
	"fmt"
	"image"
	"math"

	"github.com/gmlg/gmlg/ot"
)

// Frames is one kind of row of a frame strip: a name ("observed",
// "reconstructed") and frames per sequence, each a histogram (nil
// sequences are left out).
type Frames struct {
	Name   string
	Frames [][][]float64
}

// GridFrame turns a histogram on the d-dimensional grid of side n into a
// field: the [n,n] array itself in 2-D, the projection Σ_R H[R,G,B] (G
// down, B across) over the slowest axis in 3-D.
func GridFrame(data []float64, d, n int) Field {
	if d == 2 {
		return Field{Rows: n, Cols: n, Data: data}
	}
	proj := make([]float64, n*n)
	for r := 0; r < n; r++ {
		for i, v := range data[r*n*n : (r+1)*n*n] {
			proj[i] += v
		}
	}
	return Field{Rows: n, Cols: n, Data: proj}
}

// PointFrame turns a histogram on the vertices of a graph into a field of
// side cells: the vertices at the points xy (scaled uniformly to fit, y
// up), each painted as a disc about as wide as the points' typical
// spacing with its value, the largest value winning where discs overlap.
// Cells that no disc reaches are 0.
func PointFrame(xy [][2]float64, values []float64, cells int) Field {
	f := Field{Rows: cells, Cols: cells, Data: make([]float64, cells*cells)}
	px := fitPoints(xy, image.Rect(0, 0, cells, cells))
	r := max(1, 0.6*float64(cells)/math.Sqrt(float64(max(len(xy), 1))))
	for i, p := range px {
		for y := max(0, int(p[1]-r)); y <= min(cells-1, int(p[1]+r)); y++ {
			for x := max(0, int(p[0]-r)); x <= min(cells-1, int(p[0]+r)); x++ {
				if math.Hypot(float64(x)-p[0], float64(y)-p[1]) <= r {
					f.Data[y*cells+x] = max(f.Data[y*cells+x], values[i])
				}
			}
		}
	}
	return f
}

// TimeLabels returns the labels "t=0.00" … "t=1.00" of k frames at evenly
// spaced times.
func TimeLabels(k int) []string {
	out := make([]string, k)
	for j, t := range ot.Linspace(k) {
		out[j] = fmt.Sprintf("t=%.2f", t)
	}
	return out
}

// FrameStrip draws the frames of every part, sequence by sequence, each
// turned into a field by field: for sequence s one row per part, labelled
// with the part's name (and s when there are several sequences), the
// columns labelled with their times. The frame size keeps wide or tall
// strips readable and not too large.
func FrameStrip(parts []Frames, field func([]float64) Field, title string) (*image.RGBA, error) {
	var rows [][]Field
	var labels []string
	maxCols, nseq := 0, 0
	for _, part := range parts {
		nseq = max(nseq, len(part.Frames))
	}
	for s := range nseq {
		tag := ""
		if nseq > 1 {
			tag = fmt.Sprintf(" %d", s)
		}
		for _, part := range parts {
			if s >= len(part.Frames) || part.Frames[s] == nil {
				continue
			}
			var row []Field
			for _, f := range part.Frames[s] {
				row = append(row, field(f))
			}
			maxCols = max(maxCols, len(row))
			rows = append(rows, row)
			labels = append(labels, part.Name+tag)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("draw: no frames to draw")
	}
	return Strip(rows, &StripOptions{
		Title: title, RowLabels: labels, ColLabels: TimeLabels(maxCols), Size: stripSize(maxCols, len(rows)),
	})
}

// stripSize picks the frame size of a strip of the given columns and rows.
func stripSize(cols, rows int) int {
	size := 80
	switch {
	case cols <= 6:
		size = 160
	case cols <= 12:
		size = 112
	}
	return max(48, min(size, 1200/max(rows, 1)))
}

// MetricMaps draws a metric in the [d,N] layout on the grid of side n as
// heat maps, one panel per axis (MetricPanels), each about size pixels
// across (0: the default).
func MetricMaps(padded []float64, d, n int, title string, size int) (*image.RGBA, error) {
	panels, err := MetricPanels(padded, d, n)
	if err != nil {
		return nil, err
	}
	return HeatMaps(panels, &HeatMapOptions{Title: title, Size: size})
}

// CompareMetrics draws a true and a learned metric, both in the [d,N]
// layout on the grid of side n, side by side, axis by axis.
func CompareMetrics(truth, learned []float64, d, n int, title string) (*image.RGBA, error) {
	tp, err := MetricPanels(truth, d, n)
	if err != nil {
		return nil, err
	}
	lp, err := MetricPanels(learned, d, n)
	if err != nil {
		return nil, err
	}
	var panels []Panel
	for i := range tp {
		t, l := tp[i], lp[i]
		t.Title += " (true)"
		l.Title += " (learned)"
		panels = append(panels, t, l)
	}
	return HeatMaps(panels, &HeatMapOptions{Title: title, Size: 240})
}

// Projection returns the points to draw vertices at from coordinates [N,dim],
// row-major: the points themselves in 2-D; in 3-D, (x, y) of the vertices with
// z ≥ 0, the half seen from +z, with keep false for the others.
func Projection(coords []float64, dim int) (xy [][2]float64, keep []bool) {
	n := len(coords) / dim
	xy, keep = make([][2]float64, n), make([]bool, n)
	for i := range xy {
		xy[i] = [2]float64{coords[i*dim], coords[i*dim+1]}
		keep[i] = dim == 2 || coords[i*dim+2] >= 0
	}
	return xy, keep
}
