// Package limits bounds the sizes that reach a learning job from its
// settings and from the headers of its input files, so that an absurd
// size is answered with an error naming the limit (an *Error) instead of a
// crash for lack of threads or memory.
//
// Two kinds of bound apply:
//
//   - fixed counts: at most MaxThreadsPerCPU threads per CPU, MaxFrames
//     frames, MaxBins colour bins per channel and dataset.MaxVertices grid
//     vertices (image samples: dataset.MaxImageSamples);
//   - a memory budget: the bytes a command is about to allocate, estimated
//     before allocating anything, must not exceed this machine's physical
//     memory or GMLG_MAX_MEMORY (e.g. 64G; K, M, G and T are powers of
//     1024, a plain number is bytes). Memory is a dataset.MemoryCheck, so
//     that the loaders of package dataset check the budget too.
//
// [Objective] estimates the memory of a learning objective or of a
// forward interpolation from its sizes before anything is built. Its
// Sinkhorn workspace, frames and metric vectors are what a built objective
// reports (learn.ObjectiveBytes, ot.WorkspaceBytes); the heat kernel's
// factor and adjoint chains, which package kernel does not report, are
// estimated here:
//
//	size := limits.Objective{Dim: 2, Side: 100, Iterations: 50, Steps: 20}
//	size.Interior, size.Endpoints = limits.Frames(5, 5)
//	if err := size.Check("the objective", "use fewer frames"); err != nil {
//		return err
//	}
package limits
