// Package bench reproduces the timing table of the paper (Table 1, "Timing
// and memory") with gmlg: for each row (d, n, S) it builds a deterministic
// 10-frame sequence on the n^d grid with gmlg's own forward model, runs a
// few L-BFGS iterations of the real learner (L = 50 Sinkhorn iterations) and
// reports seconds per iteration and per evaluation, evaluations per
// iteration, the extrapolated time of 500 iterations, and the peak resident
// memory as the OS reports it, for each factorisation backend side by side.
//
// It is a harness for the command line (gmlg bench) and for BENCHMARKS.md;
// the library must not import it.
//
// # Rows
//
// PaperRows holds the paper's rows and published figures; ParseRows reads a
// selection such as "2:50:20,3:32:20", "quick" or "all".
//
// # Measuring
//
// Every (row, backend) measurement runs in its own child process, so that
// its peak resident set size (getrusage's ru_maxrss of the reaped child) is
// that of one measurement only. The parent hands the Spec to the child in
// the ChildEnv environment variable; the child program calls ChildFromEnv
// first:
//
//	if ok, err := bench.ChildFromEnv(ctx, os.Stdout); ok {
//		return err
//	}
//	rep, err := bench.Run(ctx, &bench.Options{
//		Rows:    bench.QuickRows,
//		Command: func(ctx context.Context) *exec.Cmd { return exec.CommandContext(ctx, self, "bench") },
//	})
//
// Measure runs one Spec in the current process (without the RSS figure).
//
// # Figures
//
// The time of 500 iterations is extrapolated as T500 = (first evaluation +
// 500 × seconds per iteration) / 3600 hours, with the seconds per iteration
// measured over the iterations run. Because the machines we run on are
// shared, the same figure is also computed from the process's CPU time
// (T500CPUHours), which does not grow with the machine's load and bounds
// the wall time on an idle machine; the targets are judged on it, and the
// wall-time figure is printed next to it.
//
// WriteText and WriteMarkdown print the side-by-side summary against the
// paper and the per-measurement details (ordering, nnz(L), threads, solves
// per evaluation, share of the time spent in the backend's Solve, and
// "tree W/D": the work of the factor's tree over its span, from
// factor.Tree.Span, which bounds the speed-up of a whole-block solve on any
// number of workers under the tree schedule; and "schedule ×8/×16": the
// speed-up that the backend's own solve schedule allows on 8 and 16
// workers, from factor.ScheduleReporter). Splice replaces the generated
// table inside BENCHMARKS.md between BeginMarker and EndMarker, keeping the
// hand-written notes around it.
//
// The directory reference/ is not Go: its run.sh times the authors' Python
// reference implementation on the machine at hand (through a small CHOLMOD
// stand-in for scikit-sparse where Debian has none), runs gmlg's
// BenchmarkEval of each case right after it, and prints the speed-up and
// memory ratios. BENCHMARKS.md gives the figures ("One evaluation against
// the reference").
package bench
