package limits

import (
	"cmp"
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/ot"
)

// Objective is what the memory of a learning objective, or of a forward
// interpolation, depends on; exactly one of Graph and Dim/Side names the
// space.
type Objective struct {
	Dim, Side  int           // the grid's dimension and side
	Graph      *kernel.Graph // a general graph instead of the grid, or nil
	Interior   int           // interior frames over all sequences
	Endpoints  int           // endpoint frames (the poles) over all sequences
	Iterations int           // Sinkhorn iterations L; 0 means ot.DefaultIterations
	Steps      int           // heat sub-steps S
	Fast       bool          // fast mode: no tape, adjoint and Anderson blocks
	Anderson   int           // fast mode's Anderson depth
	Store      bool          // exact mode: every heat sub-step kept for the adjoint
	Forward    bool          // interpolation only: no tape, no adjoint
}

// SpaceOf returns the Objective of sp, its frames left out: its graph, or
// its grid's dimension and side.
func SpaceOf(sp dataset.Space) Objective {
	if sp.IsGraph() {
		return Objective{Graph: sp.Graph}
	}
	d, n := sp.GridSize()
	return Objective{Dim: d, Side: n}
}

// Frames counts Objective.Interior and Objective.Endpoints of sequences
// with the given numbers of frames.
func Frames(counts ...int) (interior, endpoints int) {
	for _, k := range counts {
		interior += max(k-2, 0)
		endpoints += min(k, 2)
	}
	return interior, endpoints
}

// Bytes estimates the memory of the objective (learn.ObjectiveBytes) or,
// with Forward, of the interpolation's workspace (ot.WorkspaceBytes) with
// the frames handed back, the metric and its edge weights; plus the heat
// kernel's (kernelBytes). Fast mode is taken with the GMRES adjoint, the
// larger workspace.
func (s Objective) Bytes() float64 {
	nv, params, edges := s.space()
	n, c, e := count(nv), 2*s.Interior, s.Endpoints
	set := ot.Settings{Iterations: s.Iterations, ForwardOnly: s.Forward}
	if s.Fast {
		set = ot.Settings{Tol: learn.DefaultTol, Gradient: ot.ImplicitGMRES, Anderson: s.Anderson, ForwardOnly: s.Forward}
	}
	if s.Forward {
		frames := float64(s.Interior + s.Endpoints)
		return ot.WorkspaceBytes(n, c, e, &set) + 8*(nv*frames+params+edges) + s.kernelBytes()
	}
	return learn.ObjectiveBytes(n, count(params), count(edges), c, e, &set) + s.kernelBytes()
}

// kernelBytes estimates the memory of the heat kernel: its factor (on a
// general graph, a 2-D grid's with as many vertices plus one entry per
// edge: right for planar meshes, low for graphs with large separators)
// and, in exact mode, the adjoint's kept half-chains, 2·(⌈S/2⌉+2) blocks
// of N×C, and with Store the sub-steps, 2·L·S·F blocks of N values.
func (s Objective) kernelBytes() float64 {
	nv, _, edges := s.space()
	b := FactorBytes(s.Dim, s.Side)
	if s.Graph != nil {
		b = 16 * (2*nv*math.Log2(max(nv, 2)) + edges)
	}
	if s.Forward || s.Fast {
		return b
	}
	b += 8 * nv * 2 * (math.Ceil(float64(s.Steps)/2) + 2) * float64(2*s.Interior)
	if s.Store {
		b += 8 * nv * 2 * float64(cmp.Or(s.Iterations, ot.DefaultIterations)) * float64(s.Steps) * float64(s.Interior)
	}
	return b
}

// count converts a float64 size to an int, capped at 2⁵³ so that an
// absurd size stays absurd instead of overflowing.
func count(x float64) int { return int(min(x, 1<<53)) }

// Vertices returns the number of vertices of the grid or graph.
func (s Objective) Vertices() float64 {
	nv, _, _ := s.space()
	return nv
}

// space returns the vertices, metric parameters and edges of the grid
// (vertex metric) or graph (edge metric).
func (s Objective) space() (vertices, params, edges float64) {
	if s.Graph != nil {
		ne := float64(s.Graph.NumEdges())
		return float64(s.Graph.N()), ne, ne
	}
	nv := gridVertices(s.Dim, s.Side)
	return nv, float64(s.Dim) * nv, float64(s.Dim) * gridVertices(s.Dim-1, s.Side) * float64(s.Side-1)
}

// Where describes the space: "the 2-D grid of side 20" or "the graph of
// 400 vertices".
func (s Objective) Where() string {
	if s.Graph != nil {
		return fmt.Sprintf("the graph of %d vertices", s.Graph.N())
	}
	return fmt.Sprintf("the %d-D grid of side %d", s.Dim, s.Side)
}

// Check checks the estimate with Memory.
func (s Objective) Check(what, hint string) error {
	if s.Graph != nil {
		what = fmt.Sprintf("%s on the graph of %d vertices and %d edges (%d frames)", what, s.Graph.N(), s.Graph.NumEdges(), s.Interior+s.Endpoints)
	} else {
		what = fmt.Sprintf("%s on %s (%d frames)", what, s.Where(), s.Interior+s.Endpoints)
	}
	return Memory(what, s.Bytes(), hint)
}

// gridVertices returns n^d as a float64 (no overflow).
func gridVertices(d, n int) float64 { return math.Pow(float64(n), float64(d)) }

// FactorBytes estimates the memory of the sparse Cholesky factor of the
// Laplacian of a side-n grid in d dimensions: values and indices, 16 bytes
// per entry of L. Nested dissection gives nnz(L) ≈ 1.4·N·log₂N in 2-D
// (38 326 on 50², 195 631 on 100²) and 3.3·n⁴ to 5·n⁴ in 3-D (216 410 on
// 16³, 5 260 269 on 32³), taken here as 2·N·log₂N and 6·n⁴.
func FactorBytes(d, n int) float64 {
	nv := gridVertices(d, n)
	if d == 3 {
		return 16 * 6 * math.Pow(float64(n), 4)
	}
	return 16 * 2 * nv * math.Log2(max(nv, 2))
}

// ColourTransferPixelBytes is what a colour transfer allocates per target
// pixel: three float64 channels, the corrected copy, the two planes of
// the bilateral smoothing and the 8-bit output.
const ColourTransferPixelBytes = 24 + 24 + 16 + 4

// ColourBytes estimates the memory of the colour work on n³ bins: frames
// histograms, the forward interpolation between two of them, the
// transfer's workspace and, with a heat kernel, its factor.
func ColourBytes(n, frames int, heat bool) float64 {
	size := Objective{Dim: 3, Side: n, Interior: max(frames-2, 0), Endpoints: min(frames, 2), Forward: true}
	need := size.Bytes() - FactorBytes(3, n) + 8*gridVertices(3, n)*20
	if heat {
		need += FactorBytes(3, n)
	}
	return need
}
