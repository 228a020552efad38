package npyfile

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkRead decodes n×n arrays of several dtypes and orders.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{50, 512} {
		for _, o := range []WriteOptions{{DType: "<f8"}, {DType: ">f4", Fortran: true}, {DType: "|u1"}} {
			a := &Array{Shape: []int{n, n}, Data: make([]float64, n*n)}
			for i := range a.Data {
				a.Data[i] = float64(i % 200)
			}
			var buf bytes.Buffer
			if err := Write(&buf, a, &o); err != nil {
				b.Fatal(err)
			}
			raw := buf.Bytes()
			b.Run(fmt.Sprintf("n=%d/%s/fortran=%v", n, o.DType, o.Fortran), func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					if _, err := Read(bytes.NewReader(raw)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkReadFile reads a 512×512 float64 file from disk.
func BenchmarkReadFile(b *testing.B) {
	n := 512
	a := &Array{Shape: []int{n, n}, Data: make([]float64, n*n)}
	path := b.TempDir() + "/a.npy"
	if err := WriteFile(path, a, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(8 * n * n))
	for b.Loop() {
		if _, err := ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
}
