// Package draw makes the pictures that go with gmlg's numbers: heat maps of
// metrics with colour bars ([HeatMaps], [MetricMaps], [CompareMetrics]),
// the edge weights of a graph ([EdgeMap]), strips of frames such as
// observations against reconstructions ([Strip], [FrameStrip],
// [GridStrip]), loss curves ([LossPlot]), and colour histograms seen as
// discs in the RGB cube ([Histogram], [HistogramStrip]). [Stack], [Row],
// [Label] and [Thumbnail] put pictures together.
//
// Every function returns an opaque *image.RGBA and is deterministic: the
// same input gives the same pixels. [EncodePNG] writes a picture as PNG;
// writing files (atomically, into run folders) is the caller's business.
//
// [Viridis] (perceptually uniform, readable in grey and by colour-blind
// readers) is the default colour map; [Grey] maps 0 to black and 1 to
// white. NaN and infinite values are drawn in [NaNColor] and never affect
// the colour scale.
//
// Metrics are in the reference's [d,N] layout (docs/method.md, "Grid and
// vertex order"): row p holds the values of the axis of stride n^p at the
// N vertices in C order ([MetricPanels]). Frames in strips are quantised as
// the reference's uint8(I/max·255), so with [Grey] the grey levels equal
// the reference's pictures.
//
//	panels, err := draw.MetricPanels(metric, 2, 50)
//	img, err := draw.HeatMaps(panels, &draw.HeatMapOptions{Title: "iteration 20"})
//	err = draw.EncodePNG(w, img)
//
//	img, err := draw.FrameStrip(parts, func(h []float64) draw.Field {
//		return draw.GridFrame(h, 2, 50)
//	}, "observed and reconstructed")
package draw
