package color

import (
	"fmt"
	"math"
)

// BilateralGrid is a cross (joint) bilateral filter approximated on a
// downsampled grid (Paris–Durand / Chen et al.), exactly as the reference's
// bilateral_approximation with sampling = sigma (docs/method.md,
// "Bilateral grid"): it smooths a data image while respecting the edges of
// a second image with values in [EdgeMin, EdgeMax].
//
// The grid has shape (⌊(H−1)/σs⌋+7, ⌊(W−1)/σs⌋+7, ⌊(EdgeMax−EdgeMin)/σr⌋+7)
// (padding 3 on each side). Filtering scatters each pixel (i,j) with its
// data value and a weight 1 into cell (round(i/σs)+3, round(j/σs)+3,
// round((e−EdgeMin)/σr)+3), rounding half to even, convolves data and
// weights with the unnormalised 3×3×3 kernel exp(−½(dx²+dy²+dz²)) under a
// zero boundary, divides where the blurred weight is non-zero (0 elsewhere)
// and reads back by trilinear interpolation at (i/σs+3, j/σs+3,
// (e−EdgeMin)/σr+3). Filter does not allocate; a BilateralGrid must not be
// used from several goroutines at once.
type BilateralGrid struct {
	h, w              int
	sigmaS, sigmaR    float64
	edgeMin, edgeMax  float64
	nx, ny, nz        int
	data, weight, tmp []float64
}

const bilateralPad = 3

// blurSide is the weight of the two neighbours in the blur, e^{-1/2}.
var blurSide = math.Exp(-0.5)

// NewBilateralGrid prepares a cross bilateral filter for h×w images with
// spatial sigma sigmaS (pixels) and range sigma sigmaR (edge units), for
// edge values in [edgeMin, edgeMax].
func NewBilateralGrid(h, w int, sigmaS, sigmaR, edgeMin, edgeMax float64) (*BilateralGrid, error) {
	switch {
	case h < 1 || w < 1:
		return nil, fmt.Errorf("color: bilateral grid: image %d×%d is empty", h, w)
	case !(sigmaS > 0) || math.IsInf(sigmaS, 1):
		return nil, fmt.Errorf("color: bilateral grid: sigmaS = %v, want finite and > 0", sigmaS)
	case !(sigmaR > 0) || math.IsInf(sigmaR, 1):
		return nil, fmt.Errorf("color: bilateral grid: sigmaR = %v, want finite and > 0", sigmaR)
	case !(edgeMax > edgeMin) || math.IsInf(edgeMin, 0) || math.IsInf(edgeMax, 0):
		return nil, fmt.Errorf("color: bilateral grid: edge range [%v, %v] is empty or not finite", edgeMin, edgeMax)
	}
	g := &BilateralGrid{
		h: h, w: w, sigmaS: sigmaS, sigmaR: sigmaR, edgeMin: edgeMin, edgeMax: edgeMax,
		nx: int(math.Floor(float64(h-1)/sigmaS)) + 1 + 2*bilateralPad,
		ny: int(math.Floor(float64(w-1)/sigmaS)) + 1 + 2*bilateralPad,
		nz: int(math.Floor((edgeMax-edgeMin)/sigmaR)) + 1 + 2*bilateralPad,
	}
	size := g.nx * g.ny * g.nz
	if size > 1<<28 {
		return nil, fmt.Errorf("color: bilateral grid: %d×%d×%d cells is too many; increase sigmaS or sigmaR", g.nx, g.ny, g.nz)
	}
	g.data = make([]float64, size)
	g.weight = make([]float64, size)
	g.tmp = make([]float64, size)
	return g, nil
}

// Filter writes the cross-bilateral filtering of data guided by edge into
// dst. All three are h×w row-major (pixel (i,j) at index i·w+j). NaN data
// pixels are skipped when scattering. dst may alias data but not edge. It
// panics on length mismatch and returns an error if an edge value is NaN or
// outside [edgeMin, edgeMax].
func (g *BilateralGrid) Filter(dst, data, edge []float64) error {
	n := g.h * g.w
	if len(dst) != n || len(data) != n || len(edge) != n {
		panic(fmt.Sprintf("color: BilateralGrid.Filter: lengths %d, %d, %d, want %d", len(dst), len(data), len(edge), n))
	}
	for k, e := range edge {
		if !(e >= g.edgeMin && e <= g.edgeMax) {
			return fmt.Errorf("color: bilateral grid: edge[%d] = %v outside [%v, %v]", k, e, g.edgeMin, g.edgeMax)
		}
	}
	clear(g.data)
	clear(g.weight)
	nyz := g.ny * g.nz
	for i := range g.h {
		ci := int(math.RoundToEven(float64(i)/g.sigmaS)) + bilateralPad
		for j := range g.w {
			v := data[i*g.w+j]
			if math.IsNaN(v) {
				continue
			}
			cj := int(math.RoundToEven(float64(j)/g.sigmaS)) + bilateralPad
			ck := int(math.RoundToEven((edge[i*g.w+j]-g.edgeMin)/g.sigmaR)) + bilateralPad
			c := ci*nyz + cj*g.nz + ck
			g.data[c] += v
			g.weight[c]++
		}
	}
	g.blur(g.data)
	g.blur(g.weight)
	for c, wt := range g.weight {
		if wt != 0 {
			g.data[c] /= wt
		} else {
			g.data[c] = 0
		}
	}
	for i := range g.h {
		x := float64(i)/g.sigmaS + bilateralPad
		for j := range g.w {
			y := float64(j)/g.sigmaS + bilateralPad
			z := (edge[i*g.w+j]-g.edgeMin)/g.sigmaR + bilateralPad
			dst[i*g.w+j] = g.trilinear(x, y, z)
		}
	}
	return nil
}

// blur convolves a grid with [e^{-1/2}, 1, e^{-1/2}] along each axis (the
// separable form of the 3×3×3 Gaussian), zero outside.
func (g *BilateralGrid) blur(a []float64) {
	g.blurAxis(g.tmp, a, g.ny*g.nz, g.nx)
	g.blurAxis(a, g.tmp, g.nz, g.ny)
	g.blurAxis(g.tmp, a, 1, g.nz)
	copy(a, g.tmp)
}

func (g *BilateralGrid) blurAxis(out, in []float64, stride, n int) {
	s := blurSide
	for hi := 0; hi < len(in)/(stride*n); hi++ {
		for lo := range stride {
			base := hi*stride*n + lo
			for i := range n {
				c := base + i*stride
				v := in[c]
				if i > 0 {
					v += s * in[c-stride]
				}
				if i < n-1 {
					v += s * in[c+stride]
				}
				out[c] = v
			}
		}
	}
}

func (g *BilateralGrid) trilinear(x, y, z float64) float64 {
	ix, tx := cell(x, g.nx)
	iy, ty := cell(y, g.ny)
	iz, tz := cell(z, g.nz)
	nyz := g.ny * g.nz
	wx, wy, wz := [2]float64{1 - tx, tx}, [2]float64{1 - ty, ty}, [2]float64{1 - tz, tz}
	var sum float64
	for dx := range 2 {
		for dy := range 2 {
			for dz := range 2 {
				sum += wx[dx] * wy[dy] * wz[dz] * g.data[(ix+dx)*nyz+(iy+dy)*g.nz+iz+dz]
			}
		}
	}
	return sum
}

// cell returns the lower grid index of x (clamped so that index+1 < n) and
// the fractional position within that cell.
func cell(x float64, n int) (int, float64) {
	i := int(math.Floor(x))
	i = min(max(i, 0), n-2)
	return i, x - float64(i)
}
