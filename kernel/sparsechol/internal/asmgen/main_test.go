package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpToDate checks that the package's generated files are what the
// generator writes now: go generate ./kernel/sparsechol/ rewrites them.
func TestUpToDate(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run go generate ./kernel/sparsechol/", name)
		}
	}
}

// TestCheck checks that width.check refuses placements that would put two
// live operands in one register or a 4-wide operand beyond Y15.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		what   string
		change func(*width)
		want   string
	}{
		{"rows on the column", func(w *width) { w.blockCol = w.blockRows }, "two operands"},
		{"accumulator on a row", func(w *width) { w.triAcc = placement{w.triRows.z + 1, w.triRows.y} }, "two operands"},
		{"4-wide part in Y16", func(w *width) { w.triRows.y = 16 }, "4-wide operand"},
		{"beyond Z31", func(w *width) { w.fwdTriL = 32 }, "register 32"},
		{"odd width", func(w *width) { w.cw = 18 }, "multiple of 4"},
	} {
		w := widths[2] // 20 values: two 8-wide parts and a 4-wide one
		if err := w.check(); err != nil {
			t.Fatal(err)
		}
		tc.change(&w)
		if err := w.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: check() = %v, want an error with %q", tc.what, err, tc.want)
		}
	}
}

// TestCheckQuads checks that checkQuads takes the 4-wide kernels' quads
// up to the first register they use besides, and no further.
func TestCheckQuads(t *testing.T) {
	if err := checkQuads(maxQuads); err != nil {
		t.Fatal(err)
	}
	last := min(run1.second.y, run1.l, run1.scale)
	for _, m := range []int{0, last + 1} {
		if err := checkQuads(m); err == nil {
			t.Errorf("checkQuads(%d) = nil, want an error", m)
		}
	}
	if err := checkQuads(last); err != nil {
		t.Errorf("checkQuads(%d) = %v", last, err)
	}
}
