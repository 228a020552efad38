package dataset

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
)

// PadMetric returns the metric parameters θ of kind k in the [d,N] layout
// of metric files, the reference's (docs/method.md, "Metric
// parameterisations"): entry [p,v] belongs to the edge that leaves vertex
// v along the axis of stride n^p, zero where there is none.
func PadMetric(g *kernel.Graph, k learn.MetricKind, theta []float64) []float64 {
	if k == learn.VertexMetric {
		return append([]float64(nil), theta...)
	}
	out := make([]float64, len(g.Dims())*g.N())
	g.PadEdges(out, theta)
	return out
}

// UnpadMetric is the inverse of PadMetric.
func UnpadMetric(g *kernel.Graph, k learn.MetricKind, padded []float64) []float64 {
	if k == learn.VertexMetric {
		return append([]float64(nil), padded...)
	}
	out := make([]float64, g.NumEdges())
	g.UnpadEdges(out, padded)
	return out
}

// WriteMetric writes the metric θ of kind k on grid g to path as a float64
// [d,N] .npy file (see WriteNpyFile).
func WriteMetric(path string, g *kernel.Graph, k learn.MetricKind, theta []float64) error {
	d := len(g.Dims())
	return WriteNpyFile(path, &Array{Shape: []int{d, g.N()}, Data: PadMetric(g, k, theta)})
}

// ReadMetric reads a metric file for grid g in the [d,N] layout (or
// [d,n,…,n]) and returns the parameters θ of kind k, checking that every
// used value is positive and finite.
func ReadMetric(path string, g *kernel.Graph, k learn.MetricKind) ([]float64, error) {
	a, err := ReadNpyFile(path)
	if err != nil {
		return nil, err
	}
	d, n, N := len(g.Dims()), g.Dims()[0], g.N()
	ok := len(a.Shape) == 2 && a.Shape[0] == d && a.Shape[1] == N
	if len(a.Shape) == d+1 && a.Shape[0] == d {
		ok = true
		for _, s := range a.Shape[1:] {
			ok = ok && s == n
		}
	}
	if !ok {
		return nil, fmt.Errorf("metric file %s: shape %s does not match the data's grid (%d-D, side %d): want %s",
			path, ShapeString(a.Shape), d, n, ShapeString([]int{d, N}))
	}
	theta := UnpadMetric(g, k, a.Data)
	for i, v := range theta {
		if !(v > 0) || math.IsInf(v, 0) {
			where := i
			if k == learn.EdgeMetric {
				from, _ := g.Edge(i)
				where = g.Axis(i)*N + from
			}
			return nil, fmt.Errorf("metric file %s: value %g at [%d, %d] is not a positive finite number", path, v, where/N, where%N)
		}
	}
	return theta, nil
}
