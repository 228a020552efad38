package color

import (
	"cmp"
	"fmt"
	"image"
	"math"

	"github.com/gmlg/gmlg/ot"
)

// ErrNonFinite is wrapped by the error of a transfer whose Sinkhorn
// scalings or projected colours become NaN or infinite (the kernel
// underflows: γ too small for the histograms). It is ot.ErrNonFinite.
var ErrNonFinite = ot.ErrNonFinite

// DefaultIterations is the number of Sinkhorn iterations used when an
// Iterations option is zero (the reference's ml_direct_transfer default).
const DefaultIterations = 100

// DefaultSigmaRange is the bilateral range sigma used when
// TransferOptions.SigmaRange is zero.
const DefaultSigmaRange = 0.1

// Map is a colour map on the n³ bins: Colors[3i:3i+3] is the (R,G,B) colour,
// channels in [0,1], that bin i is sent to.
type Map struct {
	Bins   int
	Colors []float64
	// MarginalErr is ‖a⊙K(b) − p‖₁ after the last Sinkhorn iteration, the
	// violation of the source marginal (the target marginal holds exactly
	// after each b update).
	MarginalErr float64
}

// BinCentre returns the colour of the centre of bin i at n bins per
// channel: ((R+½)/n, (G+½)/n, (B+½)/n).
func BinCentre(i, n int) (r, g, b float64) {
	fn := float64(n)
	return (float64(i/(n*n)) + 0.5) / fn, (float64(i/n%n) + 0.5) / fn, (float64(i%n) + 0.5) / fn
}

// LookupBin returns the flat bin of a colour with channels in [0,1] by the
// reference's nearest-bin rule idx = int(v·(n − 1e-4)) per channel
// (docs/method.md, "Colour transfer", step 3), clamped to [0, n−1]. For v =
// V/255 with V ≤ 254 this equals Bin(V, n); V = 255 maps to bin n−1.
func LookupBin(r, g, b float64, n int) int {
	return Index(lookup1(r, n), lookup1(g, n), lookup1(b, n), n)
}

func lookup1(v float64, n int) int {
	if !(v > 0) {
		return 0
	}
	return min(int(v*(float64(n)-1e-4)), n-1)
}

// Lookup returns the colour the map sends (r,g,b) to: its bin's, by LookupBin.
func (m *Map) Lookup(r, g, b float64) (float64, float64, float64) {
	i := LookupBin(r, g, b, m.Bins)
	return m.Colors[3*i], m.Colors[3*i+1], m.Colors[3*i+2]
}

// Apply writes the pixel-wise mapped image into dst: every pixel of src
// takes the colour of its bin (no spatial smoothing). dst and src must have
// the same size and may be the same image.
func (m *Map) Apply(dst, src *Image) { mapPixels(dst, src, m.Lookup) }

// ApplyCorrect is Apply with Correct instead of Lookup.
func (m *Map) ApplyCorrect(dst, src *Image) { mapPixels(dst, src, m.Correct) }

// mapPixels sets every pixel of dst to f of the same pixel of src.
func mapPixels(dst, src *Image, f func(r, g, b float64) (float64, float64, float64)) {
	if dst.W != src.W || dst.H != src.H || len(dst.Pix) != len(src.Pix) {
		panic(fmt.Sprintf("color: Map: dst %d×%d, src %d×%d", dst.W, dst.H, src.W, src.H))
	}
	for k := 0; k < len(src.Pix); k += 3 {
		dst.Pix[k], dst.Pix[k+1], dst.Pix[k+2] = f(src.Pix[k], src.Pix[k+1], src.Pix[k+2])
	}
}

