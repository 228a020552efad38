package main

// Size checks of the subcommands: the fixed limits and the memory budget
// of package limits applied to what each command allocates. Every size is
// checked before the allocation it implies. A size given by a flag is a
// usage error (exit status 2); a size read from a file is a failure (1).

import (
	"fmt"

	"github.com/gmlg/gmlg/bench"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
)

// flagLimit makes a limit error about a flag a usage error.
func flagLimit(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// checkThreads checks a thread count flag (0 means the default).
func checkThreads(flagName string, n int) error {
	return flagLimit(limits.Threads(flagName, n))
}

// checkFrames checks the number of frames an interpolation writes.
func checkFrames(flagName string, n int) error {
	return flagLimit(limits.Count(flagName, n, limits.MaxFrames, "frames"))
}

// checkBins checks a number of colour bins per channel, from a flag.
func checkBins(flagName string, n int) error {
	return flagLimit(limits.Count(flagName, n, limits.MaxBins, "bins per channel (images have 8 bits per channel)"))
}

// stripFrameBytes is the memory per frame of a picture strip: a frame of
// at most 160 pixels a side with its margins, 4 bytes per pixel, and the
// frame's field.
const stripFrameBytes = 200 * 200 * 4

// checkInterpMemory checks that interp's interpolation of p.Frames frames
// on sp, and its picture, fit the budget.
func checkInterpMemory(p *interpParams, sp dataset.Space) error {
	size := limits.SpaceOf(sp)
	size.Interior, size.Endpoints = limits.Frames(p.Frames)
	size.Forward = true
	need := size.Bytes() + float64(p.Frames)*stripFrameBytes
	if p.Method == "linear" {
		need = 8*size.Vertices()*float64(p.Frames+2) + float64(p.Frames)*stripFrameBytes
	}
	what := fmt.Sprintf("the %s interpolation of %d frames on %s", p.Method, p.Frames, size.Where())
	return limits.Memory(what, need, "pass a smaller --frames")
}

// checkSunsetSize checks sunset's prolonged bins n_hi (from the run's or
// --bins' n and --prolong) against MaxBins, and its memory.
func checkSunsetSize(p *sunsetParams) error {
	if p.BinsHi > limits.MaxBins {
		return usagef("--prolong %d: n_hi = 2^%d·(%d−1)+1 = %d bins per channel; at most %d; pass a smaller --prolong or --bins",
			p.Prolong, p.Prolong, p.Bins, p.BinsHi, limits.MaxBins)
	}
	what := fmt.Sprintf("the %s interpolation of %d frames at %d³ bins", p.Method, p.Frames, p.BinsHi)
	return limits.Memory(what, limits.ColourBytes(p.BinsHi, p.Frames, p.Method == "learned"), "pass a smaller --frames, --prolong or --bins")
}

// checkBenchRow checks, before a child process measures it, the row r of
// gmlg bench with the settings s against the grid limit and the memory
// budget of learn's objective, as usage errors (the rows come from -rows).
func checkBenchRow(s bench.Spec, r bench.Row) error {
	where := "-rows " + r.String()
	if err := flagLimit(limits.Vertices(where, r.D, r.N)); err != nil {
		return err
	}
	s = s.Defaults()
	size := limits.Objective{Dim: r.D, Side: r.N, Iterations: s.Sinkhorn, Steps: r.Steps, Store: s.Store}
	size.Interior, size.Endpoints = limits.Frames(s.Frames)
	return flagLimit(size.Check("the objective of "+where, "choose a smaller row"))
}

// checkSpaceT refuses, as a usage error, a diffusion time given by the
// option flag that is too large for the heat matrix on sp.
func checkSpaceT(sp dataset.Space, flag string, t float64, steps int) error {
	return flagLimit(sp.Bound().CheckTime(flag, t, steps))
}
