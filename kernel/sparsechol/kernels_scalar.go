//go:build !(goexperiment.simd && amd64)

package sparsechol

// simdKernels reports whether the solves run on vector kernels; they need
// a GOEXPERIMENT=simd build for amd64.
const simdKernels = false

// vecWidth is the multiple to which the solve pads a row of the
// vertex-major workspace: 1, the scalar kernels take any width.
func vecWidth() int { return 1 }

// packSize is the scratch the forward kernels take: none.
func packSize(*symbolic, int) int { return 0 }

func forward(sym *symbolic, num *numeric, s int, x, tgt []float64, base, cw int, _ []float64) {
	forwardGo(sym, num, s, x, tgt, base, cw)
}

func backward(sym *symbolic, num *numeric, s int, x []float64, cw int) {
	backwardGo(sym, num, s, x, cw)
}