// Correct returns the colour (r,g,b) + d(r,g,b) clipped to [0,1], where d
// is the map's correction newcolor − centre interpolated trilinearly between
// bin centres (and held constant beyond the outer centres). Unlike Lookup
// it is continuous and the identity map returns its input exactly; it is a
// gmlg extension, not the reference's pixel rule.
func (m *Map) Correct(r, g, b float64) (float64, float64, float64) {
	n := m.Bins
	var idx [3]int
	var frac [3]float64
	for ch, v := range [3]float64{r, g, b} {
		t := v*float64(n) - 0.5
		t = min(max(t, 0), float64(n-1))
		i := min(int(t), max(n-2, 0))
		idx[ch], frac[ch] = i, t-float64(i)
	}
	var d [3]float64
	for corner := range 8 {
		w := 1.0
		var bi [3]int
		for ch := range 3 {
			bit := corner >> (2 - ch) & 1
			w *= [2]float64{1 - frac[ch], frac[ch]}[bit]
			bi[ch] = min(idx[ch]+bit, n-1)
		}
		if w == 0 {
			continue
		}
		bin := Index(bi[0], bi[1], bi[2], n)
		cr, cg, cb := BinCentre(bin, n)
		d[0] += w * (m.Colors[3*bin] - cr)
		d[1] += w * (m.Colors[3*bin+1] - cg)
		d[2] += w * (m.Colors[3*bin+2] - cb)
	}
	return min(max(r+d[0], 0), 1), min(max(g+d[1], 0), 1), min(max(b+d[2], 0), 1)
}

// Transfer computes OT colour transfers by barycentric projection
// (docs/method.md, "Colour transfer") with a fixed kernel on the n³ colour
// grid. It holds its buffers, so it must not be used from several
// goroutines at once.
type Transfer struct {
	k          ot.Kernel
	n          int
	a, b, kv   []float64
	src4, dst4 []float64
}

// NewTransfer returns a Transfer with kernel k on the n³ grid; k.Size()
// must be n³. Typical kernels are a *Euclidean (γ = 2σ², e.g. 0.005) or a
// learned heat kernel.
func NewTransfer(k ot.Kernel, n int) (*Transfer, error) {
	if n < 1 {
		return nil, fmt.Errorf("color: transfer: n = %d, want ≥ 1", n)
	}
	N := n * n * n
	if k.Size() != N {
		return nil, fmt.Errorf("color: transfer: kernel size %d, want n³ = %d", k.Size(), N)
	}
	return &Transfer{
		k: k, n: n,
		a: make([]float64, N), b: make([]float64, N), kv: make([]float64, N),
		src4: make([]float64, 4*N), dst4: make([]float64, 4*N),
	}, nil
}

// Map runs iters Sinkhorn iterations (zero means DefaultIterations) between
// the source histogram p and the target histogram q (both length n³,
// positive mass) starting from a = 0, b = 1:
//
//	a = p / K(b),  b = q / K(a)
//
// and returns the barycentric projection of the plan π = diag(a) K diag(b):
//
//	newcolor_i = Σ_j π_ij c_j / Σ_j π_ij = K(b⊙c)_i / K(b)_i,
//
// with c_j the bin centres (BinCentre), clipped to [0,1]. The three colour
// channels and b are projected as one 4-column kernel application. It
// returns an error wrapping ErrNonFinite (naming γ) if a, b or the colours
// stop being finite.
func (t *Transfer) Map(p, q []float64, iters int) (*Map, error) {
	N := len(t.a)
	if len(p) != N || len(q) != N {
		return nil, fmt.Errorf("color: transfer: len(p) = %d, len(q) = %d, want n³ = %d", len(p), len(q), N)
	}
	iters = cmp.Or(iters, DefaultIterations)
	if iters < 0 {
		return nil, fmt.Errorf("color: transfer: iterations = %d, want ≥ 0", iters)
	}
	for i := range N {
		if !(p[i] >= 0) || !(q[i] >= 0) || math.IsInf(p[i], 1) || math.IsInf(q[i], 1) {
			return nil, fmt.Errorf("color: transfer: p[%d] = %v, q[%d] = %v, want finite and ≥ 0", i, p[i], i, q[i])
		}
	}
	a, b, kv := t.a, t.b, t.kv
	clear(a)
	for i := range b {
		b[i] = 1
	}
	for it := range iters {
		if err := t.k.Apply(kv, b, 1); err != nil {
			return nil, fmt.Errorf("color: transfer: iteration %d: %w", it, err)
		}
		for i := range a {
			a[i] = p[i] / kv[i]
		}
		if err := t.k.Apply(kv, a, 1); err != nil {
			return nil, fmt.Errorf("color: transfer: iteration %d: %w", it, err)
		}
		var s float64
		for i := range b {
			b[i] = q[i] / kv[i]
			s += a[i] + b[i]
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("color: transfer: Sinkhorn iteration %d: %w in the scalings (the kernel underflows: increase gamma or use fewer iterations)", it, ErrNonFinite)
		}
	}
	for i := range N {
		cr, cg, cb := BinCentre(i, t.n)
		t.src4[i] = b[i] * cr
		t.src4[N+i] = b[i] * cg
		t.src4[2*N+i] = b[i] * cb
		t.src4[3*N+i] = b[i]
	}
	if err := t.k.Apply(t.dst4, t.src4, 4); err != nil {
		return nil, fmt.Errorf("color: transfer: projection: %w", err)
	}
	m := &Map{Bins: t.n, Colors: make([]float64, 3*N)}
	kb := t.dst4[3*N:]
	for i := range N {
		for c := range 3 {
			v := t.dst4[c*N+i] / kb[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("color: transfer: projected colour of bin %d: %w (K(b) = %v; increase gamma)", i, ErrNonFinite, kb[i])
			}
			m.Colors[3*i+c] = min(max(v, 0), 1)
		}
		if iters > 0 {
			m.MarginalErr += math.Abs(a[i]*kb[i] - p[i])
		}
	}
	return m, nil
}

