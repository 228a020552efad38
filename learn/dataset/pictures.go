package dataset

import (
	"fmt"
	"image"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot/draw"
)

// FramesImage draws the frames of every part on s: on a grid as a strip
// (draw.GridStrip), on the colour cube as rows of histograms
// (draw.HistogramStrip), on a graph with coordinates on the vertices
// (draw.PointFrame; in 3-D those with z ≥ 0, seen from +z). A graph
// without coordinates has no picture: nil and no error.
func (s Space) FramesImage(parts []draw.Frames, title string) (image.Image, error) {
	if s.Colour {
		return s.histogramRows(parts, title)
	}
	if !s.IsGraph() {
		d, n := s.GridSize()
		return picture(draw.GridStrip(parts, d, n, title))
	}
	if s.Coords == nil {
		return nil, nil
	}
	xy, keep := draw.Projection(s.Coords.Data, s.Coords.Shape[1])
	xy = kept(xy, keep)
	if len(xy) < len(keep) {
		title += " (the vertices with z ≥ 0, seen from +z)"
	}
	field := func(f []float64) draw.Field { return draw.PointFrame(xy, kept(f, keep), 64) }
	return picture(draw.FrameStrip(parts, field, title))
}

// RecsImage draws, for every sequence, the observed frames above the
// reconstructed ones (either may be nil) on s, as FramesImage does.
func (s Space) RecsImage(obs, recs [][][]float64, title string) (image.Image, error) {
	return s.FramesImage([]draw.Frames{{Name: "observed", Frames: obs}, {Name: "reconstructed", Frames: recs}}, title)
}

// MetricImage draws θ of kind k on s: heat maps per axis on a grid
// (draw.MetricMaps), the edges coloured by weight on a graph with
// coordinates (in 3-D those with z ≥ 0); nil without coordinates.
func (s Space) MetricImage(k learn.MetricKind, theta []float64, title string) (image.Image, error) {
	if !s.IsGraph() {
		d, n := s.GridSize()
		return picture(draw.MetricMaps(PadMetric(s.Graph, k, theta), d, n, title, 0))
	}
	if s.Coords == nil {
		return nil, nil
	}
	xy, keep := draw.Projection(s.Coords.Data, s.Coords.Shape[1])
	var edges [][2]int
	var w []float64
	for e, ij := range s.Edges() {
		if keep[ij[0]] && keep[ij[1]] {
			edges, w = append(edges, ij), append(w, theta[e])
		}
	}
	if s.Coords.Shape[1] == 3 {
		title += " (the edges with z ≥ 0, seen from +z)"
	}
	img, err := draw.EdgeMap(xy, edges, w, &draw.HeatMapOptions{Title: title})
	if err != nil {
		return nil, fmt.Errorf("metric picture: %w", err)
	}
	return img, nil
}

// histogramRows draws the frames of every part on the colour cube, a row
// of histogram panels per sequence, labelled with the part's name and the
// frame's index.
func (s Space) histogramRows(parts []draw.Frames, title string) (image.Image, error) {
	_, n := s.GridSize()
	var rows []image.Image
	width := 0
	for _, p := range parts {
		for _, seq := range p.Frames {
			if len(seq) == 0 {
				continue
			}
			labels := make([]string, len(seq))
			for i := range seq {
				labels[i] = fmt.Sprintf("%s %d", p.Name, i)
			}
			row, err := draw.HistogramStrip(seq, n, labels, &draw.HistogramOptions{Size: 160})
			if err != nil {
				return nil, err
			}
			rows, width = append(rows, row), max(width, row.Bounds().Dx())
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return draw.Stack(append([]image.Image{draw.Label(title, width)}, rows...)...), nil
}

// kept returns the entries of v where keep is true.
func kept[T any](v []T, keep []bool) []T {
	var out []T
	for i, x := range v {
		if keep[i] {
			out = append(out, x)
		}
	}
	return out
}

// picture returns img as an image.Image, nil (not a typed nil) with err.
func picture(img *image.RGBA, err error) (image.Image, error) {
	if err != nil {
		return nil, err
	}
	return img, nil
}
