// Package draw makes the pictures that go with gmlg's numbers: heat maps of
// metrics with colour bars, the edge weights of a graph, strips of frames
// (observations against reconstructions), loss curves, and colour
// histograms seen as discs in the RGB cube.
//
// Every function returns an opaque *image.RGBA and is deterministic: the
// same input gives the same pixels. [EncodePNG] writes a picture as PNG;
// writing files (atomically, into run folders) is the caller's business.
//
// # Colour maps
//
// [Viridis] (perceptually uniform, readable in grey and by colour-blind
// readers) is the default; [Grey] maps 0 to black and 1 to white. A
// [Colormap] maps [0,1] to a colour; NaN and infinite values are drawn in
// [NaNColor] and never affect the colour scale.
//
// # Heat maps
//
// [HeatMaps] draws panels side by side, each a 2-D [Field] (row 0 at the
// top, column 0 at the left, as NumPy's imshow shows an [n,n] array) with
// its own colour bar labelled with the panel's minimum, middle and maximum.
// A panel may instead hold several slices of a 3-D field, drawn as a grid
// sharing one colour scale. HeatMapOptions.Log switches to a logarithmic
// colour scale for values spanning decades.
//
// [MetricPanels] builds the panels of a metric stored in the reference's
// [d,N] layout (docs/method.md, "Grid and vertex order"): row p holds the
// values of the axis of stride n^p at the N vertices in C order. In 2-D
// "Horizontal" is row 0 and "Vertical" row 1; in 3-D the rows 2, 1, 0 are
// the R, G and B axes and each is shown as n slices R = 0..n-1 of [G,B]
// images.
//
//	panels, err := draw.MetricPanels(metric, 2, 50)
//	img, err := draw.HeatMaps(panels, &draw.HeatMapOptions{Title: "iteration 20"})
//	err = draw.EncodePNG(w, img)
//
// # Graphs
//
// [EdgeMap] draws the edge weights of a general graph on its vertices'
// coordinates: each edge a line coloured by its weight, heavier edges on
// top, with a colour bar like a heat map's.
//
// # Strips of frames
//
// [Strip] puts frames side by side in rows, for example the observations on
// one row and the reconstructions below them. Each frame is scaled to its
// own maximum and quantised as the reference's uint8(I/max·255) before
// colouring, so with [Grey] the grey levels equal the reference's pictures.
// [FramePicture] draws a single frame without labels, like the reference's
// rec-image-XXXX-YY.png.
//
// [FrameStrip] lays out sequences of histograms, one row per kind of frame
// ([Frames]) and sequence, with time labels; a function turns each
// histogram into a field: [GridFrame] for a grid (a 3-D histogram summed
// over its slowest axis), [PointFrame] for the vertices of a graph at
// their coordinates, as [EdgeMap] places them ([Projection] keeps, of 3-D
// coordinates, the half seen from +z).
//
//	img, err := draw.FrameStrip(parts, func(h []float64) draw.Field {
//		return draw.GridFrame(h, 2, 50)
//	}, "observed and reconstructed")
//
// [MetricMaps] and [CompareMetrics] draw a [d,N] metric, or a true and a
// learned one side by side, as heat maps.
//
// # Loss curves
//
// [LossPlot] draws the loss per iteration with gonum/plot, on a linear axis
// and on a logarithmic one side by side (the reference's 1-loss_plot.png).
//
// # Colour histograms
//
// [Histogram] draws a histogram of n³ colour bins (flat index R·n²+G·n+B,
// the layout of package ot/color) as discs at the bin centres, filled with
// the bin's colour, with areas proportional to mass, projected from a fixed
// viewpoint over the edges of the colour cube. [HistogramStrip] puts several
// side by side on a common scale, for example the frames of an
// interpolation.
//
// # Putting pictures together
//
// [Stack] and [Row] put pictures below or beside each other on white,
// [Label] makes a band of text to title them, and [Thumbnail] shrinks a
// large image by a whole factor.
package draw
