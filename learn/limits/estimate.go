package limits

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// Objective is what the memory of a learning objective, or of a forward
// interpolation, depends on. The zero value of each field means none
// (no frames, no Anderson blocks, …); exactly one of Graph and Dim/Side
// names the space.
type Objective struct {
	Dim, Side  int           // the grid's dimension and side
	Graph      *kernel.Graph // a general graph instead of the grid, or nil
	Interior   int           // interior frames over all sequences
	Endpoints  int           // endpoint frames (the poles) over all sequences
	Iterations int           // Sinkhorn iterations L
	Steps      int           // heat sub-steps S
	Fast       bool          // fast mode: no tape, adjoint and Anderson blocks
	Anderson   int           // fast mode's Anderson depth
	Store      bool          // exact mode: every heat sub-step kept for the adjoint
	Forward    bool          // interpolation only: no tape, no adjoint
}

// Frames counts the interior and endpoint frames of sequences with the
// given numbers of frames (the first and last of each are the poles), for
// Objective.Interior and Objective.Endpoints.
func Frames(counts ...int) (interior, endpoints int) {
	for _, k := range counts {
		interior += max(k-2, 0)
		endpoints += min(k, 2)
	}
	return interior, endpoints
}

// Bytes estimates the memory of the objective: the Sinkhorn workspace as
// ot.Interpolator.MemoryBytes documents it (C = 2·interior columns of N
// values), the adjoint's kept heat half-chains, the factor, and the
// observations with a few metric-sized vectors.
func (s Objective) Bytes() float64 {
	nv, factor, metric := s.space()
	c, e := float64(2*s.Interior), float64(s.Endpoints)
	var cols float64
	switch {
	case s.Forward:
		cols = 5.5*c + 2*e + 2
	case s.Fast:
		restart := float64(ot.DefaultAdjointRestart)
		cols = 13.5*c + 6*e + 3 + (2*restart+3)*c + float64(2*s.Anderson+3)*c
	default:
		cols = (2.5*float64(s.Iterations)+5)*c + 4*e + 3 + 2*(math.Ceil(float64(s.Steps)/2)+2)*c
		if s.Store {
			cols += 2 * float64(s.Iterations*s.Steps*s.Interior)
		}
	}
	frames := float64(s.Interior + s.Endpoints)
	return 8*nv*(cols+frames) + 8*4*metric + factor
}

// Vertices returns the number of vertices of the grid or graph.
func (s Objective) Vertices() float64 {
	nv, _, _ := s.space()
	return nv
}

// space returns the vertices, the factor's bytes and the metric's length
// (parameters) of the grid or graph. On a general graph the factor is
// taken as a 2-D grid's with as many vertices, plus one entry per edge:
// right for planar meshes, low for graphs with large separators.
func (s Objective) space() (vertices, factor, metric float64) {
	if s.Graph != nil {
		nv, ne := float64(s.Graph.N()), float64(s.Graph.NumEdges())
		return nv, 16 * (2*nv*math.Log2(max(nv, 2)) + ne), ne
	}
	nv := gridVertices(s.Dim, s.Side)
	return nv, FactorBytes(s.Dim, s.Side), float64(s.Dim) * nv
}

// Where describes the grid or graph for messages: "the 2-D grid of side
// 20" or "the graph of 400 vertices".
func (s Objective) Where() string {
	if s.Graph != nil {
		return fmt.Sprintf("the graph of %d vertices", s.Graph.N())
	}
	return fmt.Sprintf("the %d-D grid of side %d", s.Dim, s.Side)
}

// Check compares the estimate with the memory budget (see Memory); what
// names the computation, hint what to reduce.
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

// ColourTransferPixelBytes is what a colour transfer allocates per pixel
// of its target image: the image as three float64 channels, the corrected
// copy, the two planes of the bilateral smoothing and the 8-bit output.
const ColourTransferPixelBytes = 24 + 24 + 16 + 4

// ColourBytes estimates the memory of the colour work on n³ bins with
// frames histograms and a Sinkhorn interpolation between two of them
// (frames − 2 barycenters, forward only), the transfer's workspace and,
// with a heat kernel, its factor.
func ColourBytes(n, frames int, heat bool) float64 {
	size := Objective{Dim: 3, Side: n, Interior: max(frames-2, 0), Endpoints: min(frames, 2), Forward: true}
	need := size.Bytes() - FactorBytes(3, n) + 8*gridVertices(3, n)*20
	if heat {
		need += FactorBytes(3, n)
	}
	return need
}
