package color

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func specMap(t *testing.T) *Map {
	t.Helper()
	k, _ := NewEuclidean(5, 0.05)
	tr, _ := NewTransfer(k, 5)
	p, q := specMarginals(k.Size())
	m, err := tr.Map(p, q, 30)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCubeRoundTrip(t *testing.T) {
	m := specMap(t)
	for _, size := range []int{0, 2, 9} {
		c, err := m.Cube(size, "gmlg test")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := c.WriteTo(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(buf.Len()) {
			t.Errorf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
		}
		text := buf.String()
		if !strings.HasPrefix(text, "TITLE \"gmlg test\"\nLUT_3D_SIZE ") {
			t.Errorf("header: %q", text[:min(60, len(text))])
		}
		back, err := ReadCube(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if back.Title != c.Title || back.Size != c.Size || back.DomainMin != c.DomainMin || back.DomainMax != c.DomainMax {
			t.Errorf("header differs: %+v vs %+v", back, c)
		}
		if len(back.Table) != len(c.Table) {
			t.Fatalf("table length %d, want %d", len(back.Table), len(c.Table))
		}
		for k := range c.Table {
			if back.Table[k] != c.Table[k] {
				t.Fatalf("size %d: table[%d] = %v, want %v", size, k, back.Table[k], c.Table[k])
			}
		}
	}
}

// TestCubeIdentity: the identity map (every bin to its centre) exports the
// identity LUT, and rows are ordered with R fastest.
func TestCubeIdentity(t *testing.T) {
	const n = 4
	m := &Map{Bins: n, Colors: make([]float64, 3*n*n*n)}
	for i := range n * n * n {
		m.Colors[3*i], m.Colors[3*i+1], m.Colors[3*i+2] = BinCentre(i, n)
	}
	c, err := m.Cube(7, "")
	if err != nil {
		t.Fatal(err)
	}
	for b := range 7 {
		for g := range 7 {
			for r := range 7 {
				k := 3 * (r + 7*g + 49*b)
				want := [3]float64{float64(r) / 6, float64(g) / 6, float64(b) / 6}
				for ch := range 3 {
					if math.Abs(c.Table[k+ch]-want[ch]) > 1e-15 {
						t.Fatalf("node (%d,%d,%d) ch %d: %v, want %v", r, g, b, ch, c.Table[k+ch], want[ch])
					}
				}
			}
		}
	}
	x, y, z := c.Eval(0.3, 0.55, 0.9)
	if math.Abs(x-0.3) > 1e-15 || math.Abs(y-0.55) > 1e-15 || math.Abs(z-0.9) > 1e-15 {
		t.Errorf("identity Eval = %v %v %v", x, y, z)
	}
}

// TestCubeMatchesMap: at size = Bins, node k lies in bin k and carries
// that bin's correction.
func TestCubeMatchesMap(t *testing.T) {
	m := specMap(t)
	c, _ := m.Cube(0, "")
	n := m.Bins
	for b := range n {
		for g := range n {
			for r := range n {
				bin := Index(r, g, b, n)
				cr, cg, cb := BinCentre(bin, n)
				ctr := [3]float64{cr, cg, cb}
				x := [3]float64{float64(r) / float64(n-1), float64(g) / float64(n-1), float64(b) / float64(n-1)}
				for ch := range 3 {
					want := min(max(x[ch]+m.Colors[3*bin+ch]-ctr[ch], 0), 1)
					if got := c.Table[3*(r+n*g+n*n*b)+ch]; math.Abs(got-want) > 1e-15 {
						t.Fatalf("node (%d,%d,%d) ch %d: %v, want %v", r, g, b, ch, got, want)
					}
				}
			}
		}
	}
}

func TestReadCube(t *testing.T) {
	const good = `# a comment
TITLE "two nodes"
LUT_3D_INPUT_RANGE 0 2
LUT_3D_SIZE 2

0 0 0
1 0 0
0 1 0
1 1 0
0 0 1
1 0 1
0 1 1
1 1 1
`
	c, err := ReadCube(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "two nodes" || c.Size != 2 || c.DomainMax != [3]float64{2, 2, 2} {
		t.Errorf("parsed %+v", c)
	}
	if r, g, b := c.Eval(1, 0.5, 2); math.Abs(r-0.5) > 1e-15 || math.Abs(g-0.25) > 1e-15 || b != 1 {
		t.Errorf("Eval = %v %v %v", r, g, b)
	}
	bad := []struct{ name, text string }{
		{"no size", "0 0 0\n"},
		{"too few rows", "LUT_3D_SIZE 2\n0 0 0\n"},
		{"too many rows", "LUT_3D_SIZE 2\n" + strings.Repeat("0 0 0\n", 9)},
		{"1-D", "LUT_1D_SIZE 4\n"},
		{"bad number", "LUT_3D_SIZE 2\n0 x 0\n"},
		{"two numbers", "LUT_3D_SIZE 2\n0 0\n"},
		{"size 1", "LUT_3D_SIZE 1\n0 0 0\n"},
		{"keyword after data", "LUT_3D_SIZE 2\n0 0 0\nDOMAIN_MIN 0 0 0\n"},
		{"empty domain", "LUT_3D_SIZE 2\nDOMAIN_MAX 0 1 1\n" + strings.Repeat("0 0 0\n", 8)},
		{"nan", "LUT_3D_SIZE 2\n" + strings.Repeat("0 0 0\n", 7) + "NaN 0 0\n"},
	}
	for _, tc := range bad {
		if _, err := ReadCube(strings.NewReader(tc.text)); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
