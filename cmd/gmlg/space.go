package main

import (
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/draw"
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

// framesPicture draws the frames of every part on sp (Space.FramesImage).
func framesPicture(sp space, path string, parts []draw.Frames, title string) (bool, error) {
	img, err := sp.FramesImage(parts, title)
	return runlog.WriteImage(path, img, err)
}
