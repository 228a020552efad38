package sparsechol

import (
	"cmp"
	"slices"

	"github.com/gmlg/gmlg/kernel/factor"
)

// symbolic is the result of the analysis of one pattern: the final pivot
// order, the supernode partition with its row structure, the storage layout
// of L, and the split of the supernodal tree between workers.
type symbolic struct {
	n    int
	perm []int // perm[k] = original index of pivot k
	nnzL int   // exact entries of L (diagonal included), without relaxed zeros

	// Supernode s holds columns first[s]..first[s+1]-1 and the rows
	// rows[rowPtr[s]:rowPtr[s+1]] (sorted; the first w_s are its own
	// columns). Its values are a row-major h_s×w_s block at lx[off[s]:].
	ns     int
	first  []int
	rowPtr []int
	rows   []int32
	off    []int
	lsize  int
	snode  []int32 // supernode of each column
	parent []int   // supernodal tree (-1 for roots)

	// Groups: group g owns supernodes gStart[g]..gStart[g+1]-1 (whole
	// subtrees); supernodes from gStart[ng] on (columns from topCol on)
	// form the top of the tree, handled after the groups. The groups do
	// not depend on the number of workers, so neither does the order of
	// any sum.
	ng     int
	gStart []int
	// groupOrder lists the groups from the most work to the least: a
	// solve's team claims them in that order (largest first balances the
	// workers best), which changes no result.
	groupOrder []int
	topCol     int
	// split[s] is the first row position of s at or beyond topCol.
	split []int
	// Buffered updates (schedule.go). A group from 1 on sends its updates
	// of the top rows to rows gBase[g]..gBase[g+1]-1 of the buffer: trows
	// is rows with, from split[s] on, the buffer row of each row for the
	// supernodes of those groups. The top's waves: wave v holds the top
	// supernodes waveNodes[waveStart[v]:waveStart[v+1]] (increasing), those
	// whose longest chain of top descendants has v supernodes; in a wave of
	// more than one, supernode s sends its updates of the rows below it to
	// rows bufRow[s].. of the buffer, and its packed block starts at column
	// packCol[s] of the wave's. A sum j adds the buffer rows
	// sumSrc[sumPtr[j]:sumPtr[j+1]], in that order, to row sumRows[j] of
	// the block: the groups' sums are j < waveSum[0], wave v's from
	// waveSum[v] to waveSum[v+1].
	trows                []int32
	gBase                []int
	waveStart, waveNodes []int
	bufRow, packCol      []int
	waveSum              []int
	sumRows, sumSrc      []int32
	sumPtr               []int
	maxBuf, maxPack      int     // the buffer's rows (the groups' or the largest wave's) and the largest wave's packed columns
	iota                 []int32 // 0, 1, …, maxBuf−1
	// single[s]: s has one column and its rows below all lie before
	// topCol, so that the vector kernels may eliminate a run of such
	// supernodes in one call.
	single []bool

	// The waves' tasks in the order the team claims them (schedule.go):
	// wave v's forward tasks are fwdPlan[fwdAt[v]:fwdAt[v+1]], its
	// backward ones bwdPlan[bwdAt[v]:bwdAt[v+1]]; either way they read
	// waveWork[v] entries of L.
	fwdPlan, bwdPlan []topTask
	fwdAt, bwdAt     []int
	waveWork         []int

	// dest[k] is the position in lx of the k-th stored entry of the
	// original pattern.
	dest []int

	maxUpd  int // size of the largest dense update buffer
	maxGath int // largest off-diagonal height (rows)
	maxW    int // widest supernode (columns)
}

