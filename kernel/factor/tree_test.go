package factor

import (
	"slices"
	"testing"
)

// pathTree is the column tree of a tridiagonal matrix of order n: column j
// holds its diagonal and row j+1.
func pathTree(n int) (parent, count []int) {
	parent, count = make([]int, n), make([]int, n)
	for j := range n {
		parent[j], count[j] = j+1, 2
	}
	parent[n-1], count[n-1] = -1, 1
	return parent, count
}

func TestColumnTree(t *testing.T) {
	pp, pc := pathTree(5)
	tests := []struct {
		name          string
		parent, count []int
		want          Tree
	}{
		// The last two columns of a path form the one dense 2×2 block.
		{"path", pp, pc, Tree{Parent: []int{1, 2, 3, -1}, Cols: []int{1, 1, 1, 2}, Rows: []int{2, 2, 2, 2}}},
		// A dense 3×3 matrix is one supernode.
		{"dense", []int{1, 2, -1}, []int{3, 2, 1}, Tree{Parent: []int{-1}, Cols: []int{3}, Rows: []int{3}}},
		// Two leaves under one root: the root has two children, so no
		// leaf joins it.
		{"fork", []int{2, 2, -1}, []int{2, 2, 1}, Tree{Parent: []int{2, 2, -1}, Cols: []int{1, 1, 1}, Rows: []int{2, 2, 1}}},
		// A forest: two separate dense pairs.
		{"forest", []int{1, -1, 3, -1}, []int{2, 1, 2, 1}, Tree{Parent: []int{-1, -1}, Cols: []int{2, 2}, Rows: []int{2, 2}}},
	}
	for _, tc := range tests {
		got, err := ColumnTree(tc.parent, tc.count)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got.Parent, tc.want.Parent) || !slices.Equal(got.Cols, tc.want.Cols) || !slices.Equal(got.Rows, tc.want.Rows) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestColumnTreeErrors(t *testing.T) {
	tests := []struct {
		name          string
		parent, count []int
	}{
		{"lengths", []int{-1}, []int{1, 1}},
		{"parent before child", []int{-1, 0}, []int{1, 1}},
		{"parent outside", []int{2, -1}, []int{2, 1}},
		{"empty column", []int{-1}, []int{0}},
	}
	for _, tc := range tests {
		if _, err := ColumnTree(tc.parent, tc.count); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestTreeSpan(t *testing.T) {
	star := Tree{Parent: []int{8, 8, 8, 8, 8, 8, 8, 8, -1}, Cols: slices.Repeat([]int{1}, 9), Rows: append(slices.Repeat([]int{2}, 8), 1)}
	pp, pc := pathTree(100)
	path, err := ColumnTree(pp, pc)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		tree       Tree
		work, span float64
	}{
		// A path is one chain: no parallelism.
		{"path", path, 199, 199},
		// Eight leaves of two entries, then the root's one.
		{"star", star, 17, 3},
		// One dense 100×100 block: panels of 32, 32, 32 and 4 columns.
		// Each panel's triangle is on the path (528, 528, 528, 10) and
		// one grain of the rows below it (32·32, 32·32, 32·4, 0).
		{"dense", Tree{Parent: []int{-1}, Cols: []int{100}, Rows: []int{100}}, 5050, 3*528 + 10 + 2*1024 + 128},
		// Two supernodes of 40 columns over a root of 8; each leaf has
		// the root's 8 rows below it.
		{"two leaves", Tree{Parent: []int{2, 2, -1}, Cols: []int{40, 40, 8}, Rows: []int{48, 48, 8}},
			2*(40*41/2+40*8) + 36, (528 + 32*16) + (36 + 8*8) + 36},
	}
	for _, tc := range tests {
		work, span, err := tc.tree.Span()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if work != tc.work || span != tc.span {
			t.Errorf("%s: work %g span %g, want %g and %g", tc.name, work, span, tc.work, tc.span)
		}
	}
}

func TestTreeValidate(t *testing.T) {
	tests := []struct {
		name string
		tree Tree
	}{
		{"lengths", Tree{Parent: []int{-1}, Cols: []int{1, 1}, Rows: []int{1}}},
		{"no columns", Tree{Parent: []int{-1}, Cols: []int{0}, Rows: []int{1}}},
		{"rows below columns", Tree{Parent: []int{-1}, Cols: []int{3}, Rows: []int{2}}},
		{"parent before child", Tree{Parent: []int{-1, 0}, Cols: []int{1, 1}, Rows: []int{1, 1}}},
		{"self parent", Tree{Parent: []int{0}, Cols: []int{1}, Rows: []int{1}}},
	}
	for _, tc := range tests {
		if err := tc.tree.Validate(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		if _, _, err := tc.tree.Span(); err == nil {
			t.Errorf("%s: Span gave no error", tc.name)
		}
	}
	if _, _, err := (Tree{}).Span(); err == nil {
		t.Error("empty tree: no error")
	}
}
