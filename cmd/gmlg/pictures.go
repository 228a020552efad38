package main

import (
	"fmt"
	"image"
	"io"

	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot"
	"github.com/gmlg/gmlg/ot/draw"
)

// savePicture writes a picture of package draw atomically as a PNG file.
func savePicture(path string, img image.Image) error {
	if err := rundir.Write(path, 0o644, func(w io.Writer) error { return draw.EncodePNG(w, img) }); err != nil {
		return fmt.Errorf("save picture: %w", err)
	}
	return nil
}

// metricImage draws a metric in the reference's [d,N] layout as heat maps,
// one panel per axis, each map about size pixels across (0: draw's
// default).
func metricImage(padded []float64, d, n int, title string, size int) (*image.RGBA, error) {
	panels, err := draw.MetricPanels(padded, d, n)
	if err != nil {
		return nil, err
	}
	return draw.HeatMaps(panels, &draw.HeatMapOptions{Title: title, Size: size})
}

// frameField turns a frame of side n in d dimensions into a picture: the
// [n,n] array itself in 2-D, the projection Σ_R H[R,G,B] (G down, B across)
// in 3-D.
func frameField(data []float64, d, n int) draw.Field {
	if d == 2 {
		return draw.Field{Rows: n, Cols: n, Data: data}
	}
	proj := make([]float64, n*n)
	for r := 0; r < n; r++ {
		for i, v := range data[r*n*n : (r+1)*n*n] {
			proj[i] += v
		}
	}
	return draw.Field{Rows: n, Cols: n, Data: proj}
}

// timeLabels returns "t=0.00" labels for a sequence of k frames at
// linspace(0,1,k).
func timeLabels(k int) []string {
	out := make([]string, k)
	for j, t := range ot.Linspace(k) {
		out[j] = fmt.Sprintf("t=%.2f", t)
	}
	return out
}

// sizeFor picks the frame size of a strip so that wide or tall strips stay
// readable and not too large.
func sizeFor(cols, rows int) int {
	size := 80
	switch {
	case cols <= 6:
		size = 160
	case cols <= 12:
		size = 112
	}
	return max(48, min(size, 1200/max(rows, 1)))
}

// stripPart is one kind of row of a strip: a name and frames per sequence.
type stripPart struct {
	name   string
	frames [][][]float64
}

// recStrip draws, for every sequence, the observed frames above the
// reconstructed ones (either may be nil).
func recStrip(path string, obs, recs [][][]float64, d, n int, title string) error {
	return drawStrip(path, []stripPart{{"observed", obs}, {"reconstructed", recs}}, d, n, title)
}

// drawStrip draws the frames of every part, sequence by sequence: for
// sequence s one row per part, labelled with the part's name (and s when
// there are several sequences).
func drawStrip(path string, parts []stripPart, d, n int, title string) error {
	var rows [][]draw.Field
	var labels []string
	maxCols, nseq := 0, 0
	for _, part := range parts {
		nseq = max(nseq, len(part.frames))
	}
	for s := range nseq {
		tag := ""
		if nseq > 1 {
			tag = fmt.Sprintf(" %d", s)
		}
		for _, part := range parts {
			if s >= len(part.frames) || part.frames[s] == nil {
				continue
			}
			var row []draw.Field
			for _, f := range part.frames[s] {
				row = append(row, frameField(f, d, n))
			}
			maxCols = max(maxCols, len(row))
			rows = append(rows, row)
			labels = append(labels, part.name+tag)
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("no frames to draw in %s", path)
	}
	if d == 3 {
		title += " (3-D frames summed over axis 0, the slowest)"
	}
	img, err := draw.Strip(rows, &draw.StripOptions{
		Title: title, RowLabels: labels, ColLabels: timeLabels(maxCols), Size: sizeFor(maxCols, len(rows)),
	})
	if err != nil {
		return err
	}
	return savePicture(path, img)
}

// lossPicture draws the loss curve.
func lossPicture(path string, loss []float64, title string) error {
	img, err := draw.LossPlot(loss, &draw.LossOptions{Title: title})
	if err != nil {
		return err
	}
	return savePicture(path, img)
}
