package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Row is one line of the paper's timing table: a d-dimensional Cartesian grid
// of side n (N = n^d vertices) and S = Steps implicit heat sub-steps, with the
// figures the paper published for it (zero where unknown: the paper's t_500
// in hours and peak memory in GB, 10⁹ bytes). A colour row (Colour set) is
// instead the colour run of gmlg learn at n bins per channel (d = 3).
type Row struct {
	D, N, Steps           int
	Colour                string `json:",omitempty"` // Synthetic, or a folder of DataRoot
	PaperT500, PaperMemGB float64
}

// Vertices returns N = n^d.
func (r Row) Vertices() int { return int(math.Pow(float64(r.N), float64(r.D))) }

// String is the row's key, the form ParseRows reads: d:n:S, or colour:n
// and colour:n:NAME.
func (r Row) String() string {
	switch r.Colour {
	case "":
		return fmt.Sprintf("%d:%d:%d", r.D, r.N, r.Steps)
	case Synthetic:
		return fmt.Sprintf("colour:%d", r.N)
	}
	return fmt.Sprintf("colour:%d:%s", r.N, r.Colour)
}

// PaperRows is Table 1 of the paper ("Timing and memory"), in its order;
// the paper measured 3:32:20 on 8 threads, the others on one.
var PaperRows = []Row{
	{D: 2, N: 50, Steps: 20, PaperT500: 1.6, PaperMemGB: 1.3},
	{D: 2, N: 50, Steps: 100, PaperT500: 7, PaperMemGB: 4.7},
	{D: 2, N: 100, Steps: 20, PaperT500: 13, PaperMemGB: 4},
	{D: 2, N: 100, Steps: 100, PaperT500: 60, PaperMemGB: 16},
	{D: 3, N: 16, Steps: 20, PaperT500: 9, PaperMemGB: 1.7},
	{D: 3, N: 16, Steps: 50, PaperT500: 25, PaperMemGB: 3.3},
	{D: 3, N: 16, Steps: 100, PaperT500: 46, PaperMemGB: 6.2},
	{D: 3, N: 32, Steps: 20, PaperT500: 110, PaperMemGB: 10.9},
}

// QuickRows are the two smallest rows of the table (by N·S), the CI set.
var QuickRows = []Row{PaperRows[0], PaperRows[4]}

// ColourRows are the colour rows of "all": the synthetic sequence at 16³
// and 32³ bins, and the paper's seldovia2 images at 32³.
var ColourRows = []Row{{D: 3, N: 16, Colour: Synthetic}, {D: 3, N: 32, Colour: Synthetic}, {D: 3, N: 32, Colour: "seldovia2"}}

// ParseRows reads a comma-separated list of rows. Each item is "all" (the
// whole table, then ColourRows), "quick" (QuickRows), a 1-based index into
// PaperRows, d:n:S, colour:n (the synthetic sequence at n bins) or
// colour:n:NAME (the images of DataRoot/NAME); a d:n:S found in the table
// carries the paper's figures, any other is measured without them.
// Duplicates are dropped, the order is kept.
func ParseRows(s string) ([]Row, error) {
	var out []Row
	add := func(rows ...Row) {
		for _, r := range rows {
			if !slices.ContainsFunc(out, func(o Row) bool { return o.String() == r.String() }) {
				out = append(out, r)
			}
		}
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		i, err := strconv.Atoi(item)
		switch {
		case item == "all":
			add(slices.Concat(PaperRows, ColourRows)...)
		case item == "quick":
			add(QuickRows...)
		case err == nil && i >= 1 && i <= len(PaperRows):
			add(PaperRows[i-1])
		case err == nil:
			return nil, fmt.Errorf("bench: row %q: want an index 1..%d into the paper's table", item, len(PaperRows))
		case strings.HasPrefix(item, "colour:"):
			n, name, named := strings.Cut(item[len("colour:"):], ":")
			r := Row{D: 3, Colour: Synthetic}
			if named {
				r.Colour = name
			}
			if r.N, err = strconv.Atoi(n); err != nil || r.N < 2 || r.Colour == "" || strings.ContainsAny(r.Colour, `:/\`) {
				return nil, fmt.Errorf("bench: row %q: want colour:n or colour:n:NAME, n ≥ 2 bins, NAME a folder of %s", item, DataRoot())
			}
			add(r)
		case item != "":
			var r Row
			if _, err := fmt.Sscanf(item, "%d:%d:%d", &r.D, &r.N, &r.Steps); err != nil || r.String() != item || r.D < 2 || r.D > 3 || r.N < 4 || r.Steps < 1 {
				return nil, fmt.Errorf("bench: row %q: want d:n:S with d = 2 or 3, n ≥ 4 and S ≥ 1 (e.g. 2:50:20), colour:n, all or quick", item)
			}
			if k := slices.IndexFunc(PaperRows, func(p Row) bool { return p.String() == item }); k >= 0 {
				r = PaperRows[k]
			}
			add(r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no rows in %q", s)
	}
	return out, nil
}
