// Package synth makes synthetic datasets with gmlg's own forward model: pole
// shapes on grids, the reference's analytic metric, and sequences of Sinkhorn
// barycenters under a known metric (docs/method.md, "Synthetic data"). It
// gives the CLI its built-in default dataset, the learner its recovery
// experiment and the benchmarks their deterministic inputs.
//
// Beyond grids, Geometric (a random geometric graph in the unit square)
// and Sphere (the triangulated unit sphere) make graphs with a known
// metric (Graph). CarriesMass and Pearson measure how well a learned metric
// recovers the true one on the edges the data determine.
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
//
// and on a graph, with one weight per edge:
//
//	sg, _ := synth.Sphere(20)
//	frames, _ = synth.Generate(&synth.Config{
//		Graph: sg.G, Metric: kernel.EdgeMetric{G: sg.G}, Theta: sg.Weights,
//		Heat:  kernel.HeatOptions{T: 0.2, Steps: 10},
//		Poles: [][2][]float64{{sg.Pole(synth.PolePairs[1][0]), sg.Pole(synth.PolePairs[1][1])}},
//	})
package synth
