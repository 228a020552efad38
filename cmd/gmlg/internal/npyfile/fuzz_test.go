package npyfile

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzRead checks that arbitrary bytes never panic the reader, that every
// failure wraps one of the package's sentinel errors, and that whatever is
// accepted survives a float64 write/read round trip unchanged.
// Seeds: f.Add below plus testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	Write(&buf, &Array{Shape: []int{2, 3}, Data: []float64{1, 2, 3, 4, 5, 6}}, &WriteOptions{DType: ">i4", Fortran: true})
	f.Add(buf.Bytes())
	buf.Reset()
	Write(&buf, &Array{Shape: []int{2, 2, 2}, Data: []float64{0, 1, 0, 1, 1, 1, 0, 0}}, &WriteOptions{DType: "|b1", Version: 3})
	f.Add(buf.Bytes())
	f.Add([]byte(magic + "\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data))
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
		if err := Write(&out, a, nil); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		b, err := Read(&out)
		if err != nil {
			t.Fatalf("reread: %v", err)
		}
		if !equalData(a.Data, b.Data) || len(a.Shape) != len(b.Shape) {
			t.Fatalf("round trip changed the array")
		}
	})
}
