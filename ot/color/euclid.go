package color

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/ot"
)

// Euclidean is the separable Gibbs kernel of the squared Euclidean distance
// on the n³ colour grid with nodes {0, 1/(n−1), …, 1}³, not the bin centres
// (docs/method.md, "Euclidean kernel"):
//
//	K[x,x'] = exp(−‖x−x'‖²/γ) = k1d[|i−i'|]·k1d[|j−j'|]·k1d[|k−k'|],
//	k1d[m]  = exp(−(m/(n−1))²/γ),
//
// unnormalised and without any floor, so entries far from the diagonal may
// underflow to 0 for small γ. It implements ot.Kernel; Apply does not
// allocate, but uses a buffer held by the kernel, so one Euclidean must not
// be applied from several goroutines at once.
type Euclidean struct {
	n    int
	k1d  []float64
	kmat []float64 // n×n matrix k1d[|i−m|], row-major
	tmp  []float64
}

var _ ot.Kernel = (*Euclidean)(nil)

// NewEuclidean returns the separable Euclidean kernel on an n³ grid (n ≥ 2)
// with entropic parameter γ > 0. The reference's "sig_gamma" σ corresponds
// to γ = 2σ² (see GammaFromSigma).
func NewEuclidean(n int, gamma float64) (*Euclidean, error) {
	if n < 2 {
		return nil, fmt.Errorf("color: euclidean kernel: n = %d, want ≥ 2", n)
	}
	if !(gamma > 0) || math.IsInf(gamma, 1) {
		return nil, fmt.Errorf("color: euclidean kernel: gamma = %v, want finite and > 0", gamma)
	}
	k := make([]float64, n)
	for m := range n {
		x := float64(m) / float64(n-1)
		k[m] = math.Exp(-x * x / gamma)
	}
	km := make([]float64, n*n)
	for i := range n {
		for m := range n {
			km[i*n+m] = k[max(i-m, m-i)]
		}
	}
	return &Euclidean{n: n, k1d: k, kmat: km, tmp: make([]float64, n*n*n)}, nil
}

// GammaFromSigma returns γ = 2σ², the reference's conversion of its
// "sig_gamma" options.
func GammaFromSigma(sigma float64) float64 { return 2 * sigma * sigma }

// Size returns N = n³.
func (e *Euclidean) Size() int { return e.n * e.n * e.n }

// Apply writes K·src into dst (see ot.Kernel), along the fast (B), medium
// (G) and slow (R) axes in that order. It never returns an error.
func (e *Euclidean) Apply(dst, src []float64, cols int) error {
	N := e.Size()
	if cols < 0 || len(dst) != N*cols || len(src) != N*cols {
		panic(fmt.Sprintf("color: Euclidean.Apply: len(dst)=%d, len(src)=%d, want %d·%d", len(dst), len(src), N, cols))
	}
	n := e.n
	for c := range cols {
		s := src[c*N : (c+1)*N]
		d := dst[c*N : (c+1)*N]
		e.pass(d, s, 1)     // fast axis (B)
		e.pass(e.tmp, d, n) // medium axis (G)
		e.pass(d, e.tmp, n*n)
	}
	return nil
}

// pass convolves in with k1d along the axis of the given stride: in each
// block of n·stride values, output row i (stride contiguous values) is
// Σ_m k1d[|i−m|]·row m, accumulated with contiguous axpys; the fast axis
// (stride 1) uses a dense n×n matrix–vector product instead.
func (e *Euclidean) pass(out, in []float64, stride int) {
	n := e.n
	k := e.k1d
	block := n * stride
	if stride == 1 {
		kk := e.kmat
		for base := 0; base < len(in); base += n {
			src := in[base : base+n]
			dst := out[base : base+n]
			for i := range dst {
				row := kk[i*n : (i+1)*n]
				var sum float64
				for m, v := range src {
					sum += row[m] * v
				}
				dst[i] = sum
			}
		}
		return
	}
	for base := 0; base < len(in); base += block {
		src := in[base : base+block]
		dst := out[base : base+block]
		for i := range n {
			o := dst[i*stride : (i+1)*stride]
			clear(o)
			for m := range n {
				c := k[max(i-m, m-i)]
				r := src[m*stride : (m+1)*stride]
				for q, v := range r {
					o[q] += c * v
				}
			}
		}
	}
}
