package draw

import (
	"fmt"
	"testing"
)

// BenchmarkHeatMaps renders the two panels of a 2-D metric.
func BenchmarkHeatMaps(b *testing.B) {
	for _, n := range []int{50, 128} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ps, err := MetricPanels(analyticMetric(n), 2, n)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := HeatMaps(ps, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHistogramStrip draws three histograms of n³ bins at the colour
// commands' panel size.
func BenchmarkHistogramStrip(b *testing.B) {
	for _, n := range []int{8, 16, 31} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			hs := [][]float64{twoBlobs(n), twoBlobs(n), twoBlobs(n)}
			b.ResetTimer()
			for range b.N {
				if _, err := HistogramStrip(hs, n, nil, &HistogramOptions{Size: 200}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
