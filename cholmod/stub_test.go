//go:build !cgo

package cholmod

import (
	"errors"
	"testing"

	"github.com/gmlg/gmlg/kernel/factor"
)

// TestStubErrors checks that every entry point with an error result reports
// ErrNoCgo in a build without cgo.
func TestStubErrors(t *testing.T) {
	var (
		c *Common
		s *Sparse
		f *Factor
	)
	x := make([]float64, 4)
	tests := []struct {
		name string
		call func() error
	}{
		{"NewCommon", func() error { _, err := NewCommon(); return err }},
		{"Supplier.Order", func() error {
			p := &factor.Pattern{N: 1, ColPtr: []int{0, 1}, RowIdx: []int{0}}
			_, _, err := Supplier{}.Order(p, nil)
			return err
		}},
		{"Supplier.Prepare", func() error {
			p := &factor.Pattern{N: 1, ColPtr: []int{0, 1}, RowIdx: []int{0}}
			_, err := Supplier{}.Prepare(p, &factor.Layout{Perm: []int{0}})
			return err
		}},
		{"Common.NewSparse", func() error { _, err := c.NewSparse(1, []int{0, 1}, []int{0}, nil); return err }},
		{"Common.Analyze", func() error { _, err := c.Analyze(s, nil); return err }},
		{"Sparse.SetValues", func() error { return s.SetValues(x[:1]) }},
		{"Factor.Factorize", func() error { return f.Factorize(s) }},
		{"Factor.Solve", func() error { return f.Solve(x, x, 1) }},
		{"Factor.ExportL", func() error { _, err := f.ExportL(); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrNoCgo) {
				t.Errorf("err = %v, want ErrNoCgo", err)
			}
		})
	}
}

// TestStubPanics checks that the methods without an error result panic with
// ErrNoCgo, except Free and Close, which do nothing.
func TestStubPanics(t *testing.T) {
	var (
		s *Sparse
		f *Factor
	)
	tests := []struct {
		name      string
		call      func()
		wantPanic bool
	}{
		{"Sparse.N", func() { s.N() }, true},
		{"Sparse.NNZ", func() { s.NNZ() }, true},
		{"Sparse.Values", func() { s.Values(nil) }, true},
		{"Factor.N", func() { f.N() }, true},
		{"Factor.Info", func() { f.Info() }, true},
		{"Factor.Valid", func() { f.Valid() }, true},
		{"Sparse.Free", func() { s.Free() }, false},
		{"Factor.Free", func() { f.Free() }, false},
		{"Common.Close", func() {
			if err := (*Common)(nil).Close(); err != nil {
				panic(err)
			}
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := recovered(tc.call)
			if !tc.wantPanic {
				if got != nil {
					t.Fatalf("panicked with %v, want no panic", got)
				}
				return
			}
			if err, ok := got.(error); !ok || !errors.Is(err, ErrNoCgo) {
				t.Fatalf("panic value %v, want ErrNoCgo", got)
			}
		})
	}
}

// recovered runs f and returns the value it panicked with, nil if none.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestStubInfo checks what the package reports about the missing libraries
// and the wording of ErrNoCgo, which the command shows to users.
func TestStubInfo(t *testing.T) {
	if Version != "" {
		t.Errorf("Version = %q, want empty", Version)
	}
	if SetBLASThreads(2) {
		t.Error("SetBLASThreads reports OpenBLAS in a build without cgo")
	}
	if n := BLASThreads(); n != 0 {
		t.Errorf("BLASThreads = %d, want 0", n)
	}
	if got := (Supplier{}).Name(); got != "cholmod" {
		t.Errorf("Name = %q, want cholmod", got)
	}
	const want = "cholmod: built without cgo (CGO_ENABLED=0); the pure-Go backend is used instead"
	if ErrNoCgo.Error() != want {
		t.Errorf("ErrNoCgo = %q, want %q", ErrNoCgo, want)
	}
}
