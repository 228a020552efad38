//go:build cgo

package cholmod

import (
	"fmt"
	"math"
)

// Sparse is a real symmetric N×N matrix held by CHOLMOD as its lower
// triangle (stype -1) in compressed sparse column form. Its pattern is fixed
// when it is created; SetValues overwrites the values in place.
type Sparse struct {
	cc   *Common
	a    *cSparse
	n    int
	p, i []int64   // views of CHOLMOD's column pointers and row indices
	x    []float64 // view of CHOLMOD's values
	hash uint64    // fingerprint of the pattern
}

// NewSparse copies a symmetric matrix, given by its lower triangle in CSC
// form, into CHOLMOD memory. Column j holds rows rowIdx[colPtr[j]:colPtr[j+1]],
// strictly increasing and all in [j, n); values is aligned with rowIdx (nil
// means all zeros, enough for Analyze). The inputs are validated in Go and
// copied once; the matrix keeps no reference to them.
func (c *Common) NewSparse(n int, colPtr, rowIdx []int, values []float64) (*Sparse, error) {
	c.mustBeOpen("NewSparse")
	if err := validateLower(n, colPtr, rowIdx); err != nil {
		return nil, err
	}
	if values != nil {
		if err := validateValues(len(rowIdx), values); err != nil {
			return nil, fmt.Errorf("cholmod: NewSparse: %w", err)
		}
	}
	nnz := len(rowIdx)
	a, p, i, x, err := allocLower(c.ctx, n, nnz)
	if err != nil {
		return nil, err
	}
	h := uint64(n)
	for j, v := range colPtr {
		p[j] = int64(v)
		h = mix(h, uint64(v))
	}
	for k, v := range rowIdx {
		i[k] = int64(v)
		h = mix(h, uint64(v))
	}
	clear(x)
	copy(x, values)
	s := &Sparse{cc: c, a: a, n: n, p: p, i: i, x: x, hash: h}
	c.objs[s] = struct{}{}
	return s, nil
}

// mix folds v into the running pattern fingerprint h.
func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

func validateLower(n int, colPtr, rowIdx []int) error {
	if n < 1 {
		return fmt.Errorf("cholmod: matrix order %d < 1", n)
	}
	if len(colPtr) != n+1 {
		return fmt.Errorf("cholmod: len(colPtr)=%d, want n+1=%d", len(colPtr), n+1)
	}
	if colPtr[0] != 0 || colPtr[n] != len(rowIdx) {
		return fmt.Errorf("cholmod: colPtr[0]=%d and colPtr[n]=%d, want 0 and len(rowIdx)=%d", colPtr[0], colPtr[n], len(rowIdx))
	}
	for j := 0; j < n; j++ {
		lo, hi := colPtr[j], colPtr[j+1]
		if hi < lo {
			return fmt.Errorf("cholmod: colPtr decreases at column %d", j)
		}
		prev := j - 1
		for _, r := range rowIdx[lo:hi] {
			if r <= prev || r >= n {
				return fmt.Errorf("cholmod: column %d: row indices must be strictly increasing within [%d,%d) (lower triangle), got %d after %d", j, j, n, r, prev)
			}
			prev = r
		}
	}
	return nil
}

func validateValues(nnz int, values []float64) error {
	if len(values) != nnz {
		return fmt.Errorf("len(values)=%d, want nnz=%d", len(values), nnz)
	}
	for k, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: values[%d]=%v", ErrNonFinite, k, v)
		}
	}
	return nil
}

// N is the order of the matrix.
func (s *Sparse) N() int { s.mustBeOpen("N"); return s.n }

// NNZ is the number of stored entries (lower triangle).
func (s *Sparse) NNZ() int { s.mustBeOpen("NNZ"); return len(s.i) }

// SetValues overwrites the values in place (same pattern, aligned with the
// rowIdx given to NewSparse). Non-finite values are rejected and leave the
// matrix unchanged.
func (s *Sparse) SetValues(values []float64) error {
	s.mustBeOpen("SetValues")
	if err := validateValues(len(s.i), values); err != nil {
		return fmt.Errorf("cholmod: SetValues: %w", err)
	}
	copy(s.x, values)
	return nil
}

// Values copies the current values into dst (len NNZ) and returns it; a nil
// dst is allocated.
func (s *Sparse) Values(dst []float64) []float64 {
	s.mustBeOpen("Values")
	if dst == nil {
		dst = make([]float64, len(s.x))
	}
	if len(dst) != len(s.x) {
		panic(fmt.Sprintf("cholmod: Values: len(dst)=%d, want %d", len(dst), len(s.x)))
	}
	copy(dst, s.x)
	return dst
}

// Free releases the matrix. It is idempotent; other methods panic afterwards.
// Factors analysed from s stay valid.
func (s *Sparse) Free() {
	if s == nil || s.a == nil {
		return
	}
	delete(s.cc.objs, s)
	s.release()
}

func (s *Sparse) release() {
	freeSparse(s.cc.ctx, s.a)
	s.a, s.p, s.i, s.x = nil, nil, nil, nil
}

func (s *Sparse) mustBeOpen(op string) {
	if s == nil || s.a == nil {
		panic("cholmod: " + op + " on a freed Sparse")
	}
}
