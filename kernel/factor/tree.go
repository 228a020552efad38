package factor

import (
	"errors"
	"fmt"
)

// Tree is the supernodal elimination tree of an analysed factor, in the
// factor's pivot order: supernode s holds Cols[s] consecutive columns of L
// and Rows[s] rows (its own columns included), and its parent is Parent[s]
// (greater than s), or -1 for a root.
type Tree struct {
	Parent []int
	Cols   []int
	Rows   []int
}

// TreeReporter is an optional interface of a Factor that can describe its
// supernodal tree.
type TreeReporter interface {
	Tree() (Tree, error)
}

// Validate checks the shape of t: equal lengths, positive column counts,
// rows at least the columns, parents after their children.
func (t Tree) Validate() error {
	ns := len(t.Parent)
	if len(t.Cols) != ns || len(t.Rows) != ns {
		return fmt.Errorf("factor: tree with %d parents, %d column counts and %d row counts", ns, len(t.Cols), len(t.Rows))
	}
	for s := range ns {
		if t.Cols[s] < 1 || t.Rows[s] < t.Cols[s] {
			return fmt.Errorf("factor: tree node %d has %d columns and %d rows", s, t.Cols[s], t.Rows[s])
		}
		if p := t.Parent[s]; p != -1 && (p <= s || p >= ns) {
			return fmt.Errorf("factor: tree node %d has parent %d", s, p)
		}
	}
	return nil
}

// ColumnTree groups the columns of L into fundamental supernodes, given the
// elimination tree (parent[j] > j, or -1) and the entries of each column
// (count[j], diagonal included): column j+1 joins the supernode of j when
// it is j's parent, j is its only child and count[j] = count[j+1]+1.
func ColumnTree(parent, count []int) (Tree, error) {
	n := len(parent)
	if len(count) != n {
		return Tree{}, fmt.Errorf("factor: column tree of %d parents and %d counts", n, len(count))
	}
	children := make([]int, n)
	for j, p := range parent {
		if p != -1 && (p <= j || p >= n) {
			return Tree{}, fmt.Errorf("factor: column %d has parent %d", j, p)
		}
		if count[j] < 1 {
			return Tree{}, fmt.Errorf("factor: column %d has %d entries", j, count[j])
		}
		if p >= 0 {
			children[p]++
		}
	}
	var t Tree
	snode := make([]int, n)
	for j := 0; j < n; j++ {
		s := len(t.Cols)
		if j > 0 && parent[j-1] == j && children[j] == 1 && count[j-1] == count[j]+1 {
			s--
			t.Cols[s]++
		} else {
			t.Cols = append(t.Cols, 1)
			t.Rows = append(t.Rows, count[j])
		}
		snode[j] = s
	}
	t.Parent = make([]int, len(t.Cols))
	last := -1
	for s := range t.Cols {
		last += t.Cols[s]
		t.Parent[s] = -1
		if p := parent[last]; p >= 0 {
			t.Parent[s] = snode[p]
		}
	}
	return t, nil
}

// SpanBlock is the panel width and the row grain of the schedule Span
// measures: a 32×32 task on 16 right-hand sides is microseconds of work,
// and the largest separator of the paper's grids (32³: about 1 000
// columns) still cuts into some 30 panels.
const SpanBlock = 32

// Span returns the work of one triangular solve with L, one right-hand side,
// in factor entries (each one multiply-add), and the critical path of the
// tree schedule, in the same unit. In that schedule a supernode starts when
// its children are done; each panel of SpanBlock columns is a triangle task
// followed by update tasks of SpanBlock rows that may run side by side.
// The backward solve runs the same tasks in reverse, so work/span bounds the
// speed-up of a whole-block solve on any number of workers: 1 for a path
// graph, growing with the tree's width.
func (t Tree) Span() (work, span float64, err error) {
	if err := t.Validate(); err != nil {
		return 0, 0, err
	}
	if len(t.Parent) == 0 {
		return 0, 0, errors.New("factor: span of an empty tree")
	}
	path := make([]float64, len(t.Parent)) // longest chain ending at s
	for s := range t.Parent {
		w, h := t.Cols[s], t.Rows[s]
		var own float64
		for c0 := 0; c0 < w; c0 += SpanBlock {
			b := min(SpanBlock, w-c0)
			below := h - c0 - b
			work += float64(b*(b+1)/2 + b*below)
			own += float64(b*(b+1)/2 + b*min(SpanBlock, below))
		}
		path[s] += own
		span = max(span, path[s])
		if p := t.Parent[s]; p >= 0 {
			path[p] = max(path[p], path[s])
		}
	}
	return work, span, nil
}

// ScheduleReporter is an optional interface of a Factor whose solves run
// on a schedule of their own (the engine's team of workers).
// ScheduleTime returns the work of one solve and the time its schedule
// takes on p workers, in entries of L, with synchronisation and memory
// free: work/time bounds the speed-up of the factor's own solves on p
// workers, as Tree.Span's ratio bounds that of any schedule of the tree.
type ScheduleReporter interface {
	ScheduleTime(p int) (work, time float64, err error)
}
