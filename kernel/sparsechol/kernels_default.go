//go:build !(goexperiment.simd && amd64)

package sparsechol

// simdKernels reports whether the solve uses SIMD kernels.
const simdKernels = false

func forward(sym *symbolic, lx []float64, s int, x, tgt []float64, base, cols int) {
	forwardGo(sym, lx, s, x, tgt, base, cols)
}

func backward(sym *symbolic, lx []float64, s int, x []float64, cols int) {
	backwardGo(sym, lx, s, x, cols)
}
