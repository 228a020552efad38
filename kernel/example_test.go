package kernel_test

import (
	"fmt"
	"math"

	"github.com/gmlg/gmlg/kernel"
)

// Blur a unit mass on a 5×5 grid with a uniform metric and back-propagate a
// loss through the kernel.
func ExampleHeat() {
	g, err := kernel.Cube(2, 5)
	if err != nil {
		panic(err)
	}
	h, err := kernel.NewHeat(g, &kernel.HeatOptions{T: 1e-2, Steps: 10})
	if err != nil {
		panic(err)
	}
	defer h.Close()

	w := make([]float64, g.NumEdges())
	for e := range w {
		w[e] = 1
	}
	if err := h.SetWeights(w); err != nil {
		panic(err)
	}
	src := make([]float64, g.N())
	src[12] = 1 // the centre
	dst := make([]float64, g.N())
	if err := h.Apply(dst, src, 1); err != nil {
		panic(err)
	}
	var mass float64
	for _, v := range dst {
		mass += v
	}
	fmt.Printf("centre %.4f, neighbour %.4f, mass %.12f\n", dst[12], dst[13], mass)

	// Gradient of F = dst[12] with respect to the edge weights: making the
	// edges around the centre heavier spreads mass away, so F decreases.
	gdst := make([]float64, g.N())
	gdst[12] = 1
	gw := make([]float64, g.NumEdges())
	if err := h.Adjoint(nil, gw, src, gdst, 1); err != nil {
		panic(err)
	}
	var sum float64
	for _, v := range gw {
		sum += v
	}
	fmt.Println("dF/dw sums to a negative number:", sum < 0 && !math.IsNaN(sum))
	// Output:
	// centre 0.5652, neighbour 0.0846, mass 1.000000000000
	// dF/dw sums to a negative number: true
}