// permutedLower lists the strictly lower entries (hi, lo) of the pattern
// permuted by pinv, grouped by hi (byRows: for row k the columns m < k,
// unsorted) or by lo (for column j the rows i > j), in CSR/CSC form.
func permutedLower(p *factor.Pattern, pinv []int, byRows bool) (ptr []int, idx []int32) {
	n := p.N
	split := func(j, k int) (key, val int) {
		a, b := pinv[p.RowIdx[k]], pinv[j]
		hi, lo := max(a, b), min(a, b)
		if byRows {
			return hi, lo
		}
		return lo, hi
	}
	ptr = make([]int, n+1)
	for j := 0; j < n; j++ {
		for k := p.ColPtr[j] + 1; k < p.ColPtr[j+1]; k++ {
			key, _ := split(j, k)
			ptr[key+1]++
		}
	}
	for k := 0; k < n; k++ {
		ptr[k+1] += ptr[k]
	}
	idx = make([]int32, ptr[n])
	pos := append([]int(nil), ptr[:n]...)
	for j := 0; j < n; j++ {
		for k := p.ColPtr[j] + 1; k < p.ColPtr[j+1]; k++ {
			key, val := split(j, k)
			idx[pos[key]] = int32(val)
			pos[key]++
		}
	}
	return ptr, idx
}

// etree computes the elimination tree from the lower part by rows.
func etree(n int, ptr []int, idx []int32) []int {
	parent := make([]int, n)
	anc := make([]int, n)
	for k := 0; k < n; k++ {
		parent[k], anc[k] = -1, -1
		for _, m := range idx[ptr[k]:ptr[k+1]] {
			for i := int(m); i != -1 && i != k; {
				nx := anc[i]
				anc[i] = k
				if nx == -1 {
					parent[i] = k
				}
				i = nx
			}
		}
	}
	return parent
}

// postorder returns a postordering of the forest given by parent, visiting
// children in increasing order.
func postorder(parent []int) []int {
	n := len(parent)
	head := make([]int, n)
	next := make([]int, n)
	for i := range head {
		head[i] = -1
	}
	for j := n - 1; j >= 0; j-- {
		if p := parent[j]; p >= 0 {
			next[j] = head[p]
			head[p] = j
		}
	}
	post := make([]int, 0, n)
	stack := make([]int, 0, 64)
	for r := 0; r < n; r++ {
		if parent[r] >= 0 {
			continue
		}
		stack = append(stack, r)
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if c := head[top]; c >= 0 {
				head[top] = next[c]
				stack = append(stack, c)
			} else {
				stack = stack[:len(stack)-1]
				post = append(post, top)
			}
		}
	}
	return post
}

func inverse(perm []int) []int {
	pinv := make([]int, len(perm))
	for k, i := range perm {
		pinv[i] = k
	}
	return pinv
}

// Relaxed amalgamation thresholds (the defaults of CHOLMOD's supernodal
// analysis): a merged supernode of at most relaxCols[t] columns is accepted
// when its fraction of explicit zeros is below relaxZeros[t].
var (
	relaxCols  = [...]int{4, 16, 48}
	relaxZeros = [...]float64{0.8, 0.1, 0.05}
)

