package main

// Size checks of the subcommands: the fixed limits and the memory budget
// of package limits applied to what each command allocates. Every size is
// checked before the allocation it implies. A size given by a flag is a
// usage error (exit status 2); a size read from a file is a failure (1).

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/limits"
	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
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

// gridVertices returns n^d as a float64 (no overflow).
func gridVertices(d, n int) float64 { return math.Pow(float64(n), float64(d)) }

// factorBytes estimates the memory of the sparse Cholesky factor of the
// Laplacian of a side-n grid in d dimensions: values and indices, 16 bytes
// per entry of L. Nested dissection gives nnz(L) ≈ 1.4·N·log₂N in 2-D
// (38 326 on 50², 195 631 on 100²) and 3.3·n⁴ to 5·n⁴ in 3-D (216 410 on
// 16³, 5 260 269 on 32³), taken here as 2·N·log₂N and 6·n⁴.
func factorBytes(d, n int) float64 {
	nv := gridVertices(d, n)
	if d == 3 {
		return 16 * 6 * math.Pow(float64(n), 4)
	}
	return 16 * 2 * nv * math.Log2(max(nv, 2))
}

// objectiveSize is what the memory of an objective (or of a forward
// interpolation) depends on.
type objectiveSize struct {
	d, n      int           // the grid's dimension and side
	graph     *kernel.Graph // a general graph instead of the grid, or nil
	interior  int           // interior frames over all sequences
	endpoints int           // endpoint frames (the poles) over all sequences
	iters     int           // Sinkhorn iterations L
	steps     int           // heat sub-steps S
	fast      bool          // fast mode: no tape, adjoint and Anderson blocks
	anderson  int           // fast mode's Anderson depth
	store     bool          // exact mode: every heat sub-step kept for the adjoint
	forward   bool          // interpolation only: no tape, no adjoint
}

// bytes estimates the memory of the objective: the Sinkhorn workspace as
// ot.Interpolator.MemoryBytes and ot.FastInterpolator.MemoryBytes document
// it (C = 2·interior columns of N values), the adjoint's kept heat
// half-chains, the factor, and the observations with a few metric-sized
// vectors.
func (s objectiveSize) bytes() float64 {
	nv, factor, metric := s.space()
	c, e := float64(2*s.interior), float64(s.endpoints)
	var cols float64
	switch {
	case s.forward:
		cols = 4.5*c + 2*e + 2
	case s.fast:
		restart := float64(ot.DefaultAdjointRestart)
		cols = 14.5*c + 6*e + 3 + (2*restart+3)*c + float64(2*s.anderson+3)*c
	default:
		cols = (2.5*float64(s.iters)+4)*c + 4*e + 3 + 2*(math.Ceil(float64(s.steps)/2)+2)*c
		if s.store {
			cols += 2 * float64(s.iters*s.steps*s.interior)
		}
	}
	frames := float64(s.interior + s.endpoints)
	return 8*nv*(cols+frames) + 8*4*metric + factor
}

// space returns the vertices, the factor's bytes and the metric's length
// (parameters) of the grid or graph. On a general graph the factor is
// taken as a 2-D grid's with as many vertices, plus one entry per edge:
// right for planar meshes, low for graphs with large separators.
func (s objectiveSize) space() (vertices, factor, metric float64) {
	if s.graph != nil {
		nv, ne := float64(s.graph.N()), float64(s.graph.NumEdges())
		return nv, 16 * (2*nv*math.Log2(max(nv, 2)) + ne), ne
	}
	nv := gridVertices(s.d, s.n)
	return nv, factorBytes(s.d, s.n), float64(s.d) * nv
}

// check compares the estimate with the memory budget; what names the
// computation, hint what to reduce.
func (s objectiveSize) check(what, hint string) error {
	if s.graph != nil {
		what = fmt.Sprintf("%s on the graph of %d vertices and %d edges (%d frames)", what, s.graph.N(), s.graph.NumEdges(), s.interior+s.endpoints)
	} else {
		what = fmt.Sprintf("%s on the %d-D grid of side %d (%d frames)", what, s.d, s.n, s.interior+s.endpoints)
	}
	return limits.Memory(what, s.bytes(), hint)
}

// sequenceSize counts the interior and endpoint frames of sequences with
// the given numbers of frames (the first and last of each are the poles).
func sequenceSize(counts []int) (interior, endpoints int) {
	for _, k := range counts {
		interior += max(k-2, 0)
		endpoints += min(k, 2)
	}
	return interior, endpoints
}

