package ot

// Kernel applies a symmetric, entrywise positive kernel matrix K (N×N) to a
// block of vectors.
//
// Blocks are stored column-major: a block of cols vectors of length N is a
// []float64 of length N·cols whose column k is data[k*N:(k+1)*N].
type Kernel interface {
	// Size returns N, the length of one vector.
	Size() int
	// Apply writes K·src into dst for a block of cols columns. dst and src
	// must not overlap. It panics if the lengths are not Size()*cols.
	Apply(dst, src []float64, cols int) error
}

// DiffKernel is a Kernel that depends on parameters θ (for the heat kernel,
// the graph's edge weights) and can back-propagate through an application.
type DiffKernel interface {
	Kernel
	// NumParams returns the number of parameters θ.
	NumParams() int
	// Adjoint back-propagates through one application dst = K(θ)·src.
	// Given src (the input of that application) and gdst (the gradient of a
	// scalar objective with respect to its output), it writes the gradient
	// with respect to src, Kᵀ·gdst, into gsrc (unless gsrc is nil) and ADDS
	// the gradient with respect to θ into gparam (length NumParams()).
	// gsrc must not overlap src or gdst.
	Adjoint(gsrc, gparam, src, gdst []float64, cols int) error
}

// OnesPreserving is implemented by kernels with K·1 = 1 for every value of
// their parameters, such as heat kernels (a graph Laplacian annihilates the
// constants). An Interpolator then skips the one-column Adjoint call
// through K·1, whose derivative is zero (for a factorised kernel it costs
// about as much as a call on many columns), and a warm Forward's K·1.
type OnesPreserving interface {
	// PreservesOnes reports whether K·1 = 1 holds for every parameter value.
	PreservesOnes() bool
}

// preservesOnes reports whether k declares K·1 = 1 for every parameter.
func preservesOnes(k Kernel) bool {
	op, ok := k.(OnesPreserving)
	return ok && op.PreservesOnes()
}