// analyze performs the symbolic analysis of p for the pivot order perm0,
// cutting the tree into numGroups groups.
func analyze(p *factor.Pattern, perm0 []int) *symbolic {
	n := p.N
	// Postorder the elimination tree so supernodes are contiguous.
	pinv := inverse(perm0)
	ptr, idx := permutedLower(p, pinv, true)
	post := postorder(etree(n, ptr, idx))
	perm1 := make([]int, n)
	for k, j := range post {
		perm1[k] = perm0[j]
	}
	pinv = inverse(perm1)
	ptr, idx = permutedLower(p, pinv, true)
	par := etree(n, ptr, idx)

	// Column counts by walking the row subtrees.
	cnt := make([]int, n)
	mark := make([]int, n)
	for i := range mark {
		mark[i] = -1
	}
	nnzL := 0
	for k := 0; k < n; k++ {
		mark[k] = k
		cnt[k]++
		for _, m := range idx[ptr[k]:ptr[k+1]] {
			for i := int(m); mark[i] != k; i = par[i] {
				mark[i] = k
				cnt[i]++
			}
		}
	}
	nchild := make([]int, n)
	for j := 0; j < n; j++ {
		nnzL += cnt[j]
		if par[j] >= 0 {
			nchild[par[j]]++
		}
	}

	// Fundamental supernodes, merged with relaxed amalgamation. Supernode
	// t covers columns sf[t]..sf[t]+sw[t]-1; sh[t] is the height of its
	// first column, snz[t] its exact entries.
	var sf, sw, sh, snz []int
	for j := 0; j < n; {
		s := j
		for j+1 < n && par[j] == j+1 && nchild[j+1] == 1 && cnt[j] == cnt[j+1]+1 {
			j++
		}
		j++
		w := j - s
		nz := 0
		for c := s; c < j; c++ {
			nz += cnt[c]
		}
		h := cnt[s]
		// Try merging the previous supernode (a child of this one).
		for len(sf) > 0 {
			t := len(sf) - 1
			last := sf[t] + sw[t] - 1
			if last+1 != s || par[last] != s {
				break
			}
			mw := sw[t] + w
			mh := sw[t] + h
			store := mw*mh - mw*(mw-1)/2
			mnz := snz[t] + nz
			z := float64(store-mnz) / float64(store)
			ok := mw <= relaxCols[0]
			for r := 1; r < len(relaxCols) && !ok; r++ {
				ok = mw <= relaxCols[r] && z < relaxZeros[r-1]
			}
			ok = ok || z < relaxZeros[len(relaxZeros)-1]
			if !ok {
				break
			}
			s, w, h, nz = sf[t], mw, mh, mnz
			sf, sw, sh, snz = sf[:t], sw[:t], sh[:t], snz[:t]
		}
		sf, sw, sh, snz = append(sf, s), append(sw, w), append(sh, h), append(snz, nz)
	}
	ns := len(sf)
	colSn := make([]int, n)
	for t := 0; t < ns; t++ {
		for c := sf[t]; c < sf[t]+sw[t]; c++ {
			colSn[c] = t
		}
	}
	spar := make([]int, ns)
	for t := 0; t < ns; t++ {
		spar[t] = -1
		if q := par[sf[t]+sw[t]-1]; q >= 0 {
			spar[t] = colSn[q]
		}
	}

	// Cut the supernodal tree into groups and reorder supernodes: the
	// subtrees of group 0, of group 1, …, then the top.
	work := make([]float64, ns)
	for t := 0; t < ns; t++ {
		work[t] = float64(sh[t]*sw[t]) - float64(sw[t]*(sw[t]-1))/2
	}
	total := 0.0
	for _, v := range work {
		total += v
	}
	ng := numGroups(total)
	order, gcount := splitTree(spar, work, ng)
	sym := &symbolic{n: n, ns: ns, nnzL: nnzL, ng: ng}
	newSn := make([]int, ns)
	for k, t := range order {
		newSn[t] = k
	}
	sym.first = make([]int, ns+1)
	sym.parent = make([]int, ns)
	perm := make([]int, 0, n)
	for k, t := range order {
		sym.first[k] = len(perm)
		for c := sf[t]; c < sf[t]+sw[t]; c++ {
			perm = append(perm, perm1[c])
		}
		sym.parent[k] = -1
		if spar[t] >= 0 {
			sym.parent[k] = newSn[spar[t]]
		}
	}
	sym.first[ns] = n
	sym.perm = perm
	sym.gStart = make([]int, sym.ng+1)
	for g := range sym.ng {
		sym.gStart[g+1] = sym.gStart[g] + gcount[g]
	}
	sym.topCol = sym.first[sym.gStart[sym.ng]]
	gwork := make([]float64, sym.ng)
	for g := range sym.ng {
		sym.groupOrder = append(sym.groupOrder, g)
		for k := sym.gStart[g]; k < sym.gStart[g+1]; k++ {
			gwork[g] += work[order[k]]
		}
	}
	slices.SortStableFunc(sym.groupOrder, func(a, b int) int { return cmp.Compare(gwork[b], gwork[a]) })
	sym.snode = make([]int32, n)
	for s := 0; s < ns; s++ {
		for c := sym.first[s]; c < sym.first[s+1]; c++ {
			sym.snode[c] = int32(s)
		}
	}

	// Row structure of every supernode: its columns, the entries of A
	// below them and the rows of its children below them.
	pinv = inverse(perm)
	colPtr, colIdx := permutedLower(p, pinv, false)
	children := make([][]int, ns)
	for s := 0; s < ns; s++ {
		if q := sym.parent[s]; q >= 0 {
			children[q] = append(children[q], s)
		}
	}
	sym.rowPtr = make([]int, ns+1)
	sym.off = make([]int, ns+1)
	for i := range mark {
		mark[i] = -1
	}
	var buf []int32
	for s := 0; s < ns; s++ {
		f, l := sym.first[s], sym.first[s+1]
		buf = buf[:0]
		for c := f; c < l; c++ {
			buf = append(buf, int32(c))
			mark[c] = s
		}
		for c := f; c < l; c++ {
			for _, i := range colIdx[colPtr[c]:colPtr[c+1]] {
				if mark[i] != s {
					mark[i] = s
					buf = append(buf, i)
				}
			}
		}
		for _, ch := range children[s] {
			for _, i := range sym.rows[sym.rowPtr[ch]+sym.first[ch+1]-sym.first[ch] : sym.rowPtr[ch+1]] {
				if mark[i] != s {
					mark[i] = s
					buf = append(buf, i)
				}
			}
		}
		slices.Sort(buf[l-f:])
		sym.rows = append(sym.rows, buf...)
		sym.rowPtr[s+1] = len(sym.rows)
		h, w := len(buf), l-f
		sym.off[s+1] = sym.off[s] + h*w
	}
	sym.lsize = sym.off[ns]

	// Row positions at or beyond the top, the groups' rows there, and
	// buffer sizes.
	sym.split = make([]int, ns)
	maxW := slices.Max(sw)
	sym.maxW = maxW
	for s := 0; s < ns; s++ {
		w := sym.first[s+1] - sym.first[s]
		r := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
		k, _ := slices.BinarySearch(r, int32(sym.topCol))
		sym.split[s] = max(k, w)
		off := len(r) - w
		sym.maxGath = max(sym.maxGath, off)
		sym.maxUpd = max(sym.maxUpd, off*min(off, maxW))
	}
	sym.bufferRows(mark)
	sym.makeWaves()
	sym.makePlans()
	sym.single = make([]bool, ns)
	for s := range ns {
		sym.single[s] = sym.first[s+1]-sym.first[s] == 1 && sym.split[s] == sym.rowPtr[s+1]-sym.rowPtr[s]
	}

	// Destination of every original entry in lx.
	sym.dest = make([]int, p.NNZ())
	for j := 0; j < n; j++ {
		for k := p.ColPtr[j]; k < p.ColPtr[j+1]; k++ {
			a, b := pinv[p.RowIdx[k]], pinv[j]
			row, col := max(a, b), min(a, b)
			s := int(sym.snode[col])
			r := sym.rows[sym.rowPtr[s]:sym.rowPtr[s+1]]
			pos, _ := slices.BinarySearch(r, int32(row))
			w := sym.first[s+1] - sym.first[s]
			sym.dest[k] = sym.off[s] + pos*w + col - sym.first[s]
		}
	}
	return sym
}

