// Package synth makes synthetic datasets with gmlg's own forward model: pole
// shapes on grids, the reference's analytic metric, and sequences of Sinkhorn
// barycenters under a known metric (docs/method.md, "Synthetic data"). It
// gives the CLI its built-in default dataset, the learner its recovery
// experiment and the benchmarks their deterministic inputs.
//
// # Example
//
//	g, _ := kernel.Cube(2, 50)
//	p, _ := synth.StickTopLeft.Histogram(2, 50)
//	q, _ := synth.StickBottomRight.Histogram(2, 50)
//	frames, _ := synth.Generate(&synth.Config{
//		Graph: g, Metric: kernel.VertexMetric{G: g}, Theta: synth.AnalyticMetric(50),
//		Heat: kernel.HeatOptions{T: 3e-3, Steps: 100}, Poles: [][2][]float64{{p, q}},
//	})
package synth
