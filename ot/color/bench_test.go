package color

import (
	"fmt"
	"testing"
)

// BenchmarkMap: Sinkhorn (L iterations, 2 kernel applications each) plus
// the 4-column projection with the Euclidean kernel.
func BenchmarkMap(b *testing.B) {
	for _, n := range []int{16, 31} {
		k, _ := NewEuclidean(n, 0.005)
		tr, _ := NewTransfer(k, n)
		p, q := specMarginals(k.Size())
		b.Run(fmt.Sprintf("n=%d/L=50", n), func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				if _, err := tr.Map(p, q, 50); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHistogram: histogram of a 640×480 picture.
func BenchmarkHistogram(b *testing.B) {
	img := testPhoto(640, 480, [3]float64{1, 1, 1})
	for _, n := range []int{16, 31} {
		b.Run(fmt.Sprintf("640x480/n=%d", n), func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				if _, err := Histogram(img, &HistOptions{Bins: n}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSmooth: the bilateral smoothing of a 640×480 transfer (three
// channels, default sigmas).
func BenchmarkSmooth(b *testing.B) {
	im := FromImage(testPhoto(640, 480, [3]float64{1, 1, 1}))
	mapped := FromImage(testPhoto(640, 480, [3]float64{1.1, 0.9, 0.8}))
	out := NewImage(640, 480)
	b.Run("640x480", func(b *testing.B) {
		b.ResetTimer()
		for range b.N {
			copy(out.Pix, mapped.Pix)
			if err := Smooth(out, im, 0, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