// bufferRows lays out the buffer rows of the groups from 1 on (each
// group's top rows in increasing order), makes trows and the groups' sums.
// mark is scratch of n entries.
func (sym *symbolic) bufferRows(mark []int) {
	sym.trows = slices.Clone(sym.rows)
	sym.gBase = make([]int, sym.ng+1)
	sym.sumPtr = []int{0}
	for i := range mark {
		mark[i] = -1
	}
	var cs []contrib
	for g := 1; g < sym.ng; g++ {
		var list []int32
		for s := sym.gStart[g]; s < sym.gStart[g+1]; s++ {
			for _, i := range sym.rows[sym.rowPtr[s]+sym.split[s] : sym.rowPtr[s+1]] {
				if mark[i] != g {
					mark[i] = g
					list = append(list, i)
				}
			}
		}
		slices.Sort(list)
		base := sym.gBase[g]
		for k, i := range list {
			mark[i] = base + k
			cs = append(cs, contrib{i, int32(base + k)})
		}
		for s := sym.gStart[g]; s < sym.gStart[g+1]; s++ {
			t := sym.trows[sym.rowPtr[s]+sym.split[s] : sym.rowPtr[s+1]]
			for p, i := range t {
				t[p] = int32(mark[i])
			}
		}
		for _, i := range list {
			mark[i] = -1
		}
		sym.gBase[g+1] = base + len(list)
	}
	sym.maxBuf = sym.gBase[sym.ng]
	sym.addSums(cs)
}