// TransferOptions configures Transfer.Apply. Zero fields mean the
// documented defaults (those of the reference).
type TransferOptions struct {
	// Iterations is the number L of Sinkhorn iterations; zero means
	// DefaultIterations.
	Iterations int
	// NoBilateral turns the cross-bilateral smoothing of the colour
	// correction off (the reference's default is on).
	NoBilateral bool
	// SigmaSpatial is the bilateral spatial sigma in pixels; zero means
	// min(W,H)/16.
	SigmaSpatial float64
	// SigmaRange is the bilateral range sigma in [0,1] channel units; zero
	// means DefaultSigmaRange (0.1).
	SigmaRange float64
	// Interpolate maps pixels with (*Map).Correct instead of the
	// reference's nearest-bin Lookup: a gmlg extension that removes most of
	// the quantisation to bin centres, which is large at n = 16.
	Interpolate bool
}

// Apply transfers the colours of histogram q onto im, whose own histogram at
// the transfer's n bins is p (docs/method.md, "Colour transfer"):
//
//  1. Map(p, q, Iterations) gives a colour for every bin;
//  2. every pixel takes the colour of its bin (LookupBin), or with
//     Interpolate its own colour plus the interpolated correction (Correct);
//  3. unless NoBilateral, Smooth smooths the correction and clips.
//
// Convert the result with (*Image).NRGBA (truncation to 8 bits, as the
// reference saves it). A nil opt means defaults.
func (t *Transfer) Apply(im *Image, p, q []float64, opt *TransferOptions) (*Image, error) {
	out, _, err := t.ApplyMap(im, p, q, opt)
	return out, err
}

// ApplyMap is Apply that also returns the per-bin colour map of step 1,
// whose Cube is the transfer's LUT, so that the Sinkhorn runs once for both.
func (t *Transfer) ApplyMap(im *Image, p, q []float64, opt *TransferOptions) (*Image, *Map, error) {
	o := *cmp.Or(opt, &TransferOptions{})
	m, err := t.Map(p, q, o.Iterations)
	if err != nil {
		return nil, nil, err
	}
	out := NewImage(im.W, im.H)
	if o.Interpolate {
		m.ApplyCorrect(out, im)
	} else {
		m.Apply(out, im)
	}
	// Without smoothing, out is already in [0,1]: Map and Correct clip.
	if !o.NoBilateral {
		if err := Smooth(out, im, o.SigmaSpatial, o.SigmaRange); err != nil {
			return nil, nil, fmt.Errorf("color: transfer: %w", err)
		}
	}
	return out, m, nil
}

