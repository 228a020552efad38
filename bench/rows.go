package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// Row is one line of the paper's timing table: a d-dimensional Cartesian grid
// of side n (N = n^d vertices) and S = Steps implicit heat sub-steps, with the
// figures the paper published for it.
type Row struct {
	D, N, Steps int
	// PaperT500 is the paper's time for 500 L-BFGS iterations in hours, 0 if
	// unknown.
	PaperT500 float64
	// PaperMemGB is the paper's maximum resident memory in GB (10⁹ bytes),
	// 0 if unknown.
	PaperMemGB float64
	// PaperThreads is the number of threads of the paper's measurement.
	PaperThreads int
}

// Vertices returns N = n^d.
func (r Row) Vertices() int {
	v := 1
	for k := 0; k < r.D; k++ {
		v *= r.N
	}
	return v
}

// String is the row's key d:n:S, the form ParseRows reads.
func (r Row) String() string { return fmt.Sprintf("%d:%d:%d", r.D, r.N, r.Steps) }

// PaperRows is Table 1 of the paper ("Timing and memory"), in its order.
var PaperRows = []Row{
	{D: 2, N: 50, Steps: 20, PaperT500: 1.6, PaperMemGB: 1.3, PaperThreads: 1},
	{D: 2, N: 50, Steps: 100, PaperT500: 7, PaperMemGB: 4.7, PaperThreads: 1},
	{D: 2, N: 100, Steps: 20, PaperT500: 13, PaperMemGB: 4, PaperThreads: 1},
	{D: 2, N: 100, Steps: 100, PaperT500: 60, PaperMemGB: 16, PaperThreads: 1},
	{D: 3, N: 16, Steps: 20, PaperT500: 9, PaperMemGB: 1.7, PaperThreads: 1},
	{D: 3, N: 16, Steps: 50, PaperT500: 25, PaperMemGB: 3.3, PaperThreads: 1},
	{D: 3, N: 16, Steps: 100, PaperT500: 46, PaperMemGB: 6.2, PaperThreads: 1},
	{D: 3, N: 32, Steps: 20, PaperT500: 110, PaperMemGB: 10.9, PaperThreads: 8},
}

// QuickRows are the two smallest rows of the table (by N·S), the CI set.
var QuickRows = []Row{PaperRows[0], PaperRows[4]}

// ParseRows reads a comma-separated list of rows. Each item is "all" (the
// whole table), "quick" (QuickRows), a 1-based index into PaperRows, or
// d:n:S; a d:n:S found in the table carries the paper's figures, any other
// is measured without them. Duplicates are dropped, the order is kept.
func ParseRows(s string) ([]Row, error) {
	var out []Row
	seen := map[string]bool{}
	add := func(r Row) {
		if !seen[r.String()] {
			seen[r.String()] = true
			out = append(out, r)
		}
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		switch item {
		case "":
			continue
		case "all":
			for _, r := range PaperRows {
				add(r)
			}
			continue
		case "quick":
			for _, r := range QuickRows {
				add(r)
			}
			continue
		}
		if !strings.Contains(item, ":") {
			i, err := strconv.Atoi(item)
			if err != nil || i < 1 || i > len(PaperRows) {
				return nil, fmt.Errorf("bench: row %q: want d:n:S, all, quick or an index 1..%d", item, len(PaperRows))
			}
			add(PaperRows[i-1])
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("bench: row %q: want d:n:S (e.g. 2:50:20)", item)
		}
		var v [3]int
		for k, p := range parts {
			x, err := strconv.Atoi(p)
			if err != nil {
				return nil, fmt.Errorf("bench: row %q: %w", item, err)
			}
			v[k] = x
		}
		r := Row{D: v[0], N: v[1], Steps: v[2]}
		if r.D != 2 && r.D != 3 {
			return nil, fmt.Errorf("bench: row %q: dimension %d, want 2 or 3", item, r.D)
		}
		if r.N < 4 || r.Steps < 1 {
			return nil, fmt.Errorf("bench: row %q: need n ≥ 4 and S ≥ 1", item)
		}
		for _, p := range PaperRows {
			if p.D == r.D && p.N == r.N && p.Steps == r.Steps {
				r = p
			}
		}
		add(r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no rows in %q", s)
	}
	return out, nil
}
