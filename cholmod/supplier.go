//go:build cgo

package cholmod

import (
	"fmt"
	"slices"

	"github.com/gmlg/gmlg/kernel/factor"
)

var _ factor.Supplier = Supplier{}

// Order runs CHOLMOD's analysis of p with the ordering that s and opt ask
// for (see Supplier.Ordering) and returns its pivot order, postordered,
// and the name of the ordering used.
func (s Supplier) Order(p *factor.Pattern, opt *factor.Options) (perm []int, ordering string, err error) {
	ord, err := s.ordering(opt)
	if err != nil {
		return nil, "", err
	}
	cc, err := NewCommon()
	if err != nil {
		return nil, "", err
	}
	defer cc.Close()
	a, err := cc.NewSparse(p.N, p.ColPtr, p.RowIdx, nil)
	if err != nil {
		return nil, "", err
	}
	f, err := cc.Analyze(a, &AnalyzeOptions{Ordering: ord, Mode: Simplicial})
	if err != nil {
		return nil, "", err
	}
	return factorPerm(f.lf), f.info.Used, nil
}

// Prepare analyses p in the layout's pivot order, kept as it is, for a
// supernodal factorisation. It leaves the BLAS's thread count as it is
// (see SetBLASThreads).
func (s Supplier) Prepare(p *factor.Pattern, lay *factor.Layout) (factor.Numeric, error) {
	cc, err := NewCommon()
	if err != nil {
		return nil, err
	}
	nu := &numeric{cc: cc, lay: lay, snode: make([]int32, p.N), pos: make([]int32, p.N), mark: make([]int32, p.N)}
	nu.a, err = cc.NewSparse(p.N, p.ColPtr, p.RowIdx, nil)
	if err == nil {
		nu.f, err = cc.Analyze(nu.a, &AnalyzeOptions{Perm: lay.Perm, Mode: Supernodal})
	}
	if err == nil && !slices.Equal(factorPerm(nu.f.lf), lay.Perm) {
		err = fmt.Errorf("cholmod: prepare: the analysis did not keep the given pivot order")
	}
	if err != nil {
		cc.Close()
		return nil, err
	}
	for s := 0; s+1 < len(lay.First); s++ {
		for j := lay.First[s]; j < lay.First[s+1]; j++ {
			nu.snode[j] = int32(s)
		}
	}
	return nu, nil
}

// numeric is the factor.Numeric of Supplier.
type numeric struct {
	cc  *Common
	a   *Sparse
	f   *Factor
	lay *factor.Layout
	// snode[j] is the layout's supernode of column j; Fill sets pos[i] to
	// the position of row i among the rows of the supernode s it copies
	// into, and mark[i] to s.
	snode, pos, mark []int32
}

// Fill factorises the matrix of values with CHOLMOD and copies L into lx,
// column by column, at the layout's positions. An entry that CHOLMOD keeps
// and the layout does not is one of the explicit zeros of CHOLMOD's
// relaxed supernodes; Fill checks that it is zero.
func (nu *numeric) Fill(lx, values []float64) error {
	if nu.cc == nil {
		panic("cholmod: Fill on a closed Numeric")
	}
	if err := nu.a.SetValues(values); err != nil {
		return err
	}
	if err := nu.f.Factorize(nu.a); err != nil && !isWarning(err) {
		return err
	}
	if !supernodalLL(nu.f.lf) {
		return fmt.Errorf("cholmod: fill: %w: the factor is not a supernodal LL'", ErrInvalid)
	}
	sv := superView(nu.f.lf)
	lay := nu.lay
	for i := range nu.mark {
		nu.mark[i] = -1
	}
	cur := -1
	for S := 0; S+1 < len(sv.super); S++ {
		k1, k2 := int(sv.super[S]), int(sv.super[S+1])
		rows := sv.s[sv.pi[S]:sv.pi[S+1]]
		h := len(rows)
		xs := sv.x[sv.px[S]:]
		for j := k1; j < k2; j++ {
			if s := int(nu.snode[j]); s != cur {
				cur = s
				for r, i := range lay.Rows[lay.RowPtr[s]:lay.RowPtr[s+1]] {
					nu.pos[i], nu.mark[i] = int32(r), int32(s)
				}
			}
			w := lay.First[cur+1] - lay.First[cur]
			base := lay.Off[cur] + j - lay.First[cur]
			c := j - k1
			col := xs[c*h : (c+1)*h]
			for r := c; r < h; r++ {
				i := rows[r]
				if nu.mark[i] == int32(cur) {
					lx[base+int(nu.pos[i])*w] = col[r]
				} else if col[r] != 0 {
					return fmt.Errorf("cholmod: fill: L(%d, %d) = %v lies outside the layout", i, j, col[r])
				}
			}
		}
	}
	return nil
}

// Close frees the Common, and with it the matrix and the factor.
func (nu *numeric) Close() error {
	if nu.cc == nil {
		return nil
	}
	err := nu.cc.Close()
	nu.cc, nu.a, nu.f = nil, nil, nil
	return err
}
