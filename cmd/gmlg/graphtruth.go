package main

import (
	"path/filepath"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/dataset"
)

// carriesMass reports, for every edge of g, whether it carries mass in the
// observed frames: whether in at least one frame (each summing to one)
// both of its ends hold more than the uniform share 1/N. Only such edges
// are crossed by the displacement interpolations that the frames sample,
// so only their weights are determined by the data; the weights of the
// others stay near their starting value.
func carriesMass(g *kernel.Graph, frames [][][]float64) []bool {
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

// graphTruthCorrelation compares the learned edge weights w of a graph
// folder with the true ones that gmlg synth --graph writes there
// (metric_true.npy): it returns the Pearson correlation over all edges and
// over the edges that carry mass in frames (carriesMass), and false when
// there is no usable truth.
func graphTruthCorrelation(dataDir string, g *kernel.Graph, w []float64, frames [][][]float64) (all, mass float64, ok bool) {
	a, err := dataset.ReadNpyFile(filepath.Join(dataDir, graphTruthName))
	if err != nil || len(a.Shape) != 1 || a.Shape[0] != g.NumEdges() {
		return 0, 0, false
	}
	if all, ok = pearson(a.Data, w); !ok {
		return 0, 0, false
	}
	var wt, wl []float64
	for e, c := range carriesMass(g, frames) {
		if c {
			wt, wl = append(wt, a.Data[e]), append(wl, w[e])
		}
	}
	mass, ok = pearson(wt, wl)
	return all, mass, ok
}
