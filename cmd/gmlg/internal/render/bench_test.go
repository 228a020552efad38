package render

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
			for b.Loop() {
				if _, err := HeatMaps(ps, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