// contrib is a buffered update: buffer row src goes to row of the block.
type contrib struct{ row, src int32 }

// addSums appends the sums of cs, by row, and for each row in the order
// of the buffer rows (of the groups, or of a wave's supernodes).
func (sym *symbolic) addSums(cs []contrib) {
	slices.SortFunc(cs, func(a, b contrib) int { return cmp.Or(cmp.Compare(a.row, b.row), cmp.Compare(a.src, b.src)) })
	for k, c := range cs {
		if k == 0 || c.row != cs[k-1].row {
			if k > 0 {
				sym.sumPtr = append(sym.sumPtr, len(sym.sumSrc))
			}
			sym.sumRows = append(sym.sumRows, c.row)
		}
		sym.sumSrc = append(sym.sumSrc, c.src)
	}
	if len(cs) > 0 {
		sym.sumPtr = append(sym.sumPtr, len(sym.sumSrc))
	}
}

// makeWaves cuts the top into waves and lays out their buffers and sums
// (see symbolic.waveStart).
func (sym *symbolic) makeWaves() {
	top := sym.gStart[sym.ng]
	level := make([]int, sym.ns)
	nw := 0
	for s := top; s < sym.ns; s++ {
		if q := sym.parent[s]; q >= 0 {
			level[q] = max(level[q], level[s]+1)
		}
		nw = max(nw, level[s]+1)
	}
	sym.waveStart = make([]int, nw+1)
	for s := top; s < sym.ns; s++ {
		sym.waveStart[level[s]+1]++
	}
	for v := range nw {
		sym.waveStart[v+1] += sym.waveStart[v]
	}
	sym.waveNodes = make([]int, sym.ns-top)
	next := slices.Clone(sym.waveStart[:nw])
	for s := top; s < sym.ns; s++ {
		sym.waveNodes[next[level[s]]] = s
		next[level[s]]++
	}
	sym.bufRow = make([]int, sym.ns)
	sym.packCol = make([]int, sym.ns)
	sym.waveSum = make([]int, nw+1)
	sym.waveSum[0] = len(sym.sumRows)
	var cs []contrib
	for v := range nw {
		nodes := sym.waveNodes[sym.waveStart[v]:sym.waveStart[v+1]]
		rowsIn, cols := 0, 0
		cs = cs[:0]
		for _, s := range nodes {
			w := sym.first[s+1] - sym.first[s]
			sym.packCol[s] = cols
			cols += w
			if len(nodes) == 1 {
				continue
			}
			sym.bufRow[s] = rowsIn
			for r, i := range sym.rows[sym.rowPtr[s]+w : sym.rowPtr[s+1]] {
				cs = append(cs, contrib{i, int32(rowsIn + r)})
			}
			rowsIn += sym.rowPtr[s+1] - sym.rowPtr[s] - w
		}
		sym.maxBuf, sym.maxPack = max(sym.maxBuf, rowsIn), max(sym.maxPack, cols)
		sym.addSums(cs)
		sym.waveSum[v+1] = len(sym.sumRows)
	}
	sym.iota = make([]int32, sym.maxBuf)
	for k := range sym.iota {
		sym.iota[k] = int32(k)
	}
}

