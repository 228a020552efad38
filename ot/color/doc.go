// Package color provides the colour building blocks of gmlg: RGB colour
// histograms of images, the separable Euclidean kernel on the colour cube,
// prolongation of a learned colour metric to a finer grid, OT colour
// transfer by barycentric projection with cross-bilateral smoothing, export
// of a transfer as a .cube 3-D LUT.
//
// It follows the reference implementation's colour pipeline (docs/method.md,
// "Colour pipeline"); learning itself and Sinkhorn barycenters live in
// packages learn and ot. The package name shadows the standard image/color;
// import that one under another name (for example stdcolor) when both are
// needed.
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
// Histogram computes what the reference feeds the learner:
//
//	h, err := color.Histogram(img, &color.HistOptions{Bins: 16})
//
// The counts get a floor of 1e-6·max/N and are normalised in float32 with
// numpy's pairwise summation, so the values are bit-for-bit those of the
// reference (returned as float64). The one deliberate difference is the
// default treatment of saturated pixels: the reference's cv2.calcHist range
// [0,255) silently drops every pixel with a channel equal to 255 (11 738
// of the 307 200 pixels of the first seldovia2 frame), while by default this package counts them in the top bin.
// HistOptions.DropSaturated restores the reference behaviour; with it, the
// histograms of the reference data sets are bitwise identical to the
// reference's stored float32 files.
//
// # Kernels and metrics
//
// NewEuclidean builds the Gibbs kernel exp(−‖x−x'‖²/γ) on the n³ grid,
// applied separably in O(n⁴) per column; it implements ot.Kernel.
// A metric learned at n = 16 is moved to a finer grid n_hi = 2^k(n−1)+1
// (31, 61, …) with kernel.ProlongVertexMetric before building the heat
// kernel there (NewLearnedKernel; the
// reference then uses alpha = (n_hi−1)² and histograms recomputed at n_hi).
//
// # Interpolating histograms
//
// The displacement interpolation between a day and a night histogram is
// ot.Interpolate with any kernel of size n³: a learned heat kernel or a
// Euclidean one. The reference's colour interpolation (docs/method.md,
// "Histogram interpolation") runs every frame, the endpoints included,
// through the full Sinkhorn loop, so that the end frames are the poles
// blurred by the kernel; ot.Settings.IterateEndpoints selects that:
//
//	recs, err := ot.Interpolate(k, []ot.Sequence{{Source: day, Target: night, Times: ot.Linspace(10)}},
//		&ot.Settings{Iterations: 50, IterateEndpoints: true})
//
// ot.Linear is the linear interpolation (1−t)·h₀ + t·h₁ that the paper
// compares against.
//
// # Colour transfer
//
// A Transfer runs a two-marginal Sinkhorn between the histogram p of an
// image and a target histogram q with any ot.Kernel of size n³ (a learned
// heat kernel or a Euclidean one), and projects the plan barycentrically:
// each bin is sent to the plan-weighted mean of the target bin centres.
//
//	k, _ := color.NewEuclidean(31, color.GammaFromSigma(0.05))
//	tr, _ := color.NewTransfer(k, 31)
//	im := color.FromImage(img)                    // channels V/255
//	out, err := tr.Apply(im, p, q, &color.TransferOptions{Iterations: 500})
//	png.Encode(w, out.NRGBA())                    // truncation to 8 bits
//
// Apply maps every pixel to the colour of its bin, smooths the correction
// with a cross-bilateral grid guided by the original image (σs = min(W,H)/16,
// σr = 0.1; see NewBilateralGrid) and clips to [0,1]. Map returns the
// per-bin colours alone; Smooth and NewBilateralGrid are the smoothing step.
// The reference's nearest-bin pixel rule quantises colours to bin centres:
// a transfer of the first seldovia2 frame onto its own histogram still
// moves pixels by 3 grey levels on average at n = 16 (0.9 at n = 48). The
// gmlg extension TransferOptions.Interpolate interpolates the per-bin
// correction instead (Map.Correct), which is exact for the identity.
// DirectTransfer does the whole thing between two images without any
// histogram interpolation (docs/method.md, "Direct transfer"). Sinkhorn
// failures (the kernel underflowing for a small γ) are reported as errors
// wrapping ErrNonFinite rather than as NaN images.
//
// # LUTs
//
// (*Map).Cube turns a transfer's bin colours into a 3-D LUT and
// (*Cube).WriteTo writes it in the .cube text format that video editors and
// ffmpeg's lut3d filter load, so a colour grade computed by gmlg can be
// applied to a whole film. The LUT carries each bin's colour correction,
// not the spatial bilateral smoothing. ReadCube parses such files.
//
// # Sunset
//
// NewSunset runs the paper's sunset experiment from a day and a night
// image: their histograms, the interpolation under SunsetOptions.Kernel (a
// learned metric's heat kernel from NewLearnedKernel, which prolongs the
// metric and rescales alpha as the reference does, or a Euclidean kernel;
// none means linear) with the model the metric was learned with, and
// Frame(f), the transfer of frame f onto the day image with its colour map
// for the LUT. NewDirect transfers several sources onto one target.
//
// # Pictures
//
// Package ot/draw draws these histograms as discs in the colour cube
// (draw.Histogram, draw.HistogramStrip).
package color
