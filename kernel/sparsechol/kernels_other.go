//go:build !amd64 || noasm

package sparsechol

// useAVX and useWide are false: the vector kernels exist for amd64 only,
// and the noasm build tag leaves them out there too.
var useAVX, useWide = false, false

// asmBuilt tells that this build has no assembly kernels.
const asmBuilt = false

func forwardAVX(*symbolic, *numeric, int, []float64, []float64, []int32, int, []float64) {
	panic("sparsechol: vector kernels in a build without them")
}

func backwardAVX(*symbolic, *numeric, int, []float64, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func edgeProductsAVX([]float64, []float64, []float64, []int, []int, []int, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func forward1AVX(*symbolic, *numeric, int, int, []float64, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func backward1AVX(*symbolic, *numeric, int, int, []float64, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func topFwdDiagAVX(*symbolic, *numeric, int, int, int, []float64, []float64, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func topFwdRowsAVX(*symbolic, *numeric, int, int, int, int, int, []float64, []float64, []int32, []float64, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func topBwdColsAVX(*symbolic, *numeric, int, int, int, int, int, []float64, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func topBwdDiagAVX(*symbolic, *numeric, int, int, int, []float64, int) {
	panic("sparsechol: vector kernels in a build without them")
}

func sumRowsAVX(*symbolic, []float64, []float64, int, int, int) {
	panic("sparsechol: vector kernels in a build without them")
}

// rowKernels are the AVX-512 kernels of kernels_amd64.go; there are none
// here.
type rowKernels struct{}

func wideRows(int) *rowKernels { return nil }

func forwardRangeRows(*rowKernels, *symbolic, *numeric, int, int, []float64, []float64, []int32) {
	panic("sparsechol: vector kernels in a build without them")
}
