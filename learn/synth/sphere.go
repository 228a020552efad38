package synth

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
)

// Sphere returns the triangulated unit sphere of about n² vertices, with
// its slow region (see Graph): the geodesic sphere that splits each face
// of the icosahedron into k² triangles, k = max(1, round(n/√10)), and
// projects their corners onto the sphere; it has 10k² + 2 vertices, each
// joined to its 5 or 6 neighbours.
func Sphere(n int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("synth: sphere of size %d, want at least 1", n)
	}
	k := max(1, int(math.Round(float64(n)/math.Sqrt(10))))
	m := newMesh()
	for _, f := range icosahedronFaces {
		m.subdivide(icosahedronVertex(f[0]), icosahedronVertex(f[1]), icosahedronVertex(f[2]), k)
	}
	g, err := kernel.FromEdges(len(m.coords)/3, m.edges)
	if err != nil {
		return nil, err
	}
	return newGraph(g, m.coords, 3), nil
}

// icosahedronFaces are the 20 faces of the icosahedron of icosahedronVertex.
var icosahedronFaces = [20][3]int{
	{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
	{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
	{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
	{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
}

// icosahedronVertex returns vertex i of the icosahedron: the cyclic
// permutations of (0, ±1, ±φ), φ the golden ratio (not yet on the sphere).
func icosahedronVertex(i int) [3]float64 {
	phi := (1 + math.Sqrt(5)) / 2
	a, b := float64(1-2*(i&1)), phi*float64(1-(i&2))
	switch i / 4 {
	case 0:
		return [3]float64{-a, b, 0}
	case 1:
		return [3]float64{0, -a, b}
	}
	return [3]float64{b, 0, -a}
}

// mesh collects the vertices and edges of the subdivided faces, each once.
type mesh struct {
	coords []float64      // row-major [N,3]
	index  map[[3]int]int // vertex of a rounded position
	seen   map[[2]int]bool
	edges  [][2]int
}

func newMesh() *mesh {
	return &mesh{index: map[[3]int]int{}, seen: map[[2]int]bool{}}
}

// vertex returns the index of the point p projected onto the sphere,
// adding it unless a neighbouring face added it already.
func (m *mesh) vertex(p [3]float64) int {
	r := math.Sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])
	var key [3]int
	for k := range p {
		p[k] /= r
		key[k] = int(math.Round(p[k] * 1e9))
	}
	if i, ok := m.index[key]; ok {
		return i
	}
	i := len(m.coords) / 3
	m.coords = append(m.coords, p[0], p[1], p[2])
	m.index[key] = i
	return i
}

// edge adds the edge i–j unless it is there.
func (m *mesh) edge(i, j int) {
	key := [2]int{min(i, j), max(i, j)}
	if !m.seen[key] {
		m.seen[key] = true
		m.edges = append(m.edges, key)
	}
}

// subdivide splits triangle a, b, c into k² triangles, adding their corners
// and sides.
func (m *mesh) subdivide(a, b, c [3]float64, k int) {
	at := func(i, j int) int {
		var p [3]float64
		for d := range p {
			p[d] = a[d] + (b[d]-a[d])*float64(i)/float64(k) + (c[d]-a[d])*float64(j)/float64(k)
		}
		return m.vertex(p)
	}
	for i := 0; i <= k; i++ {
		for j := 0; i+j <= k; j++ {
			v := at(i, j)
			if i+j < k {
				right, up := at(i+1, j), at(i, j+1)
				m.edge(v, right)
				m.edge(v, up)
				m.edge(right, up)
			}
		}
	}
}
