package learn

import (
	"fmt"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
	"github.com/gmlg/gmlg/ot/color"
)

// Interpolate returns the displacement interpolation of src and dst on g
// at frames evenly spaced times in [0, 1] under the forward model of cfg,
// the one an Objective built with cfg fits: the heat kernel of cfg.Heat
// with the metric θ (of kind cfg.Metric; nil θ means unit edge weights,
// the Euclidean metric of the grid), and Sinkhorn barycenters with
// cfg.Sinkhorn — L iterations from scratch, or converged to its tolerance
// in tolerance mode. The endpoint frames are K(P/K·1), as the objective's
// reconstructions are.
//
// A heat matrix that is not positive definite gives an error wrapping
// factor.ErrNotPosDef (kernel.ExplainNotPosDef explains it), a
// non-finite value one wrapping ot.ErrNonFinite.
func Interpolate(g *kernel.Graph, theta, src, dst []float64, frames int, cfg *Config) ([][]float64, error) {
	w := make([]float64, g.NumEdges())
	switch {
	case theta == nil:
		for i := range w {
			w[i] = 1
		}
	case cfg.Metric == EdgeMetric:
		kernel.EdgeMetric{G: g}.Weights(w, theta)
	default:
		kernel.VertexMetric{G: g}.Weights(w, theta)
	}
	h, err := kernel.NewHeat(g, &cfg.Heat)
	if err != nil {
		return nil, fmt.Errorf("interpolate: %w", err)
	}
	defer h.Close()
	if err := h.SetWeights(w); err != nil {
		return nil, fmt.Errorf("interpolate: %w", err)
	}
	s := cfg.Sinkhorn
	if s.Tol == 0 {
		s = exactModel(*cfg).Sinkhorn
		s.ForwardOnly = true
	}
	ip, err := ot.NewInterpolator(h, []ot.Sequence{{Source: src, Target: dst, Frames: frames}}, &s)
	if err != nil {
		return nil, fmt.Errorf("interpolate: %w", err)
	}
	all, err := ip.Forward()
	if err != nil {
		return nil, fmt.Errorf("interpolate: %w", err)
	}
	return all[0], nil
}

// InterpolateLinear returns (1−t)·src + t·dst at frames evenly spaced
// times t in [0, 1] (ot.Linspace): the interpolation without transport,
// to compare a displacement interpolation with.
func InterpolateLinear(src, dst []float64, frames int) [][]float64 {
	return color.Linear(src, dst, ot.Linspace(frames))
}