// numGroups is the number of groups the supernodal tree is cut into,
// whatever the number of workers: 8, or 16 when L has more than
// manyGroupsWork entries (a 32³ grid's has 4.4 million). Each group is one
// task of a solve's team (schedule.go), so the groups bound the workers
// that share the subtrees; more groups leave more of the factor in the
// top, which the workers share by panels and chunks, and more buffered
// updates of the top rows (docs/design.md, "The cut").
func numGroups(work float64) int {
	if work > manyGroupsWork {
		return 16
	}
	return 8
}

// manyGroupsWork is the size of L (entries) above which the tree is cut
// into 16 groups rather than 8. It lies between the factors of the paper's
// table up to 100² and 16³ (at most about 0.25 million entries) and 32³'s
// (about 4.4 million), so that only 32³ gets 16.
const manyGroupsWork = 1 << 21

// topWeight sets how much the top part counts in splitTree's estimate,
// as if topWeight of the ng workers shared it: with 8 groups the top
// counts whole, with 16 (32³) half. The schedule's model on 8 and 16
// workers is best at 8 (docs/design.md, "The cut").
const topWeight = 8

// splitTree chooses whole subtrees of the forest (parent, in postorder) for
// ng groups and returns the new supernode order (group 0's subtrees, …,
// group ng-1's, then the remaining top nodes in their original order) and
// the number of nodes of each group. It greedily splits the heaviest
// subtree until the estimated time on ng workers stops improving: the
// heaviest group plus the top, weighted by topWeight/ng.
func splitTree(parent []int, work []float64, ng int) (order []int, count []int) {
	ns := len(parent)
	count = make([]int, ng)
	children := make([][]int, ns)
	var roots []int
	sub := append([]float64(nil), work...)
	for s := 0; s < ns; s++ {
		if q := parent[s]; q >= 0 {
			children[q] = append(children[q], s)
			sub[q] += sub[s]
		} else {
			roots = append(roots, s)
		}
	}
	total := 0.0
	for _, r := range roots {
		total += sub[r]
	}
	assign := func(cands []int) (bins [][]int, t float64) {
		c := append([]int(nil), cands...)
		slices.SortFunc(c, func(a, b int) int { return cmp.Or(cmp.Compare(sub[b], sub[a]), cmp.Compare(a, b)) })
		bins = make([][]int, ng)
		load := make([]float64, ng)
		top := total
		for _, s := range c {
			b := 0
			for k := 1; k < ng; k++ {
				if load[k] < load[b] {
					b = k
				}
			}
			load[b] += sub[s]
			top -= sub[s]
			bins[b] = append(bins[b], s)
		}
		return bins, slices.Max(load) + top*topWeight/float64(ng)
	}
	cands := append([]int(nil), roots...)
	bestBins, bestT := assign(cands)
	for it := 0; it < 8*ng+32 && len(cands) > 0; it++ {
		h := 0
		for k := range cands {
			if sub[cands[k]] > sub[cands[h]] {
				h = k
			}
		}
		s := cands[h]
		cands = append(cands[:h], cands[h+1:]...)
		cands = append(cands, children[s]...)
		bins, t := assign(cands)
		if t < bestT {
			bestBins, bestT = bins, t
		}
	}
	inSub := make([]bool, ns)
	for w, bin := range bestBins {
		slices.Sort(bin)
		for _, r := range bin {
			start := len(order)
			// Collect the subtree of r (postorder: descendants precede r).
			stack := []int{r}
			for len(stack) > 0 {
				t := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				order = append(order, t)
				inSub[t] = true
				stack = append(stack, children[t]...)
			}
			slices.Sort(order[start:])
			count[w] += len(order) - start
		}
	}
	for s := 0; s < ns; s++ {
		if !inSub[s] {
			order = append(order, s)
		}
	}
	return order, count
}
