package main

import (
	"fmt"
	"path/filepath"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/ot"
)

// modelSource says where the settings of a barycenter model come from:
// "flags" when any of the named flags was given on the command line, else
// the run's params.json, else "defaults". interp, sunset and eval print it
// so that a metric is never silently rendered under another model than the
// one it was learned with.
func modelSource(run string, set map[string]bool, names ...string) string {
	for _, n := range names {
		if set[n] {
			return "flags"
		}
	}
	if run != "" {
		return "from " + filepath.Join(run, "params.json")
	}
	return "defaults"
}

// modelLine is the one line that names the model of an interpolation or an
// evaluation: fast (Sinkhorn converged to tol; 0 means learn.DefaultTol)
// or exact (L iterations from scratch), and where that came from.
func modelLine(fast bool, tol float64, L int, source string) string {
	if fast {
		if tol == 0 {
			tol = learn.DefaultTol
		}
		return fmt.Sprintf("model: fast, tol %g (%s)", tol, source)
	}
	return fmt.Sprintf("model: exact, L=%d (%s)", L, source)
}

// fastInterp interpolates src and dst under k at frames evenly spaced times
// with Sinkhorn barycenters converged to s's tolerance (fast mode's model:
// the endpoint frames are K(P/K·1)).
func fastInterp(k ot.Kernel, src, dst []float64, frames int, s *ot.Settings) ([][]float64, error) {
	if s.Tol == 0 {
		s.Tol = learn.DefaultTol
	}
	fi, err := ot.NewInterpolator(k, []ot.Sequence{{Source: src, Target: dst, Frames: frames}}, s)
	if err != nil {
		return nil, err
	}
	all, err := fi.Forward()
	if err != nil {
		return nil, err
	}
	return all[0], nil
}
