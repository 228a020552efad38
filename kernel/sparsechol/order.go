package sparsechol

import (
	"fmt"

	"github.com/gmlg/gmlg/kernel/factor"
)

// graph is the adjacency structure of a symmetric pattern without its
// diagonal, in compressed form: the neighbours of v are adj[ptr[v]:ptr[v+1]].
type graph struct {
	n   int
	ptr []int
	adj []int32
}

// newGraph builds the full (both triangles) adjacency of p without diagonal.
func newGraph(p *factor.Pattern) *graph {
	n := p.N
	deg := make([]int, n+1)
	for j := 0; j < n; j++ {
		for k := p.ColPtr[j] + 1; k < p.ColPtr[j+1]; k++ {
			deg[j]++
			deg[p.RowIdx[k]]++
		}
	}
	ptr := make([]int, n+1)
	for v := 0; v < n; v++ {
		ptr[v+1] = ptr[v] + deg[v]
	}
	adj := make([]int32, ptr[n])
	pos := make([]int, n)
	copy(pos, ptr[:n])
	for j := 0; j < n; j++ {
		for k := p.ColPtr[j] + 1; k < p.ColPtr[j+1]; k++ {
			i := p.RowIdx[k]
			adj[pos[j]] = int32(i)
			pos[j]++
			adj[pos[i]] = int32(j)
			pos[i]++
		}
	}
	return &graph{n: n, ptr: ptr, adj: adj}
}

// Order returns the fill-reducing permutation that Analyze would use for p
// with the given options, together with the name of the ordering actually
// used ("natural", "amd" or "nd-geometric"). perm[k] is the original index of
// the k-th pivot.
//
// OrderingDefault and OrderingNestedDissection use the geometric nested
// dissection when opt.Grid is set and minimum degree otherwise (a nested
// dissection of a general graph is not implemented; the name reports the
// fallback).
func Order(p *factor.Pattern, opt *factor.Options) (perm []int, name string, err error) {
	if err := p.Validate(); err != nil {
		return nil, "", fmt.Errorf("sparsechol: order: %w", err)
	}
	var o factor.Ordering
	var grid []int
	if opt != nil {
		o, grid = opt.Ordering, opt.Grid
	}
	if grid != nil {
		prod := 1
		for q, m := range grid {
			if m < 1 {
				return nil, "", fmt.Errorf("sparsechol: order: grid extent %d along axis %d < 1", m, q)
			}
			prod *= m
		}
		if prod != p.N {
			return nil, "", fmt.Errorf("sparsechol: order: grid %v has %d vertices, pattern has %d", grid, prod, p.N)
		}
	}
	switch o {
	case factor.OrderingNatural:
		perm = make([]int, p.N)
		for i := range perm {
			perm[i] = i
		}
		return perm, "natural", nil
	case factor.OrderingDefault, factor.OrderingNestedDissection:
		if grid != nil {
			return gridND(grid), "nd-geometric", nil
		}
		return minDegree(newGraph(p)), "amd", nil
	case factor.OrderingAMD:
		return minDegree(newGraph(p)), "amd", nil
	}
	return nil, "", fmt.Errorf("sparsechol: order: unknown ordering %v", o)
}

// gridND is a geometric nested dissection of the Cartesian grid with the given
// extents (axis 0 fastest): the box is cut by the middle plane orthogonal to
// its longest axis, both halves are ordered recursively and the plane is
// ordered last.
func gridND(dims []int) []int {
	d := len(dims)
	stride := make([]int, d)
	n := 1
	for q, m := range dims {
		stride[q] = n
		n *= m
	}
	perm := make([]int, 0, n)
	lo := make([]int, d)
	hi := append([]int(nil), dims...)
	var rec func(lo, hi []int)
	// emit appends every vertex of the box [lo,hi) in natural order.
	emit := func(lo, hi []int) {
		c := append([]int(nil), lo...)
		for {
			v := 0
			for q := 0; q < d; q++ {
				v += c[q] * stride[q]
			}
			perm = append(perm, v)
			q := 0
			for ; q < d; q++ {
				c[q]++
				if c[q] < hi[q] {
					break
				}
				c[q] = lo[q]
			}
			if q == d {
				return
			}
		}
	}
	rec = func(lo, hi []int) {
		size, axis, ext := 1, 0, 0
		for q := 0; q < d; q++ {
			e := hi[q] - lo[q]
			if e <= 0 {
				return
			}
			size *= e
			if e > ext {
				axis, ext = q, e
			}
		}
		if ext <= 2 || size <= 4 {
			emit(lo, hi)
			return
		}
		mid := lo[axis] + ext/2
		h1 := append([]int(nil), hi...)
		h1[axis] = mid
		rec(lo, h1)
		l2 := append([]int(nil), lo...)
		l2[axis] = mid + 1
		rec(l2, hi)
		ls := append([]int(nil), lo...)
		ls[axis] = mid
		hs := append([]int(nil), hi...)
		hs[axis] = mid + 1
		emit(ls, hs)
	}
	rec(lo, hi)
	return perm
}

