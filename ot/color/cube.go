package color

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Cube is a 3-D colour look-up table in the Adobe/Resolve ".cube" text
// format that video and photo tools load (DaVinci Resolve, ffmpeg lut3d,
// OBS, Photoshop, …). Node (i,j,k) of a Size³ lattice sits at input colour
// DomainMin + (i,j,k)/(Size−1)·(DomainMax−DomainMin) for (R,G,B); tools
// interpolate between nodes (usually trilinearly or tetrahedrally).
type Cube struct {
	// Title is the optional TITLE line (without quotes).
	Title string
	// Size is LUT_3D_SIZE, the number of nodes per axis (2–256).
	Size int
	// DomainMin and DomainMax give the input range per channel (default
	// 0 0 0 and 1 1 1).
	DomainMin, DomainMax [3]float64
	// Table holds the Size³ output colours: node (r,g,b) at
	// Table[3·(r + g·Size + b·Size²)], R fastest, as the rows of the file.
	Table []float64
}

// Cube exports m as a size³ .cube LUT on [0,1]³ (size 0 means m.Bins) carrying
// the map's colour correction: node x gets
// clip(x + newcolor(bin) − centre(bin), 0, 1), bin = LookupBin(x), so the
// identity map exports the identity LUT. This is closer to the bilateral-smoothed transfer, which
// spreads each bin's correction over its pixels, than the piecewise-constant
// pixel map; the spatial smoothing itself cannot be expressed as a LUT.
func (m *Map) Cube(size int, title string) (*Cube, error) {
	size = cmp.Or(size, m.Bins)
	if size < 2 || size > 256 {
		return nil, fmt.Errorf("color: cube: size %d, want 2–256", size)
	}
	c := &Cube{Title: title, Size: size, DomainMax: [3]float64{1, 1, 1}, Table: make([]float64, 3*size*size*size)}
	s := float64(size - 1)
	k := 0
	for bi := range size {
		for gi := range size {
			for ri := range size {
				x := [3]float64{float64(ri) / s, float64(gi) / s, float64(bi) / s}
				bin := LookupBin(x[0], x[1], x[2], m.Bins)
				var ctr [3]float64
				ctr[0], ctr[1], ctr[2] = BinCentre(bin, m.Bins)
				for ch := range 3 {
					v := x[ch] + m.Colors[3*bin+ch] - ctr[ch]
					c.Table[k+ch] = min(max(v, 0), 1)
				}
				k += 3
			}
		}
	}
	return c, nil
}

// WriteTo writes c in .cube text format: TITLE (if any), LUT_3D_SIZE,
// DOMAIN_MIN, DOMAIN_MAX, then one "R G B" row per node with R fastest.
// Numbers use the shortest decimal form that parses back exactly.
func (c *Cube) WriteTo(w io.Writer) (int64, error) {
	if err := c.check(); err != nil {
		return 0, fmt.Errorf("color: write cube: %w", err)
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	if c.Title != "" {
		if strings.ContainsAny(c.Title, "\"\n\r") {
			return 0, fmt.Errorf("color: write cube: title %q contains a quote or a newline", c.Title)
		}
		fmt.Fprintf(bw, "TITLE \"%s\"\n", c.Title)
	}
	fmt.Fprintf(bw, "LUT_3D_SIZE %d\n", c.Size)
	writeTriple(bw, "DOMAIN_MIN ", c.DomainMin[:])
	writeTriple(bw, "DOMAIN_MAX ", c.DomainMax[:])
	for k := 0; k < len(c.Table); k += 3 {
		writeTriple(bw, "", c.Table[k:k+3])
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("color: write cube: %w", err)
	}
	return cw.n, nil
}

func writeTriple(bw *bufio.Writer, prefix string, v []float64) {
	var buf [80]byte
	b := append(buf[:0], prefix...)
	for i, x := range v {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, x, 'f', -1, 64)
	}
	b = append(b, '\n')
	bw.Write(b)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *Cube) check() error {
	if c.Size < 2 || c.Size > 256 {
		return fmt.Errorf("size %d, want 2–256", c.Size)
	}
	if len(c.Table) != 3*c.Size*c.Size*c.Size {
		return fmt.Errorf("table has %d values, want 3·%d³ = %d", len(c.Table), c.Size, 3*c.Size*c.Size*c.Size)
	}
	for ch := range 3 {
		if !(c.DomainMax[ch] > c.DomainMin[ch]) {
			return fmt.Errorf("channel %d: domain [%v, %v] is empty", ch, c.DomainMin[ch], c.DomainMax[ch])
		}
	}
	for k, v := range c.Table {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("table[%d] = %v is not finite", k, v)
		}
	}
	return nil
}

