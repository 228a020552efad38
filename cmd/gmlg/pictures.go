package main

import (
	"fmt"
	"image"
	"io"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot/draw"
)

// savePicture writes a picture of package draw atomically as a PNG file.
func savePicture(path string, img image.Image) error {
	if err := rundir.Write(path, 0o644, func(w io.Writer) error { return draw.EncodePNG(w, img) }); err != nil {
		return fmt.Errorf("save picture: %w", err)
	}
	return nil
}

// drawStrip draws the frames of every part on the d-dimensional grid of
// side n (draw.FrameStrip).
func drawStrip(path string, parts []draw.Frames, d, n int, title string) error {
	if d == 3 {
		title += " (3-D frames summed over axis 0, the slowest)"
	}
	img, err := draw.FrameStrip(parts, func(f []float64) draw.Field { return draw.GridFrame(f, d, n) }, title)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return savePicture(path, img)
}

// framesPicture draws the frames of every part on sp: on a grid as
// drawStrip does, on a graph with coordinates each frame on the vertices
// (draw.PointFrame). A graph without coordinates has no picture: it draws
// nothing and returns false.
func framesPicture(sp space, path string, parts []draw.Frames, title string) (bool, error) {
	if !sp.IsGraph() {
		d, n := sp.GridSize()
		return true, drawStrip(path, parts, d, n, title)
	}
	if sp.Coords == nil {
		return false, nil
	}
	xy, keep := draw.Projection(sp.Coords.Data, sp.Coords.Shape[1])
	xy = kept(xy, keep)
	if len(xy) < len(keep) {
		title += " (the vertices with z ≥ 0, seen from +z)"
	}
	field := func(f []float64) draw.Field { return draw.PointFrame(xy, kept(f, keep), 64) }
	img, err := draw.FrameStrip(parts, field, title)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, savePicture(path, img)
}

// recsPicture draws, for every sequence, the observed frames above the
// reconstructed ones (either may be nil) on sp, as framesPicture does.
func recsPicture(sp space, path string, obs, recs [][][]float64, title string) (bool, error) {
	return framesPicture(sp, path, []draw.Frames{{Name: "observed", Frames: obs}, {Name: "reconstructed", Frames: recs}}, title)
}

// metricPicture draws θ of kind k on sp: heat maps per axis on a grid, the
// edges coloured by weight on a graph with coordinates (those between
// vertices with z ≥ 0 for 3-D coordinates). A graph without coordinates
// has no picture: it draws nothing and returns false.
func metricPicture(sp space, path string, k learn.MetricKind, theta []float64, title string) (bool, error) {
	if !sp.IsGraph() {
		d, n := sp.GridSize()
		return true, metricMaps(path, dataset.PadMetric(sp.Graph, k, theta), d, n, title)
	}
	if sp.Coords == nil {
		return false, nil
	}
	xy, keep := draw.Projection(sp.Coords.Data, sp.Coords.Shape[1])
	var edges [][2]int
	var w []float64
	for e, ij := range sp.Edges() {
		if keep[ij[0]] && keep[ij[1]] {
			edges, w = append(edges, ij), append(w, theta[e])
		}
	}
	if sp.Coords.Shape[1] == 3 {
		title += " (the edges with z ≥ 0, seen from +z)"
	}
	img, err := draw.EdgeMap(xy, edges, w, &draw.HeatMapOptions{Title: title})
	if err != nil {
		return false, err
	}
	return true, savePicture(path, img)
}

// metricMaps draws a [d,N] metric array as heat maps, one per axis.
func metricMaps(path string, padded []float64, d, n int, title string) error {
	img, err := draw.MetricMaps(padded, d, n, title, 0)
	if err != nil {
		return err
	}
	return savePicture(path, img)
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

// lossPicture draws the loss curve.
func lossPicture(path string, loss []float64, title string) error {
	img, err := draw.LossPlot(loss, &draw.LossOptions{Title: title})
	if err != nil {
		return err
	}
	return savePicture(path, img)
}
