// Package render draws the pictures gmlg writes next to its numbers: heat
// maps of metrics with a colour bar, the edge weights of a graph, strips of
// frames (observations against reconstructions) and loss curves.
//
// Every function returns an *image.RGBA and is deterministic: the same input
// gives the same pixels. [SavePNG] writes a picture atomically.
//
// # Colour maps
//
// [Viridis] (perceptually uniform, readable in grey and by colour-blind
// readers) is the default; [Grey] maps 0 to black and 1 to white. A
// Colormap maps [0,1] to a colour; NaN and infinite values are drawn in
// [NaNColor] and never affect the colour scale.
//
// # Heat maps
//
// [HeatMaps] draws panels side by side, each a 2-D [Field] (row 0 at the top,
// column 0 at the left, as NumPy's imshow shows an [n,n] array) with its own
// colour bar labelled with the panel's minimum and maximum. A panel may
// instead hold several slices of a 3-D field, drawn as a grid sharing one
// colour scale. HeatMapOptions.Log switches to a logarithmic colour scale for
// values spanning decades. [MetricPanels] builds the panels of a metric
// stored in the reference's [d,N] layout (docs/method.md,
// "Grid and vertex order"): in 2-D "Horizontal" is row 0 and "Vertical" row
// 1; in 3-D the rows 2, 1, 0 are the R, G and B axes and each is shown as n
// slices R = 0..n-1 of [G,B] images.
//
//	panels, err := render.MetricPanels(metric, 2, 50)
//	img, err := render.HeatMaps(panels, &render.HeatMapOptions{Title: "iteration 20"})
//	err = render.SavePNG("run/a-metric-0020.png", img)
//
// # Graphs
//
// [EdgeMap] draws the edge weights of a general graph on its vertices'
// coordinates: each edge a line coloured by its weight, heavier edges on
// top, with a colour scale underneath.
//
// # Strips
//
// [Strip] puts frames side by side in rows, for example the observations on
// one row and the reconstructions below them. Each frame is scaled to its
// own maximum and quantised as the reference's uint8(I/max·255) before
// colouring, so with [Grey] the grey levels equal the reference's pictures.
// [FramePicture] draws a single frame without labels, like the reference's
// rec-image-XXXX-YY.png.
//
// # Loss curves
//
// [LossPlot] draws the loss per iteration with gonum/plot, on a linear axis
// and on a logarithmic one side by side (the reference's 1-loss_plot.png).
package render
