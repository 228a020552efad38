package dataset

import (
	"fmt"
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
			for b.Loop() {
				if _, err := Load(dir, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
