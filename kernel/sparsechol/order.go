package sparsechol

import (
	"cmp"
	"fmt"
	"slices"

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
// the k-th pivot. Analyze then postorders the elimination tree and groups
// subtrees per worker, which reorders pivots without changing the fill.
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
	case factor.OrderingDefault, factor.OrderingNestedDissection, factor.OrderingAMD:
		if grid != nil && o != factor.OrderingAMD {
			return minDegree(newGraph(p), gridND(grid, ndLeaf)), "nd-geometric", nil
		}
		return minDegree(newGraph(p), nil), "amd", nil
	}
	return nil, "", fmt.Errorf("sparsechol: order: unknown ordering %v", o)
}

// ndLeaf is the largest vertex set the geometric nested dissection does not
// cut; such sets are left to the constrained minimum degree.
const ndLeaf = 64

// ndBalance is the smallest fraction of a set each side of a separator must
// hold.
const ndBalance = 0.3

// gridND is a geometric nested dissection of the Cartesian grid with the given
// extents (axis 0 fastest). A vertex set is cut by a lattice hyperplane
// a·x = c with a ∈ {−1,0,1}^d (axis-aligned and diagonal planes; every grid
// edge changes a·x by at most one, so the plane separates the two sides),
// choosing among all directions and near-median offsets the smallest plane
// that leaves at least ndBalance of the set on each side. Both sides are
// ordered recursively and the plane last; in 3-D diagonal planes are about a
// quarter smaller than axis-aligned ones.
//
// It returns, for every vertex, the index of its block (leaf set or
// separator) in the dissection order; the blocks are the constraint sets of
// the final constrained minimum-degree ordering.
func gridND(dims []int, leaf int) []int32 {
	d := len(dims)
	n := 1
	for _, m := range dims {
		n *= m
	}
	coord := make([][]int32, d) // coord[p][v]
	stride := 1
	for p, m := range dims {
		coord[p] = make([]int32, n)
		for v := 0; v < n; v++ {
			coord[p][v] = int32((v / stride) % m)
		}
		stride *= m
	}
	// Directions: nonzero a ∈ {−1,0,1}^d with first nonzero entry +1.
	var dirs [][]int32
	a := make([]int32, d)
	var gen func(p int, lead bool)
	gen = func(p int, lead bool) {
		if p == d {
			if !lead {
				dirs = append(dirs, append([]int32(nil), a...))
			}
			return
		}
		for _, v := range []int32{0, 1, -1} {
			if lead && v < 0 {
				continue
			}
			a[p] = v
			gen(p+1, lead && v == 0)
		}
		a[p] = 0
	}
	gen(0, true)
	maxDim := 0
	for _, m := range dims {
		maxDim = max(maxDim, m)
	}
	span := 2*d*maxDim + 1
	hist := make([]int, span)
	val := make([]int32, n)
	label := make([]int32, n)
	nset := int32(0)
	verts := make([]int32, n)
	for v := range verts {
		verts[v] = int32(v)
	}
	dot := func(dir []int32, v int32) int32 {
		s := int32(0)
		for p, ap := range dir {
			s += ap * coord[p][v]
		}
		return s
	}
	var rec func(set []int32)
	rec = func(set []int32) {
		m := len(set)
		if m == 0 {
			return
		}
		if m <= leaf {
			for _, v := range set {
				label[v] = nset
			}
			nset++
			return
		}
		bestDir, bestC, bestSep, bestImb := -1, int32(0), m+1, m+1
		off := int32(d * maxDim)
		for k, dir := range dirs {
			lo, hi := int32(1<<30), int32(-1<<30)
			for _, v := range set {
				x := dot(dir, v) + off
				lo, hi = min(lo, x), max(hi, x)
				hist[x]++
			}
			below := 0
			for c := lo; c <= hi; c++ {
				sep := hist[c]
				above := m - below - sep
				if float64(below) >= ndBalance*float64(m) && float64(above) >= ndBalance*float64(m) {
					imb := max(below-above, above-below)
					if sep < bestSep || (sep == bestSep && imb < bestImb) {
						bestDir, bestC, bestSep, bestImb = k, c-off, sep, imb
					}
				}
				below += sep
			}
			clear(hist[lo : hi+1])
		}
		if bestDir < 0 {
			for _, v := range set {
				label[v] = nset
			}
			nset++
			return
		}
		dir := dirs[bestDir]
		for _, v := range set {
			val[v] = dot(dir, v)
		}
		// Three-way partition: below, above, separator.
		i, j, k := 0, 0, m // set[:i] below, set[i:j] above, set[k:] separator
		for j < k {
			v := set[j]
			switch x := val[v]; {
			case x < bestC:
				set[i], set[j] = set[j], set[i]
				i++
				j++
			case x > bestC:
				j++
			default:
				k--
				set[j], set[k] = set[k], set[j]
			}
		}
		rec(set[:i])
		rec(set[i:j])
		for _, v := range set[k:] {
			label[v] = nset
		}
		nset++
	}
	rec(verts)
	return label
}

