// Package color provides the colour building blocks of gmlg: RGB colour
// histograms of images, the separable Euclidean kernel on the colour cube,
// prolongation of a learned colour metric to a finer grid, OT colour
// transfer by barycentric projection with cross-bilateral smoothing, export
// of a transfer as a .cube 3-D LUT, and the paper's sunset experiment.
//
// It follows the reference implementation's colour pipeline (docs/method.md,
// "Colour pipeline"); learning itself and Sinkhorn barycenters live in packages
// learn and ot. The package name shadows the standard image/color; import that
// one under another name (for example stdcolor) when both are needed.
//
// # Conventions
//
// A colour histogram at n bins per channel is a []float64 of length n³ in
// the [R,G,B] layout, flattened C-order: bin (R,G,B) is at the flat index
// R·n²+G·n+B (Index), so B is the fast axis (stride 1, metric row 0), G the
// medium one (stride n, row 1) and R the slow one (stride n², row 2). An
// 8-bit channel value v falls in bin ⌊v·n/255⌋ (Bin). Colours of bins are
// their centres ((R+½)/n, (G+½)/n, (B+½)/n) in [0,1] (BinCentre), while
// the Euclidean kernel places its nodes at k/(n−1). Blocks of several
// histograms are column-major, as in package ot.
//
// # Histograms
//
// Histogram computes what the reference feeds the learner, bit for bit
// (float32 normalisation with numpy's pairwise summation):
//
//	h, err := color.Histogram(img, &color.HistOptions{Bins: 16})
//
// The one deliberate difference is the default treatment of saturated
// pixels: the reference's cv2.calcHist range [0,255) silently drops every
// pixel with a channel equal to 255 (11 738 of the 307 200 pixels of the
// first seldovia2 frame), while by default this package counts them in the
// top bin. HistOptions.DropSaturated restores the reference behaviour; with
// it, the histograms of the reference data sets are bitwise the reference's
// stored float32 files.
//
// # Kernels and interpolation
//
// NewEuclidean builds the Gibbs kernel exp(−‖x−x'‖²/γ) on the n³ grid,
// applied separably in O(n⁴) per column. NewLearnedKernel builds a learned
// metric's heat kernel, prolonged from n = 16 to n_hi = 2^k(n−1)+1 bins
// (31, 61, …), where the reference recomputes the histograms. The
// displacement interpolation between a day and a night histogram is
// ot.Interpolate with either kernel; the reference's colour interpolation
// (docs/method.md, "Histogram interpolation") runs the endpoints through
// the Sinkhorn loop too (ot.Settings.IterateEndpoints):
//
//	recs, err := ot.Interpolate(k, []ot.Sequence{{Source: day, Target: night, Times: ot.Linspace(10)}},
//		&ot.Settings{Iterations: 50, IterateEndpoints: true})
//
// # Colour transfer
//
// A Transfer runs a two-marginal Sinkhorn between the histogram p of an
// image and a target histogram q, and sends each bin to the plan-weighted
// mean of the target bin centres:
//
//	k, _ := color.NewEuclidean(31, color.GammaFromSigma(0.05))
//	tr, _ := color.NewTransfer(k, 31)
//	im := color.FromImage(img)                    // channels V/255
//	out, err := tr.Apply(im, p, q, &color.TransferOptions{Iterations: 500})
//	png.Encode(w, out.NRGBA())                    // truncation to 8 bits
//
// The reference's nearest-bin pixel rule quantises colours to bin centres: a
// transfer of the first seldovia2 frame onto its own histogram still moves
// pixels by 3 grey levels on average at n = 16 (0.9 at n = 48); the gmlg
// extension TransferOptions.Interpolate is exact for the identity. NewDirect
// transfers between images without any histogram interpolation (docs/method.md,
// "Direct transfer"). Sinkhorn failures (the kernel underflowing for a small γ)
// are errors wrapping ErrNonFinite rather than NaN images.
//
// (*Map).Cube turns a transfer's bin colours into a 3-D LUT in the .cube
// format that video editors and ffmpeg's lut3d filter load; ReadCube parses
// such files.
//
// # Sunset
//
// NewSunset runs the paper's sunset experiment from a day and a night
// image: their histograms, their interpolation, and Frame(f), the transfer
// of frame f onto the day image with its colour map for the LUT. Package
// ot/draw draws the histograms (draw.Histogram, draw.HistogramStrip).
package color
