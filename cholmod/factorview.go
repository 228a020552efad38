//go:build cgo

package cholmod

// Reading the fields of CHOLMOD's factors from Go, with no CHOLMOD call;
// the views returned are valid until the factor is freed or changed.

/*
#include "cholmod.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gmlg/gmlg/kernel/factor"
)

// originalColumn is the unpermuted column at which L's factorisation failed,
// or -1 when it did not fail.
func originalColumn(L *cFactor) int {
	n := int(L.n)
	k := int(L.minor)
	if k < 0 || k >= n {
		return -1
	}
	if L.Perm == nil {
		return k
	}
	return int(unsafe.Slice((*int64)(L.Perm), n)[k])
}

// factorStats reads the descriptive fields of an analysed factor, with the
// name of its ordering.
func factorStats(ctx *cCtx, L *cFactor) (ordering string, super bool, nnzL int, flops float64, selected int) {
	n := int(L.n)
	if L.ColCount != nil {
		for _, c := range unsafe.Slice((*int64)(L.ColCount), n) {
			nnzL += int(c)
		}
	}
	ordering, ok := cOrderingNames[int(L.ordering)]
	if !ok {
		ordering = fmt.Sprintf("ordering(%d)", int(L.ordering))
	}
	return ordering, L.is_super != 0, nnzL, float64(ctx.c.fl), int(ctx.c.selected)
}

// cOrderingNames names CHOLMOD's L->ordering values.
var cOrderingNames = map[int]string{
	C.CHOLMOD_NATURAL: "natural", C.CHOLMOD_GIVEN: "given", C.CHOLMOD_AMD: "amd",
	C.CHOLMOD_METIS: "metis", C.CHOLMOD_NESDIS: "nesdis", C.CHOLMOD_COLAMD: "colamd",
	C.CHOLMOD_POSTORDERED: "postordered",
}

// factorTree reads the supernodal tree of L: CHOLMOD's supernodes when L is
// supernodal, else the fundamental supernodes of its columns, whose
// structure exists only once L is factorised (numeric says it is).
func factorTree(L *cFactor, numeric bool) (factor.Tree, error) {
	n := int(L.n)
	if L.is_super != 0 {
		ns := int(L.nsuper)
		super := unsafe.Slice((*int64)(L.super), ns+1)
		pi := unsafe.Slice((*int64)(L.pi), ns+1)
		snode := make([]int, n)
		t := factor.Tree{Parent: make([]int, ns), Cols: make([]int, ns), Rows: make([]int, ns)}
		for s := 0; s < ns; s++ {
			t.Cols[s] = int(super[s+1] - super[s])
			t.Rows[s] = int(pi[s+1] - pi[s])
			for j := super[s]; j < super[s+1]; j++ {
				snode[j] = s
			}
		}
		var rows []int64
		if ns > 0 && pi[ns] > 0 {
			rows = unsafe.Slice((*int64)(L.s), int(pi[ns]))
		}
		for s := 0; s < ns; s++ {
			t.Parent[s] = -1
			if t.Rows[s] > t.Cols[s] {
				t.Parent[s] = snode[rows[int(pi[s])+t.Cols[s]]]
			}
		}
		return t, t.Validate()
	}
	if !numeric || L.p == nil || L.nz == nil || L.i == nil {
		return factor.Tree{}, fmt.Errorf("cholmod: tree of a simplicial factor: %w", ErrNotFactorized)
	}
	p := unsafe.Slice((*int64)(L.p), n+1)
	nz := unsafe.Slice((*int64)(L.nz), n)
	idx := unsafe.Slice((*int64)(L.i), int(L.nzmax))
	parent, count := make([]int, n), make([]int, n)
	for j := 0; j < n; j++ {
		parent[j], count[j] = -1, int(nz[j])
		for _, i := range idx[p[j] : p[j]+nz[j]] {
			if int(i) > j && (parent[j] < 0 || int(i) < parent[j]) {
				parent[j] = int(i)
			}
		}
	}
	return factor.ColumnTree(parent, count)
}

// supernodes views the arrays of a numeric supernodal factor L: supernode
// S holds columns super[S]..super[S+1]−1, the rows s[pi[S]:pi[S+1]] (its
// own columns first) and a column-major block of those rows at x[px[S]:].
// The views are valid until L is freed or changed.
type supernodes struct {
	super, pi, px, s []int64
	x                []float64
}

func superView(L *cFactor) supernodes {
	ns := int(L.nsuper)
	v := supernodes{
		super: unsafe.Slice((*int64)(L.super), ns+1),
		pi:    unsafe.Slice((*int64)(L.pi), ns+1),
		px:    unsafe.Slice((*int64)(L.px), ns+1),
	}
	v.s = unsafe.Slice((*int64)(L.s), int(v.pi[ns]))
	v.x = unsafe.Slice((*float64)(L.x), int(L.xsize))
	return v
}

// supernodalLL reports whether L is a numeric supernodal LL' factor.
func supernodalLL(L *cFactor) bool {
	return L.is_super != 0 && L.is_ll != 0 && L.xtype == C.CHOLMOD_REAL && L.x != nil
}

// factorPerm copies L's pivot order (the identity when L has none).
func factorPerm(L *cFactor) []int {
	perm := make([]int, int(L.n))
	for k := range perm {
		perm[k] = k
	}
	if L.Perm != nil {
		for k, v := range unsafe.Slice((*int64)(L.Perm), len(perm)) {
			perm[k] = int(v)
		}
	}
	return perm
}
