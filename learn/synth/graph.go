package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gmlg/gmlg/kernel"
)

// PolePairs are the poles of the built-in sequences, in order: the reference's
// sticks (docs/method.md, "Synthetic data"), then Gaussians crossing the unit
// square along other directions, so that several sequences probe the metric in
// different places (the paper's multi-sequence experiment).
var PolePairs = [][2]Pole{
	{StickTopLeft, StickBottomRight},
	{{Shape: "gauss", X0: 0.2, Y0: 0.8, Sigma: 0.07}, {Shape: "gauss", X0: 0.8, Y0: 0.2, Sigma: 0.07}},
	{{Shape: "gauss", X0: 0.2, Y0: 0.2, Sigma: 0.07}, {Shape: "gauss", X0: 0.8, Y0: 0.8, Sigma: 0.07}},
	{{Shape: "gauss", X0: 0.5, Y0: 0.12, Sigma: 0.07}, {Shape: "gauss", X0: 0.5, Y0: 0.88, Sigma: 0.07}},
	{{Shape: "gauss", X0: 0.12, Y0: 0.5, Sigma: 0.07}, {Shape: "gauss", X0: 0.88, Y0: 0.5, Sigma: 0.07}},
}

// Graph is a synthetic dataset's graph that is not a grid: the graph, the
// coordinates of its vertices and its true edge weights. The coordinates
// lie on a surface that the unit square of the grid's poles is mapped onto
// (the square itself, or the hemisphere z ≥ 0 of a sphere), and poles and
// the true metric are carried over from the square, so that every kind of
// graph sees the same experiment. The true metric has a slow region: an
// edge with midpoint m weighs 1 − 0.8·exp(−|m − c|²/(2σ²)), c the image of
// the square's centre and σ that of 0.15, so that an edge at the centre
// conducts five times less than one far from it.
type Graph struct {
	G *kernel.Graph
	// Coords holds the vertex coordinates, row-major [N,Dim].
	Coords []float64
	// Dim is 2 (points in the unit square) or 3 (points on the unit sphere).
	Dim int
	// Weights are the true edge weights, in the order of G's edges.
	Weights []float64
}

// GeometricRadius sets the edges of a geometric graph on n² points: two
// points closer than GeometricRadius/n, twice their typical spacing, are
// joined, which gives each vertex about π·2² ≈ 12 neighbours and a
// connected graph with overwhelming probability.
const GeometricRadius = 2.0

// Geometric returns the random geometric graph on n² points drawn
// uniformly in the unit square (seeded by seed), with its slow region. It
// fails when the graph is not connected.
func Geometric(n int, seed uint64) (*Graph, error) {
	N := n * n
	rng := rand.New(rand.NewPCG(seed, seed))
	xy := make([]float64, 2*N)
	for i := range xy {
		xy[i] = rng.Float64()
	}
	g, err := kernel.FromEdges(N, nearPairs(xy, GeometricRadius/float64(n)))
	if err != nil {
		return nil, err
	}
	if c := g.Components(); c != 1 {
		return nil, fmt.Errorf("synth: the geometric graph of seed %d has %d connected components; try another seed or a larger n", seed, c)
	}
	return newGraph(g, xy, 2), nil
}

// nearPairs returns the pairs i < j of the points xy ([N,2], in the unit
// square) closer than r, binning the points in square cells of side ≥ r
// so that neighbours lie in the same or an adjacent cell.
func nearPairs(xy []float64, r float64) [][2]int {
	N := len(xy) / 2
	cells := max(1, int(1/r))
	cell := func(v float64) int { return min(int(v*float64(cells)), cells-1) }
	bins := make([][]int, cells*cells)
	for i := range N {
		k := cell(xy[2*i+1])*cells + cell(xy[2*i])
		bins[k] = append(bins[k], i)
	}
	var edges [][2]int
	for i := range N {
		cx, cy := cell(xy[2*i]), cell(xy[2*i+1])
		for y := max(cy-1, 0); y <= min(cy+1, cells-1); y++ {
			for x := max(cx-1, 0); x <= min(cx+1, cells-1); x++ {
				for _, j := range bins[y*cells+x] {
					if j > i && math.Hypot(xy[2*j]-xy[2*i], xy[2*j+1]-xy[2*i+1]) < r {
						edges = append(edges, [2]int{i, j})
					}
				}
			}
		}
	}
	return edges
}

// newGraph returns the Graph of g with the given coordinates and its slow
// region.
func newGraph(g *kernel.Graph, coords []float64, dim int) *Graph {
	sg := &Graph{G: g, Coords: coords, Dim: dim, Weights: make([]float64, g.NumEdges())}
	c, unit := sg.embed(0.5, 0.5)
	sigma := unit * 0.15
	for e := range sg.Weights {
		i, j := g.Edge(e)
		d2 := 0.0
		for k := range dim {
			m := (coords[i*dim+k]+coords[j*dim+k])/2 - c[k]
			d2 += m * m
		}
		sg.Weights[e] = 1 - 0.8*math.Exp(-d2/(2*sigma*sigma))
	}
	return sg
}

// embed maps the point (x, y) of the unit square onto the graph's surface
// and returns the length there of a unit of the square. In the plane that
// is the point itself and 1; on the sphere, longitude (x − ½)·π and
// latitude (y − ½)·π about the z axis's end, so that the square covers the
// hemisphere z ≥ 0 (which spans π across) with x and y along the axes of
// the same names (the hemisphere's pictures look at it from +z).
func (sg *Graph) embed(x, y float64) ([]float64, float64) {
	if sg.Dim == 2 {
		return []float64{x, y}, 1
	}
	lon, lat := (x-0.5)*math.Pi, (y-0.5)*math.Pi
	return []float64{math.Cos(lat) * math.Sin(lon), math.Sin(lat), math.Cos(lat) * math.Cos(lon)}, math.Pi
}

// Pole returns the histogram of pole p on the graph's vertices: a Gaussian
// of standard deviation p.Sigma (0.07 for a rectangle), scaled to the
// surface, centred on the image of p's centre, floored as Pole.Histogram
// does and normalised to sum 1.
func (sg *Graph) Pole(p Pole) []float64 {
	x0, y0, sigma := p.X0, p.Y0, p.Sigma
	if p.Shape == "rect" {
		x0, y0, sigma = (p.X0+p.X1)/2, (p.Y0+p.Y1)/2, 0.07
	}
	c, unit := sg.embed(x0, y0)
	s := sigma * unit
	h := make([]float64, sg.G.N())
	for i := range h {
		d2 := 0.0
		for k := range sg.Dim {
			d := sg.Coords[i*sg.Dim+k] - c[k]
			d2 += d * d
		}
		h[i] = math.Exp(-d2 / (2 * s * s))
	}
	floorNormalize(h)
	return h
}
