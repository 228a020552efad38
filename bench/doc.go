// Package bench reproduces the timing table of the paper (Table 1, "Timing
// and memory") with gmlg, and times gmlg's colour run. For each row (d, n,
// S) of the table (PaperRows) it builds a deterministic 10-frame sequence
// on the n^d grid with gmlg's own forward model, runs a few L-BFGS
// iterations of the real learner (L = 50 Sinkhorn iterations) and reports
// seconds per iteration and per evaluation, the extrapolated time of 500
// iterations and the peak resident memory, for each factorisation backend
// side by side. ParseRows reads a selection of rows such as
// "2:50:20,3:32:20,colour:32", "quick" or "all". It is a harness for the
// command line (gmlg bench) and for BENCHMARKS.md; the library must not
// import it.
//
// # Measuring
//
// Every (row, backend) measurement runs in its own child process, so that
// its peak resident set size (getrusage's ru_maxrss of the reaped child) is
// that of one measurement only. The parent hands the Spec to the child in
// the ChildEnv environment variable; the program calls ChildFromEnv first
// and, when it is not a child, Run with an Options.Command that starts
// itself (gmlg bench, cmd/gmlg/bench.go).
//
// The machines we run on are shared, so the time of 500 iterations (T500)
// is also computed from the process's CPU time (T500CPUHours), which does
// not grow with the load and bounds the wall time on an idle machine; the
// targets are judged on it. WriteText and WriteMarkdown print the summary
// against the paper and the details of every measurement (WriteMarkdown
// explains the columns); Splice puts the markdown between BeginMarker and
// EndMarker of BENCHMARKS.md.
//
// # Solve speed and roofline
//
// Every evaluation's solves are counted (SolveStats): 4·nnz(L) flops per
// column and sub-step, over the wall time inside them. A child on one
// thread then evaluates once more with every solve call made twice, the
// second time at once on the same inputs, as kernel/sparsechol's
// BenchmarkSolveSteps repeats a call (kernelRates): the second calls'
// time over the first calls' is the share of the solves' speed alone that
// the whole evaluation keeps, measured call by call so that the machine's
// drift cancels. Run measures the roofline of P cores
// (MeasureRoofline) once, after the children, which would otherwise
// inherit its arrays in their peak RSS; each row's solve speed is printed
// as its share of the roofline at the solve's arithmetic intensity
// (SolveIntensity) and working set (SolveBytes).
//
// # Colour rows
//
// A colour row (colour:n, colour:n:NAME) runs the default colour run, gmlg
// learn --preset colour --mode fast --bins n, in a child process on the
// synthetic sequence of WriteColourSequence or on DataRoot/NAME (the
// paper's seldovia2, skipped with a note where that folder is missing),
// and reports its time, peak RSS and result (ColourRun) in the table "Time
// to a colour metric".
//
// The directory reference/ is not Go: its run.sh times the authors' Python
// reference implementation on the machine at hand (through a small CHOLMOD
// stand-in for scikit-sparse where Debian has none), runs gmlg's
// BenchmarkEval of each case right after it, and prints the speed-up and
// memory ratios. BENCHMARKS.md gives the figures ("One evaluation against
// the reference").
package bench
