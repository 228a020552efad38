//go:build !amd64 || noasm

package sparsechol

// useAVX and useWide are false: the vector kernels exist for amd64 only,
// and the noasm build tag leaves them out there too.
var useAVX, useWide = false, false

// asmBuilt tells that this build has no assembly kernels.
const asmBuilt = false

// The vector kernels' entry points, nil here: no call reaches them while
// useAVX is false.
var (
	forwardAVX        func(*symbolic, *numeric, int, []float64, []float64, []int32, int, []float64)
	backwardAVX       func(*symbolic, *numeric, int, []float64, int)
	edgeProductsAVX   func([]float64, []float64, []float64, []int, []int, []int, int, int)
	forward1AVX       func(*symbolic, *numeric, int, int, []float64, int)
	backward1AVX      func(*symbolic, *numeric, int, int, []float64, int)
	topFwdDiagAVX     func(*symbolic, *numeric, int, int, int, []float64, []float64, int)
	topFwdRowsAVX     func(*symbolic, *numeric, int, int, int, int, int, []float64, []float64, []int32, []float64, int)
	topBwdColsAVX     func(*symbolic, *numeric, int, int, int, int, int, []float64, int)
	topBwdDiagAVX     func(*symbolic, *numeric, int, int, int, []float64, int)
	sumRowsAVX        func(*symbolic, []float64, []float64, int, int, int)
	forwardRangeRows  func(*rowKernels, *symbolic, *numeric, int, int, []float64, []float64, []int32)
	backwardRangeRows func(*rowKernels, *symbolic, *numeric, int, int, []float64)
)

// rowKernels are the AVX-512 kernels of kernels_amd64.go; there are none
// here.
type rowKernels struct{}

func wideRows(int) *rowKernels { return nil }
