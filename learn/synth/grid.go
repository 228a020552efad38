package synth

import "fmt"

// GridTruth returns the true vertex metric, [2,n²], of a synthetic dataset
// on the n×n grid: "analytic" (AnalyticMetric) or "uniform" (all 1).
func GridTruth(truth string, n int) ([]float64, error) {
	switch truth {
	case "analytic":
		return AnalyticMetric(n), nil
	case "uniform":
		w := make([]float64, 2*n*n)
		for i := range w {
			w[i] = 1
		}
		return w, nil
	}
	return nil, fmt.Errorf("synth: unknown true metric %q (want analytic or uniform)", truth)
}

// GridPoles returns the poles of the first count sequences of PolePairs
// rasterised on the d-dimensional grid of side n (Pole.Histogram).
func GridPoles(d, n, count int) ([][2][]float64, error) {
	if count > len(PolePairs) {
		return nil, fmt.Errorf("synth: %d sequences, at most %d", count, len(PolePairs))
	}
	poles := make([][2][]float64, count)
	for s, pq := range PolePairs[:count] {
		for k, p := range pq {
			h, err := p.Histogram(d, n)
			if err != nil {
				return nil, err
			}
			poles[s][k] = h
		}
	}
	return poles, nil
}

// Poles returns the poles of the first count sequences of PolePairs on
// the graph (Graph.Pole); count is at most len(PolePairs).
func (sg *Graph) Poles(count int) [][2][]float64 {
	poles := make([][2][]float64, count)
	for s, pq := range PolePairs[:count] {
		poles[s] = [2][]float64{sg.Pole(pq[0]), sg.Pole(pq[1])}
	}
	return poles
}
