package dataset

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadNpy checks that arbitrary bytes never panic the reader, that
// every failure wraps one of the package's sentinel errors, and that
// whatever is accepted survives a write/read round trip unchanged.
// Seeds: f.Add below plus testdata/fuzz/FuzzReadNpy.
func FuzzReadNpy(f *testing.F) {
	f.Add(npyBytes(f, ">i4", true, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}))
	f.Add(npyBytes(f, "|b1", false, []int{2, 2, 2}, []float64{0, 1, 0, 1, 1, 1, 0, 0}))
	f.Add(npyBytes(f, "<f2", false, []int{}, []float64{0.5}))
	f.Add([]byte("\x93NUMPY\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadNpy(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %q wraps no sentinel", err)
			}
			return
		}
		if a.Len() != len(a.Data) {
			t.Fatalf("shape %v but %d values", a.Shape, len(a.Data))
		}
		var out bytes.Buffer
		if err := WriteNpy(&out, a); err != nil {
			if len(a.Data) == 0 {
				return // npyio writes no empty array
			}
			t.Fatalf("rewrite: %v", err)
		}
		b, err := ReadNpy(&out)
		if err != nil {
			t.Fatalf("reread: %v", err)
		}
		if !equalData(a.Data, b.Data) || len(a.Shape) != len(b.Shape) {
			t.Fatalf("round trip changed the array")
		}
	})
}
