package color

import (
	"errors"
	"fmt"
	"image"
	"math"
)

// DefaultBins is the number of bins per channel used when HistOptions.Bins
// is zero. It is the reference's learning resolution (16³ = 4096 bins).
const DefaultBins = 16

// ErrEmpty is wrapped by the error for a histogram without mass (e.g. of an
// image whose every pixel has a channel 255, with DropSaturated).
var ErrEmpty = errors.New("color: empty histogram")

// HistOptions configures Histogram. The zero value (or a nil pointer) means
// DefaultBins bins per channel with every pixel counted.
type HistOptions struct {
	// Bins is the number of bins n per channel (so the histogram has n³
	// bins); zero means DefaultBins.
	Bins int
	// DropSaturated drops every pixel with ANY channel equal to 255, as the
	// reference's cv2.calcHist with the range [0,255) does (docs/method.md,
	// "Colour histograms"); by default such channels count in bin n−1.
	DropSaturated bool
}

// Bin returns the bin of an 8-bit channel value v at n bins per channel:
// floor(v·n/255), computed exactly in integers. For v = 255 this is n,
// outside the histogram; callers clamp it to n−1 or drop the pixel.
func Bin(v uint8, n int) int {
	return int(v) * n / 255
}

// Index returns the flat bin index R·n²+G·n+B of bin coordinates (r,g,b)
// (docs/method.md, "Grid and vertex order").
func Index(r, g, b, n int) int {
	return (r*n+g)*n + b
}

// Counts returns the raw colour counts of img at n ≥ 1 bins per channel,
// as float32 at the flat index R·n²+G·n+B (docs/method.md, "Colour
// histograms", step 1), of the non-premultiplied 8-bit channels (16-bit
// images reduced to their high byte; alpha ignored) binned by Bin, 255 in
// bin n−1 or, with dropSaturated, the whole pixel skipped (the reference's
// cv2.calcHist behaviour). It panics if n < 1.
func Counts(img image.Image, n int, dropSaturated bool) []float32 {
	if n < 1 {
		panic(fmt.Sprintf("color: Counts: n = %d < 1", n))
	}
	// Bin lookup table: lut[v] is the bin of v, or -1 for a dropped value.
	var lut [256]int
	for v := range 256 {
		k := Bin(uint8(v), n)
		if k >= n {
			k = n - 1
			if dropSaturated {
				k = -1
			}
		}
		lut[v] = k
	}
	h := make([]float32, n*n*n)
	eachRGB8(img, func(r, g, b uint8) {
		if kr, kg, kb := lut[r], lut[g], lut[b]; kr >= 0 && kg >= 0 && kb >= 0 {
			h[Index(kr, kg, kb, n)]++
		}
	})
	return h
}

// Floor is the relative mass added to every bin before normalisation,
// vmin in the reference: h ← h + Floor·max(h)/N.
const Floor = 1e-6

// Normalize turns counts into a probability histogram exactly as the
// reference does in float32 (docs/method.md, "Colour histograms", steps
// 2–3), with numpy's float32 pairwise sum:
//
//	H2 = H + float32(1e-6·max(H)/N)        (float32 add)
//	h  = H2 / pairwisesum32(H2)            (float32 sum and division)
//
// returned as float64 (each value exactly a float32). All-zero counts give
// an error wrapping ErrEmpty; a negative or non-finite count an error.
func Normalize(counts []float32) ([]float64, error) {
	if len(counts) == 0 {
		return nil, fmt.Errorf("color: normalize: %w (no bins)", ErrEmpty)
	}
	var mx float32
	for i, c := range counts {
		if !(c >= 0) || math.IsInf(float64(c), 1) {
			return nil, fmt.Errorf("color: normalize: count %d is %v, want finite and ≥ 0", i, c)
		}
		mx = max(mx, c)
	}
	if mx == 0 {
		return nil, fmt.Errorf("color: normalize: %w (all %d counts are zero; with DropSaturated, every pixel may have a channel equal to 255)", ErrEmpty, len(counts))
	}
	// numpy 1.x: vmin*H.max()/N is a float64 scalar, cast to float32 for
	// the float32 array add.
	eps := float32(Floor * float64(mx) / float64(len(counts)))
	h2 := make([]float32, len(counts))
	for i, c := range counts {
		h2[i] = c + eps
	}
	s := pairwiseSum32(h2)
	out := make([]float64, len(h2))
	for i, v := range h2 {
		out[i] = float64(v / s)
	}
	return out, nil
}

// Histogram returns the normalised colour histogram of img (length n³,
// flat index R·n²+G·n+B, summing to 1 up to float32 round-off), computed as
// Normalize(Counts(img, n, opt.DropSaturated)). A nil opt means defaults.
func Histogram(img image.Image, opt *HistOptions) ([]float64, error) {
	n := DefaultBins
	if opt != nil && opt.Bins != 0 {
		n = opt.Bins
	}
	if n < 1 {
		return nil, fmt.Errorf("color: histogram: Bins = %d, want ≥ 1", n)
	}
	drop := opt != nil && opt.DropSaturated
	h, err := Normalize(Counts(img, n, drop))
	if err != nil {
		return nil, fmt.Errorf("color: histogram: %w", err)
	}
	return h, nil
}

// pairwiseSum32 sums x in float32 the way numpy's pairwise summation does
// for a contiguous float32 array: fewer than 8 elements are summed in
// order; up to 128 elements use 8 interleaved partial sums combined as
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) followed by the remainder in order;
// larger inputs are split at n2 = n/2 − (n/2 mod 8) and both halves summed
// recursively. The reduction starts from 0, so the total is 0 + sum.
func pairwiseSum32(x []float32) float32 {
	return 0 + pairwise32(x)
}

func pairwise32(x []float32) float32 {
	n := len(x)
	switch {
	case n < 8:
		var s float32
		for _, v := range x {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float32
		copy(r[:], x[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range 8 {
				r[j] += x[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += x[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwise32(x[:n2]) + pairwise32(x[n2:])
	}
}