// minDegree is a minimum-degree ordering on the quotient graph in the spirit
// of AMD (Amestoy, Davis and Duff): eliminated vertices become elements,
// elements adjacent to a pivot are absorbed into it, and the external degree
// of each variable is replaced by the approximate upper bound
// |A_i| + |L_p \ i| + Σ_e |L_e \ L_p|, and indistinguishable variables are
// merged into supervariables (found by hashing their lists) that are
// eliminated together.
//
// When label is non-nil the ordering is constrained (like CAMD): all
// vertices with label k are eliminated before any vertex with a larger
// label; labels are 0..K-1.
func minDegree(g *graph, label []int32) []int {
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
	// Constraint sets: members of set k are byLabel[lptr[k]:lptr[k+1]].
	if label == nil {
		label = make([]int32, n)
	}
	nl := 0
	for _, l := range label {
		nl = max(nl, int(l)+1)
	}
	lptr := make([]int, nl+1)
	for _, l := range label {
		lptr[l+1]++
	}
	for k := 0; k < nl; k++ {
		lptr[k+1] += lptr[k]
	}
	byLabel := make([]int32, n)
	lpos := append([]int(nil), lptr[:nl]...)
	for v, l := range label {
		byLabel[lpos[l]] = int32(v)
		lpos[l]++
	}
	cur, left := int32(-1), 0

	mark := make([]int, n) // mark[v] == stamp: v is in the current L_p
	w := make([]int, n)    // |L_e \ L_p| (weighted) while wstamp[e] == stamp
	wstamp := make([]int, n)
	smark := make([]int, n) // marks for the supervariable comparison
	for i := range mark {
		mark[i], wstamp[i], smark[i] = -1, -1, -1
	}
	// Supervariables: nv[i] original vertices are represented by the
	// principal variable i (0 for absorbed ones); they are chained through
	// member, starting at i.
	nv := make([]int, n)
	member := make([]int32, n)
	last := make([]int32, n)
	for v := range nv {
		nv[v], member[v], last[v] = 1, -1, int32(v)
	}
	elemW := make([]int, n) // weighted size of each element
	ext := make([]int, n)   // Σ_e |L_e \ L_p| of each variable of L_p
	hash := make([]uint64, n)
	var L, byHash []int32
	sstamp := 0
	perm := make([]int, 0, n)
	mindeg := 0
	for len(perm) < n {
		for left == 0 {
			cur++
			left = lptr[cur+1] - lptr[cur]
			for _, v := range byLabel[lptr[cur]:lptr[cur+1]] {
				if state[v] == isVar && nv[v] > 0 {
					insert(v)
				}
			}
			mindeg = 0
		}
		for head[mindeg] < 0 {
			mindeg++
		}
		p := head[mindeg]
		remove(p)
		left -= nv[p]
		for v := int32(p); v >= 0; v = member[v] {
			perm = append(perm, int(v))
		}
		stamp := len(perm)
		mark[p] = stamp
		// Form L_p (principal variables only).
		L = L[:0]
		lw := 0
		for _, v := range vars[p] {
			if state[v] == isVar && nv[v] > 0 && mark[v] != stamp {
				mark[v] = stamp
				L = append(L, v)
				lw += nv[v]
			}
		}
		for _, e := range elems[p] {
			if state[e] != isElem {
				continue
			}
			for _, v := range lp[e] {
				if state[v] == isVar && nv[v] > 0 && mark[v] != stamp {
					mark[v] = stamp
					L = append(L, v)
					lw += nv[v]
				}
			}
			state[e] = isDead
			lp[e] = nil
		}
		state[p] = isElem
		lp[p] = append([]int32(nil), L...)
		elemW[p] = lw
		vars[p], elems[p] = nil, nil
		// |L_e \ L_p| for the elements adjacent to L_p.
		for _, i := range L {
			for _, e := range elems[i] {
				if state[e] != isElem || e == p {
					continue
				}
				if wstamp[e] != stamp {
					wstamp[e] = stamp
					w[e] = elemW[e]
				}
				w[e] -= nv[i]
			}
		}
		// Prune the lists of L_p, absorbing elements inside L_p, and hash
		// them for the supervariable detection.
		for _, i := range L {
			if label[i] == cur {
				remove(i)
			}
			es := elems[i][:0]
			x, h := 0, uint64(p)
			for _, e := range elems[i] {
				if state[e] != isElem || e == p {
					continue
				}
				if w[e] == 0 {
					state[e] = isDead
					lp[e] = nil
					continue
				}
				x += w[e]
				h += uint64(e)
				es = append(es, e)
			}
			elems[i] = append(es, p)
			ext[i] = x
			vs := vars[i][:0]
			for _, v := range vars[i] {
				if state[v] == isVar && nv[v] > 0 && mark[v] != stamp {
					vs = append(vs, v)
					h += uint64(v) * 0x9e3779b97f4a7c15
				}
			}
			vars[i] = vs
			hash[i] = h
		}
		// Supervariables: merge variables of L_p with identical element and
		// variable lists (and the same constraint set).
		byHash = append(byHash[:0], L...)
		slices.SortFunc(byHash, func(a, b int32) int { return cmp.Or(cmp.Compare(hash[a], hash[b]), cmp.Compare(a, b)) })
		for a := 0; a < len(byHash); a++ {
			i := byHash[a]
			if nv[i] == 0 {
				continue
			}
			marked := false
			for b := a + 1; b < len(byHash) && hash[byHash[b]] == hash[i]; b++ {
				j := byHash[b]
				if nv[j] == 0 || label[j] != label[i] ||
					len(elems[j]) != len(elems[i]) || len(vars[j]) != len(vars[i]) {
					continue
				}
				if !marked {
					sstamp++
					for _, e := range elems[i] {
						smark[e] = sstamp
					}
					for _, v := range vars[i] {
						smark[v] = sstamp
					}
					marked = true
				}
				same := true
				for _, e := range elems[j] {
					if smark[e] != sstamp {
						same = false
						break
					}
				}
				for _, v := range vars[j] {
					if !same {
						break
					}
					if smark[v] != sstamp {
						same = false
					}
				}
				if !same {
					continue
				}
				nv[i] += nv[j]
				nv[j] = 0
				member[last[i]] = j
				last[i] = last[j]
				elems[j], vars[j] = nil, nil
			}
		}
		// Approximate external degrees of the principal variables of L_p.
		remaining := n - len(perm)
		for _, i := range L {
			if nv[i] == 0 {
				continue
			}
			vw := 0
			for _, v := range vars[i] {
				vw += nv[v]
			}
			d := vw + lw - nv[i] + ext[i]
			if alt := deg[i] + lw - nv[i]; alt < d {
				d = alt
			}
			d = min(d, remaining-nv[i])
			d = max(d, 0)
			deg[i] = d
			if label[i] == cur {
				insert(i)
				if d < mindeg {
					mindeg = d
				}
			}
		}
	}
	return perm
}