// Smooth replaces the pixel-wise mapped image out by
// clip(im + BF(out − im), 0, 1), where BF is the cross-bilateral grid
// (NewBilateralGrid) applied to each channel of the correction, guided by the
// same channel of im with edge range [0,1]. Zero sigmas mean the defaults
// min(W,H)/16 and DefaultSigmaRange. Channels of im must lie in [0,1].
func Smooth(out, im *Image, sigmaS, sigmaR float64) error {
	if out.W != im.W || out.H != im.H || len(out.Pix) != len(im.Pix) {
		panic(fmt.Sprintf("color: Smooth: out %d×%d, im %d×%d", out.W, out.H, im.W, im.H))
	}
	sigmaS = cmp.Or(sigmaS, float64(min(im.W, im.H))/16)
	sigmaR = cmp.Or(sigmaR, DefaultSigmaRange)
	g, err := NewBilateralGrid(im.H, im.W, sigmaS, sigmaR, 0, 1)
	if err != nil {
		return fmt.Errorf("smooth: %w", err)
	}
	np := im.W * im.H
	d := make([]float64, np)
	e := make([]float64, np)
	for c := range 3 {
		for k := range np {
			d[k] = out.Pix[3*k+c] - im.Pix[3*k+c]
			e[k] = im.Pix[3*k+c]
		}
		if err := g.Filter(d, d, e); err != nil {
			return fmt.Errorf("smooth: channel %d: %w", c, err)
		}
		for k := range np {
			out.Pix[3*k+c] = min(max(im.Pix[3*k+c]+d[k], 0), 1)
		}
	}
	return nil
}

// DirectOptions configures NewDirect; Gamma or SigmaGamma must be set.
type DirectOptions struct {
	// Bins is n; zero means 32 (the reference's ml_direct_transfer default).
	Bins int
	// Gamma is the Euclidean kernel's γ; if zero, γ = 2·SigmaGamma².
	Gamma, SigmaGamma float64
	// DropSaturated selects the reference-compatible histograms (see
	// HistOptions).
	DropSaturated bool
	// Transfer holds the Sinkhorn and bilateral options.
	Transfer TransferOptions
}

// Direct transfers the colours of source images onto one target image
// without any interpolation (docs/method.md, "Direct transfer"): both
// histograms at n bins ("Colour histograms"), the Euclidean kernel with γ,
// then Transfer.ApplyMap. It computes the target's histogram once for all
// sources. A Direct must not be used from several goroutines at once.
type Direct struct {
	tr     *Transfer
	im     *Image
	p      []float64
	hopt   HistOptions
	transf TransferOptions
}

// NewDirect prepares the direct transfers onto target.
func NewDirect(target image.Image, opt DirectOptions) (*Direct, error) {
	n := cmp.Or(opt.Bins, 32)
	gamma := cmp.Or(opt.Gamma, GammaFromSigma(opt.SigmaGamma))
	k, err := NewEuclidean(n, gamma)
	if err != nil {
		return nil, fmt.Errorf("color: direct transfer: %w (set Gamma or SigmaGamma)", err)
	}
	d := &Direct{hopt: HistOptions{Bins: n, DropSaturated: opt.DropSaturated}, transf: opt.Transfer}
	if d.p, err = Histogram(target, &d.hopt); err != nil {
		return nil, fmt.Errorf("color: direct transfer: target: %w", err)
	}
	if d.tr, err = NewTransfer(k, n); err != nil {
		return nil, err
	}
	d.im = FromImage(target)
	return d, nil
}

// From transfers the colours of source onto the target and returns the new
// image with the per-bin colour map, whose Cube is the transfer's LUT.
func (d *Direct) From(source image.Image) (*Image, *Map, error) {
	q, err := Histogram(source, &d.hopt)
	if err != nil {
		return nil, nil, fmt.Errorf("color: direct transfer: source: %w", err)
	}
	return d.tr.ApplyMap(d.im, d.p, q, &d.transf)
}
