//go:build cgo

package cholmod

import (
	"errors"
	"slices"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
)

// TestTree checks the factor's tree against the exported factor, in both
// modes: each supernode's parent is where its last exported column leads,
// and its work is the number of stored entries of L; for a simplicial
// factor it is the column tree of the exported columns.
func TestTree(t *testing.T) {
	for _, mode := range []Mode{Supernodal, Simplicial} {
		eachMatrix(t, func(t *testing.T, m matrix, cc *Common, a *Sparse) {
			f, err := cc.Analyze(a, &AnalyzeOptions{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Tree(); mode == Simplicial && !errors.Is(err, ErrNotFactorized) {
				t.Errorf("simplicial tree before Factorize: %v", err)
			}
			if err := f.Factorize(a); err != nil {
				t.Fatal(err)
			}
			tree, err := f.Tree()
			if err != nil {
				t.Fatalf("%v: %v", mode, err)
			}
			l, err := f.ExportL()
			if err != nil {
				t.Fatal(err)
			}
			// Each supernode's last column has its first row below in the
			// parent's columns (or none, for a root).
			start := make([]int, len(tree.Cols)+1)
			for s, c := range tree.Cols {
				start[s+1] = start[s] + c
			}
			cols := start[len(tree.Cols)]
			for s, p := range tree.Parent {
				j := start[s+1] - 1
				if k := l.ColPtr[j] + 1; k < l.ColPtr[j+1] {
					if r := l.RowIdx[k]; p < 0 || r < start[p] || r >= start[p+1] {
						t.Fatalf("%v: supernode %d: first row below %d, parent %d", mode, s, r, p)
					}
				} else if p >= 0 {
					t.Fatalf("%v: supernode %d has no rows below but parent %d", mode, s, p)
				}
			}
			work, span, err := tree.Span()
			if err != nil {
				t.Fatal(err)
			}
			if cols != m.n || int(work) != l.ColPtr[l.N] || span <= 0 || span > work {
				t.Errorf("%v: %d columns of %d, work %g for %d stored entries, span %g", mode, cols, m.n, work, l.ColPtr[l.N], span)
			}
			if mode != Simplicial {
				return
			}
			parent, count := make([]int, l.N), make([]int, l.N)
			for j := range l.N {
				parent[j], count[j] = -1, l.ColPtr[j+1]-l.ColPtr[j]
				if count[j] > 1 {
					parent[j] = l.RowIdx[l.ColPtr[j]+1]
				}
			}
			want, err := factor.ColumnTree(parent, count)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tree.Parent, want.Parent) || !slices.Equal(tree.Cols, want.Cols) || !slices.Equal(tree.Rows, want.Rows) {
				t.Errorf("tree differs from the exported factor's column tree")
			}
		})
	}
}
