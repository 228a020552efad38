// Package limits bounds the sizes that reach a learning job from its
// settings and from the headers of its input files, so that an absurd
// size is answered with an error naming the limit instead of a crash for
// lack of threads or memory.
//
// Two kinds of bound apply:
//
//   - fixed counts: at most MaxThreadsPerCPU threads per CPU, MaxFrames
//     frames, MaxBins colour bins per channel and MaxVertices grid
//     vertices (image samples are bounded by dataset.MaxImageSamples);
//   - a memory budget: the bytes a command is about to allocate, estimated
//     from the sizes before allocating anything, must not exceed the
//     budget. It is this machine's physical memory (MemTotal of
//     /proc/meminfo), or the value of the environment variable
//     GMLG_MAX_MEMORY (e.g. GMLG_MAX_MEMORY=64G; units K, M, G and T are
//     powers of 1024, a plain number is bytes).
//
// Every error says which limit was hit and what to change; the errors are
// of type *Error. Memory has the signature of dataset.MemoryCheck, so that
// the loaders of package dataset (frames, images) check the budget before
// they allocate.
//
// [Objective] estimates the memory of a learning objective or of a
// forward interpolation from its sizes (grid or graph, frames, Sinkhorn
// iterations, mode) before anything is built, so that a job too large for
// the budget is refused at once. Its Sinkhorn workspace, frames and metric
// vectors are what a built objective reports (learn.ObjectiveBytes,
// ot.WorkspaceBytes); the heat kernel's factor and adjoint chains, which
// package kernel does not report, are estimated here:
//
//	size := limits.Objective{Dim: 2, Side: 100, Iterations: 50, Steps: 20}
//	size.Interior, size.Endpoints = limits.Frames(5, 5)
//	if err := size.Check("the objective", "use fewer frames"); err != nil {
//		return err
//	}
package limits
