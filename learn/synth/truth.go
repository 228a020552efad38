package synth

import (
	"math"

	"github.com/gmlg/gmlg/kernel"
)

// CarriesMass reports, for every edge of g, whether in at least one of the
// frames (each summing to one) both of its ends hold more than the uniform
// share 1/N. Only such edges are crossed by the displacement interpolations
// that the frames sample, so only their weights are determined by the data;
// the others stay near their starting value.
func CarriesMass(g *kernel.Graph, frames [][][]float64) []bool {
	share := 1 / float64(g.N())
	out := make([]bool, g.NumEdges())
	for _, seq := range frames {
		for _, h := range seq {
			for e := range out {
				i, j := g.Edge(e)
				out[e] = out[e] || (h[i] > share && h[j] > share)
			}
		}
	}
	return out
}

// Pearson returns the Pearson correlation of a and b (of equal lengths)
// over the entries where keep is true (all of them when keep is nil), and
// false when it is undefined (fewer than two values, or a constant).
func Pearson(a, b []float64, keep []bool) (float64, bool) {
	var ma, mb, count float64
	for e := range a {
		if keep == nil || keep[e] {
			ma += a[e]
			mb += b[e]
			count++
		}
	}
	ma /= count
	mb /= count
	var cab, caa, cbb float64
	for e := range a {
		if keep == nil || keep[e] {
			cab += (a[e] - ma) * (b[e] - mb)
			caa += (a[e] - ma) * (a[e] - ma)
			cbb += (b[e] - mb) * (b[e] - mb)
		}
	}
	r := cab / math.Sqrt(caa*cbb)
	if math.IsNaN(r) {
		return 0, false
	}
	return r, true
}
