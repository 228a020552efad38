package main

import (
	"path/filepath"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
)

// space is the grid or graph of a data folder (dataset.Space).
type space = dataset.Space

// checkSpaceT refuses, as a usage error, a diffusion time given by the
// option flag that is too large for the heat matrix on sp.
func checkSpaceT(sp space, flag string, t float64, steps int) error {
	return flagLimit(sp.Bound().CheckTime(flag, t, steps))
}

// spaceSize returns the size of an objective on sp, without its frames.
func spaceSize(sp space) limits.Objective {
	if sp.IsGraph() {
		return limits.Objective{Graph: sp.Graph}
	}
	d, n := sp.GridSize()
	return limits.Objective{Dim: d, Side: n}
}

// describe records in d what ds is: the checksum and list of its files,
// its grid (Dim, Side) or graph (Edges), vertices and frames per sequence.
func (d *dataParams) describe(ds *dataFolder) error {
	files := ds.set.Files()
	if ds.IsGraph() {
		files = append(files, filepath.Join(ds.set.Dir, dataset.EdgesFile))
	}
	sum, fs, err := rundir.Checksum(files)
	if err != nil {
		return err
	}
	d.Checksum, d.Files, d.Vertices = sum, fs, ds.Graph.N()
	d.Dim, d.Side, d.Edges = 0, 0, 0
	if ds.IsGraph() {
		d.Edges = ds.Graph.NumEdges()
	} else {
		d.Dim, d.Side = ds.GridSize()
	}
	d.Sequences = d.Sequences[:0]
	for _, s := range ds.seqs {
		d.Sequences = append(d.Sequences, len(s.Frames))
	}
	return nil
}