// checkObjectiveMemory checks that the objective of ds under m fits the
// memory budget (a failure, not a usage error: the size comes from the
// data).
func checkObjectiveMemory(ds *dataFolder, m *modelParams) error {
	var counts []int
	for _, s := range ds.seqs {
		counts = append(counts, len(s.Frames))
	}
	size := ds.size()
	size.iters, size.steps, size.fast, size.anderson = m.SinkhornIters, m.Steps, m.Mode == "fast", m.Anderson
	size.interior, size.endpoints = sequenceSize(counts)
	return size.check("the objective", "use fewer or smaller frames, a smaller --sinkhorn-iters, or --mode fast")
}

// stripFrameBytes is the memory per frame of a picture strip: a frame of
// at most 160 pixels a side with its margins, 4 bytes per pixel, and the
// frame's field.
const stripFrameBytes = 200 * 200 * 4

// checkInterpMemory checks that interp's interpolation of p.Frames frames
// on sp, and its picture, fit the budget.
func checkInterpMemory(p *interpParams, sp space) error {
	size := sp.size()
	size.interior, size.endpoints, size.forward = max(p.Frames-2, 0), min(p.Frames, 2), true
	need := size.bytes() + float64(p.Frames)*stripFrameBytes
	if p.Method == "linear" {
		nv, _, _ := size.space()
		need = 8*nv*float64(p.Frames+2) + float64(p.Frames)*stripFrameBytes
	}
	where := fmt.Sprintf("the graph of %d vertices", sp.graph.N())
	if !sp.isGraph() {
		d, n := sp.gridSize()
		where = fmt.Sprintf("the %d-D grid of side %d", d, n)
	}
	what := fmt.Sprintf("the %s interpolation of %d frames on %s", p.Method, p.Frames, where)
	return limits.Memory(what, need, "pass a smaller --frames")
}

// colorTransferPixelBytes is what a colour transfer allocates per pixel of
// its target image: the image as three float64 channels, the corrected
// copy, the two planes of the bilateral smoothing and the 8-bit output.
const colorTransferPixelBytes = 24 + 24 + 16 + 4

// colorBinsBytes estimates the memory of the colour work on n³ bins with
// frames histograms and a Sinkhorn interpolation between two of them
// (interior = frames − 2 barycenters, forward only), the transfer's
// workspace and, with a heat kernel, its factor.
func colorBinsBytes(n, frames int, heat bool) float64 {
	size := objectiveSize{d: 3, n: n, interior: max(frames-2, 0), endpoints: min(frames, 2), forward: true}
	need := size.bytes() - factorBytes(3, n) + 8*gridVertices(3, n)*20
	if heat {
		need += factorBytes(3, n)
	}
	return need
}

// checkSunsetSize checks sunset's prolonged bins n_hi (from the run's or
// -n's n and -prolong) against MaxBins, and its memory.
func checkSunsetSize(o *colorSunsetOptions, n, nHi int) error {
	if nHi > limits.MaxBins {
		return usagef("-prolong %d: n_hi = 2^%d·(%d−1)+1 = %d bins per channel; at most %d; pass a smaller -prolong or -n",
			o.prolong, o.prolong, n, nHi, limits.MaxBins)
	}
	what := fmt.Sprintf("the %s interpolation of %d frames at %d³ bins", o.method, o.frames, nHi)
	return limits.Memory(what, colorBinsBytes(nHi, o.frames, o.method == "learned"), "pass a smaller -frames, -prolong or -n")
}

// checkColorLearnMemory checks that colorlearn's objective on images
// pictures at o.bins³ bins fits the memory budget (fast mode's finest
// level, which dominates its coarser ones).
func checkColorLearnMemory(o *colorLearnOptions, images int) error {
	size := objectiveSize{d: 3, n: o.bins, interior: max(images-2, 0), endpoints: min(images, 2),
		iters: o.L, steps: o.steps, fast: o.mode == "fast", anderson: o.anderson, store: o.store}
	hint := "pass a smaller -n or -L, use fewer images, or -mode fast"
	if o.store {
		hint += ", or leave out -store"
	}
	return size.check("colorlearn's objective", hint)
}

// checkSynthMemory checks that synth's forward interpolation of every
// sequence fits the memory budget.
func checkSynthMemory(p *synthParams) error {
	size := objectiveSize{d: 2, n: p.N, interior: max(p.Frames-2, 0) * p.Sequences, endpoints: min(p.Frames, 2) * p.Sequences, forward: true}
	return size.check("synth's interpolation", "pass a smaller --n, --frames or --sequences")
}
