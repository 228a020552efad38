package dataset

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkLoad loads a folder of ten n×n float64 frames.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{50, 256} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			data := make([]float64, n*n)
			for i := range data {
				data[i] = float64(i%97) + 1
			}
			for k := range 10 {
				path := filepath.Join(dir, fmt.Sprintf("array-%02d.npy", k))
				if err := WriteNpyFile(path, &Array{Shape: []int{n, n}, Data: data}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(10 * 8 * n * n))
			b.ResetTimer()
			for range b.N {
				if _, err := Load(dir, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadNpy decodes 512×512 arrays of several dtypes and orders.
func BenchmarkReadNpy(b *testing.B) {
	const n = 512
	data := make([]float64, n*n)
	for i := range data {
		data[i] = float64(i % 200)
	}
	for _, e := range []enc{{"<f8", false}, {">f4", true}, {"|u1", false}} {
		raw := npyBytes(b, e.descr, e.fortran, []int{n, n}, data)
		b.Run(fmt.Sprintf("%s/fortran=%v", e.descr, e.fortran), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ResetTimer()
			for range b.N {
				if _, err := ReadNpy(bytes.NewReader(raw)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteNpy writes a 64³ array.
func BenchmarkWriteNpy(b *testing.B) {
	a := &Array{Shape: []int{64, 64, 64}, Data: make([]float64, 64*64*64)}
	b.SetBytes(int64(8 * len(a.Data)))
	b.ResetTimer()
	for range b.N {
		if err := WriteNpy(io.Discard, a); err != nil {
			b.Fatal(err)
		}
	}
}
