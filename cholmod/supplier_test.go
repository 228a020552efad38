//go:build cgo

package cholmod

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
)

// columnLayout lays out the exported factor l one column per supernode:
// the column's rows, its values at their positions in l.Values.
func columnLayout(l *LFactor) *factor.Layout {
	lay := &factor.Layout{Perm: l.Perm, First: make([]int, l.N+1), RowPtr: l.ColPtr, Off: l.ColPtr, Rows: make([]int32, len(l.RowIdx))}
	for j := range lay.First {
		lay.First[j] = j
	}
	for k, i := range l.RowIdx {
		lay.Rows[k] = int32(i)
	}
	return lay
}

// TestSupplier orders every test matrix with the Supplier, analyses it in
// that order with a simplicial factor (exact pattern, no relaxed zeros),
// and checks that Fill writes the supernodal factorisation of the same
// order into that layout: the same values to round-off, every position.
func TestSupplier(t *testing.T) {
	eachMatrix(t, func(t *testing.T, m matrix, cc *Common, a *Sparse) {
		p := &factor.Pattern{N: m.n, ColPtr: m.colPtr, RowIdx: m.rowIdx}
		perm, name, err := Supplier{}.Order(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if name != "nesdis" || checkPerm(perm, m.n) != nil {
			t.Fatalf("Order: %q, %v", name, perm)
		}
		f, err := cc.Analyze(a, &AnalyzeOptions{Perm: perm, Mode: Simplicial})
		if err != nil {
			t.Fatal(err)
		}
		if f.Info().Used != "given" {
			t.Errorf("ordering used %q, want given", f.Info().Used)
		}
		if err := f.Factorize(a); err != nil {
			t.Fatal(err)
		}
		l, err := f.ExportL()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.Perm, perm) {
			t.Fatal("the given order was not kept")
		}
		lay := columnLayout(l)
		nu, err := Supplier{}.Prepare(p, lay)
		if err != nil {
			t.Fatal(err)
		}
		defer nu.Close()
		lx := make([]float64, len(l.Values))
		for k := range lx {
			lx[k] = math.NaN() // every position must be written
		}
		if err := nu.Fill(lx, m.values); err != nil {
			t.Fatal(err)
		}
		// Supernodal and simplicial factorisations of the same order add
		// the same products in other orders: a few ulps.
		for k, v := range l.Values {
			if !(math.Abs(lx[k]-v) <= 1e-13*(1+math.Abs(v))) {
				t.Fatalf("L value %d: %v, want %v", k, lx[k], v)
			}
		}

		// A layout without an entry of L fails, naming it.
		j := 0
		for l.ColPtr[j+1]-l.ColPtr[j] < 2 {
			j++
		}
		drop := l.ColPtr[j] + 1 // the first entry below a diagonal
		short := columnLayout(&LFactor{
			N: l.N, Perm: l.Perm,
			RowIdx: slices.Delete(slices.Clone(l.RowIdx), drop, drop+1),
			ColPtr: slices.Clone(l.ColPtr),
		})
		for k := j + 1; k <= l.N; k++ {
			short.RowPtr[k]--
		}
		nu2, err := Supplier{}.Prepare(p, short)
		if err != nil {
			t.Fatal(err)
		}
		defer nu2.Close()
		if err := nu2.Fill(make([]float64, len(lx)), m.values); err == nil {
			t.Error("a layout without an entry of L was filled")
		}

		// Not positive definite: the column, in the original numbering.
		bad := slices.Clone(m.values)
		bad[m.diagIndex(3)] = -5
		var npd *factor.NotPosDefError
		if err := nu.Fill(lx, bad); !errors.As(err, &npd) || npd.Column != 3 {
			t.Errorf("not positive definite: %v", err)
		}
		if err := nu.Close(); err != nil {
			t.Fatal(err)
		}
		if err := nu.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	})
}

// TestGivenPermErrors checks the refusals of AnalyzeOptions.Perm.
func TestGivenPermErrors(t *testing.T) {
	eachMatrix(t, func(t *testing.T, m matrix, cc *Common, a *Sparse) {
		id := make([]int, m.n)
		for k := range id {
			id[k] = k
		}
		dup := slices.Clone(id)
		dup[1] = 0
		for _, opt := range []AnalyzeOptions{
			{Perm: id[1:]},
			{Perm: dup},
			{Perm: id, Ordering: OrderAMD},
		} {
			if f, err := cc.Analyze(a, &opt); err == nil {
				f.Free()
				t.Errorf("Analyze accepted %+v", opt)
			}
		}
	})
}