// ReadCube parses a 3-D .cube LUT. It accepts TITLE, LUT_3D_SIZE,
// DOMAIN_MIN, DOMAIN_MAX and Resolve's LUT_3D_INPUT_RANGE, '#' comments and
// blank lines, and ignores other keywords; 1-D LUTs are rejected. Errors
// name the offending line.
func ReadCube(r io.Reader) (*Cube, error) {
	c := &Cube{DomainMax: [3]float64{1, 1, 1}}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		fields := strings.Fields(s)
		key := fields[0]
		if b := key[0]; b == '-' || b == '+' || b == '.' || (b >= '0' && b <= '9') { // a row of the table
			if c.Size == 0 {
				return nil, fmt.Errorf("color: read cube: line %d: data before LUT_3D_SIZE", line)
			}
			v, err := parseFloats(fields, 3)
			if err != nil {
				return nil, fmt.Errorf("color: read cube: line %d: %w", line, err)
			}
			if len(c.Table) >= cap(c.Table) {
				return nil, fmt.Errorf("color: read cube: line %d: more than %d³ rows", line, c.Size)
			}
			c.Table = append(c.Table, v...)
			continue
		}
		if len(c.Table) > 0 {
			return nil, fmt.Errorf("color: read cube: line %d: keyword %s after the data rows", line, key)
		}
		args := fields[1:]
		switch key {
		case "TITLE":
			c.Title = strings.Trim(strings.TrimSpace(s[len("TITLE"):]), "\"")
		case "LUT_3D_SIZE":
			if len(args) != 1 {
				return nil, fmt.Errorf("color: read cube: line %d: LUT_3D_SIZE needs one value", line)
			}
			n, err := strconv.Atoi(args[0])
			if err != nil || n < 2 || n > 256 {
				return nil, fmt.Errorf("color: read cube: line %d: LUT_3D_SIZE %q, want an integer in 2–256", line, args[0])
			}
			c.Size = n
			c.Table = make([]float64, 0, 3*n*n*n)
		case "LUT_1D_SIZE":
			return nil, fmt.Errorf("color: read cube: line %d: 1-D LUTs are not supported", line)
		case "DOMAIN_MIN", "DOMAIN_MAX":
			v, err := parseFloats(args, 3)
			if err != nil {
				return nil, fmt.Errorf("color: read cube: line %d: %s: %w", line, key, err)
			}
			if key == "DOMAIN_MIN" {
				copy(c.DomainMin[:], v)
			} else {
				copy(c.DomainMax[:], v)
			}
		case "LUT_3D_INPUT_RANGE":
			v, err := parseFloats(args, 2)
			if err != nil {
				return nil, fmt.Errorf("color: read cube: line %d: %s: %w", line, key, err)
			}
			c.DomainMin = [3]float64{v[0], v[0], v[0]}
			c.DomainMax = [3]float64{v[1], v[1], v[1]}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("color: read cube: %w", err)
	}
	if c.Size == 0 {
		return nil, fmt.Errorf("color: read cube: no LUT_3D_SIZE")
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("color: read cube: %w", err)
	}
	return c, nil
}

func parseFloats(fields []string, n int) ([]float64, error) {
	if len(fields) != n {
		return nil, fmt.Errorf("%d numbers, want %d", len(fields), n)
	}
	v := make([]float64, n)
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, err
		}
		v[i] = x
	}
	return v, nil
}

// Eval returns the LUT's output for an input colour by trilinear
// interpolation between nodes, clamping the input to the domain.
func (c *Cube) Eval(r, g, b float64) (float64, float64, float64) {
	var idx [3]int
	var frac [3]float64
	for ch, x := range [3]float64{r, g, b} {
		t := (x - c.DomainMin[ch]) / (c.DomainMax[ch] - c.DomainMin[ch]) * float64(c.Size-1)
		t = min(max(t, 0), float64(c.Size-1))
		i := min(int(t), c.Size-2)
		idx[ch], frac[ch] = i, t-float64(i)
	}
	var out [3]float64
	s := c.Size
	for corner := range 8 {
		w := 1.0
		node := 0
		stride := 1
		for ch := range 3 {
			bit := corner >> ch & 1
			w *= [2]float64{1 - frac[ch], frac[ch]}[bit]
			node += (idx[ch] + bit) * stride
			stride *= s
		}
		for ch := range 3 {
			out[ch] += w * c.Table[3*node+ch]
		}
	}
	return out[0], out[1], out[2]
}