// minDegree is a minimum-degree ordering on the quotient graph in the spirit
// of AMD (Amestoy, Davis and Duff): eliminated vertices become elements,
// elements adjacent to a pivot are absorbed into it, and the external degree
// of each variable is replaced by the approximate upper bound
// |A_i| + |L_p \ i| + Σ_e |L_e \ L_p|. Indistinguishable variables are not
// merged (no supervariables), which keeps the code short at some cost in
// ordering time.
func minDegree(g *graph) []int {
	n := g.n
	const (
		isVar = iota
		isElem
		isDead
	)
	state := make([]int8, n)
	vars := make([][]int32, n)  // variable neighbours of a variable
	elems := make([][]int32, n) // element neighbours of a variable
	lp := make([][]int32, n)    // variables of an element
	deg := make([]int, n)
	for v := 0; v < n; v++ {
		vars[v] = append([]int32(nil), g.adj[g.ptr[v]:g.ptr[v+1]]...)
		deg[v] = len(vars[v])
	}
	// Degree buckets as doubly linked lists.
	head := make([]int32, n)
	next := make([]int32, n)
	prev := make([]int32, n)
	for i := range head {
		head[i] = -1
	}
	insert := func(v int32) {
		dv := deg[v]
		next[v] = head[dv]
		prev[v] = -1
		if head[dv] >= 0 {
			prev[head[dv]] = v
		}
		head[dv] = v
	}
	remove := func(v int32) {
		if prev[v] >= 0 {
			next[prev[v]] = next[v]
		} else {
			head[deg[v]] = next[v]
		}
		if next[v] >= 0 {
			prev[next[v]] = prev[v]
		}
	}
	for v := 0; v < n; v++ {
		insert(int32(v))
	}
	mark := make([]int, n) // mark[v] == stamp: v is in the current L_p
	w := make([]int, n)    // |L_e \ L_p| while wstamp[e] == stamp
	wstamp := make([]int, n)
	for i := range mark {
		mark[i] = -1
		wstamp[i] = -1
	}
	perm := make([]int, 0, n)
	mindeg := 0
	for k := 0; k < n; k++ {
		for head[mindeg] < 0 {
			mindeg++
		}
		p := head[mindeg]
		remove(p)
		perm = append(perm, int(p))
		stamp := k
		mark[p] = stamp
		// Form L_p.
		var L []int32
		for _, v := range vars[p] {
			if state[v] == isVar && mark[v] != stamp {
				mark[v] = stamp
				L = append(L, v)
			}
		}
		for _, e := range elems[p] {
			if state[e] != isElem {
				continue
			}
			for _, v := range lp[e] {
				if state[v] == isVar && mark[v] != stamp {
					mark[v] = stamp
					L = append(L, v)
				}
			}
			state[e] = isDead
			lp[e] = nil
		}
		state[p] = isElem
		lp[p] = L
		vars[p], elems[p] = nil, nil
		// |L_e \ L_p| for the elements adjacent to L_p.
		for _, i := range L {
			for _, e := range elems[i] {
				if state[e] != isElem || e == p {
					continue
				}
				if wstamp[e] != stamp {
					wstamp[e] = stamp
					w[e] = len(lp[e])
				}
				w[e]--
			}
		}
		remaining := n - k - 1
		for _, i := range L {
			remove(i)
			// Prune element list, absorbing elements inside L_p.
			es := elems[i][:0]
			ext := 0
			for _, e := range elems[i] {
				if state[e] != isElem || e == p {
					continue
				}
				if w[e] == 0 {
					state[e] = isDead
					lp[e] = nil
					continue
				}
				ext += w[e]
				es = append(es, e)
			}
			elems[i] = append(es, p)
			// Prune variable list: neighbours in L_p are now reached through p.
			vs := vars[i][:0]
			for _, v := range vars[i] {
				if state[v] == isVar && mark[v] != stamp {
					vs = append(vs, v)
				}
			}
			vars[i] = vs
			d := len(vs) + len(L) - 1 + ext
			if alt := deg[i] + len(L) - 1; alt < d {
				d = alt
			}
			if d > remaining-1 {
				d = remaining - 1
			}
			if d < 0 {
				d = 0
			}
			deg[i] = d
			insert(i)
			if d < mindeg {
				mindeg = d
			}
		}
	}
	return perm
}
