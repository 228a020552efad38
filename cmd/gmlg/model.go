package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/runlog"
)

// modelParams are the settings of the forward model and of the objective,
// shared by learn, eval and interp and recorded in params.json
// (runlog.Model).
type modelParams = runlog.Model

// defaultModel returns the reference's defaults.
func defaultModel() modelParams { return runlog.DefaultModel() }

// kernelFlags declares the heat-kernel options (used by every command that
// builds a kernel).
func kernelFlags(m *modelParams, fs *flag.FlagSet) {
	fs.Float64Var(&m.T, "t", m.T, "diffusion time t of the heat kernel on the unit square/cube (the reference's t_heat = ε/4; blur radius ≈ √(2t) of the side), > 0 and with (t/steps)·(n−1)²·2d·max(metric) ≤ 1e12 so that the heat matrix stays numerically positive definite")
	fs.IntVar(&m.Steps, "steps", m.Steps, "implicit time `steps` S of the heat kernel (the reference's k_heat), ≥ 1")
	fs.StringVar(&m.Scheme, "scheme", m.Scheme, "time scheme of the heat kernel: backward-euler or crank-nicolson")
	fs.IntVar(&m.SinkhornIters, "sinkhorn-iters", m.SinkhornIters, "Sinkhorn `iterations` L per barycenter, ≥ 1")
	fs.StringVar(&m.Backend, "backend", m.Backend, backendHelp("auto"))
	fs.StringVar(&m.Ordering, "ordering", m.Ordering, "fill-reducing ordering: default, natural, amd or nd")
	fs.IntVar(&m.Threads, "threads", m.Threads, "number of CPU `threads`: Go's GOMAXPROCS and the solves' workers (CHOLMOD factorises on one BLAS thread); 0 = all cores; results are the same for any count; at most "+fmt.Sprint(limits.MaxThreadsPerCPU)+" per CPU (more is a usage error)")
}

// objectiveFlags declares the kernel options and those of the objective.
func objectiveFlags(m *modelParams, fs *flag.FlagSet) {
	kernelFlags(m, fs)
	fs.StringVar(&m.Loss, "loss", m.Loss, "data term: l2 (N·Σ(p−q)²), l1 (Σ|p−q|) or kl (KL(reconstruction‖observation))")
	fs.StringVar(&m.Metric, "metric", m.Metric, "metric parameterisation: vertex (per-vertex axis weights, the reference's) or edge (one weight per edge); graph data (a folder with edges.npy) always learn one weight per edge")
	fs.Float64Var(&m.LambdaC, "lambda-c", m.LambdaC, "weight λ_c of the closeness regulariser Σ(w−1)²/N_metric, ≥ 0")
	fs.Float64Var(&m.LambdaS, "lambda-s", m.LambdaS, "weight λ_s of the smoothness regulariser ‖Lap(w)‖, ≥ 0")
	fs.StringVar(&m.Smooth, "smooth", m.Smooth, "form of the smoothness regulariser: norm (‖Lap w‖_F, the reference's) or squared (‖Lap w‖², the paper's)")
	fs.BoolVar(&m.RegularizeOnce, "regularize-once", m.RegularizeOnce, "count the regularisers once in F instead of once per sequence as the reference does")
	sinkhornFlags(m, fs)
	fs.StringVar(&m.Adjoint, "adjoint", m.Adjoint, "fast mode: adjoint `solver` of the implicit gradient, gmres or fixed-point (more kernel applications)")
	fs.BoolVar(&m.SkipEndpoints, "skip-endpoints", m.SkipEndpoints, "leave the first and last frame of each sequence (the poles) out of the data term; the reference includes them, reconstructed as K(P/K·1), which no metric can match")
}

// sinkhornFlags declares the options that choose the barycenter model:
// exact or fast mode, fast mode's tolerance and its Anderson depth.
func sinkhornFlags(m *modelParams, fs *flag.FlagSet) {
	fs.StringVar(&m.Mode, "mode", m.Mode, "exact (the reference: L Sinkhorn iterations from scratch, unrolled gradient) or fast (converged, warm-started Sinkhorn with the implicit gradient; --sinkhorn-iters is then only an upper bound per evaluation)")
	fs.Float64Var(&m.Tol, "tol", m.Tol, "fast mode: Sinkhorn marginal `tolerance` (L1 violation); 0 = 1e-6")
	fs.IntVar(&m.Anderson, "anderson", m.Anderson, "fast mode: Anderson acceleration `depth` of the Sinkhorn iterations (0 = off)")
}

// interpFlags declares the options of an interpolation's model: the
// kernel's and the barycenter model's.
func interpFlags(m *modelParams, fs *flag.FlagSet) {
	kernelFlags(m, fs)
	sinkhornFlags(m, fs)
}

// sinkhornModelFlags are the flags that decide a barycenter model, for
// modelSource.
var sinkhornModelFlags = []string{"mode", "tol", "anderson", "sinkhorn-iters"}

// checkModel validates every option of m (runlog.Model.Check and the
// thread count's limit), as usage errors naming the option.
func checkModel(m *modelParams) error {
	if err := checkKernel(m); err != nil {
		return err
	}
	return flagLimit(m.Check())
}

// checkKernel validates the kernel options of m, as usage errors naming
// the option.
func checkKernel(m *modelParams) error {
	if err := flagLimit(m.CheckKernel()); err != nil {
		return err
	}
	return checkThreads("--threads", m.Threads)
}

// applyThreads sets Go's GOMAXPROCS to n, the value of --threads, when it
// is positive (0 keeps Go's default, all cores). It is the option's one process-wide
// effect, so the commands call it once their options are final and
// checked, before building a kernel; the backend's own threads travel in
// heatOptions.
func applyThreads(n int) {
	if n > 0 {
		runtime.GOMAXPROCS(n)
	}
}

// warnColour prints, for frames that are colour images, the one-line
// warning that command (learn or eval) reads them as grey levels, naming
// the first such file.
func warnColour(w io.Writer, command string, set *dataset.Set) {
	if set.Colour != "" {
		fmt.Fprintf(w, "gmlg %s: warning: %s: frames are colour images; %s uses their grey level (give --preset colour to learn a colour metric)\n",
			command, set.Colour, command)
	}
}

// warnGaps prints one warning line per sequence of set whose frame
// numbers skip values (dataset.Set.Gaps): a missing frame shifts the times
// of the ones after it, which is rarely what was meant.
func warnGaps(w io.Writer, command string, set *dataset.Set) {
	for _, g := range set.Gaps {
		fmt.Fprintf(w, "gmlg %s: warning: %s: %s; the frames that are there are taken as evenly spaced in time\n",
			command, set.Dir, g)
	}
}

// backendHelp is the help of a --backend flag: the factorisation backends
// of this build and the default, which the flag's value empty selects.
func backendHelp(empty string) string {
	return fmt.Sprintf("sparse Cholesky `backend`: %s, or %s for the default (%s in this build)",
		strings.Join(kernel.Backends(), ", "), empty, kernel.DefaultBackend().Name())
}

// modelSource says where the settings of a barycenter model come from:
// "flags" when any of the named flags was given on the command line, else
// the run's params.json, else "defaults". interp, sunset and eval print it
// so that a metric is never silently rendered under another model than the
// one it was learned with.
func modelSource(run string, set map[string]bool, names ...string) string {
	for _, n := range names {
		if set[n] {
			return "flags"
		}
	}
	if run != "" {
		return "from " + filepath.Join(run, "params.json")
	}
	return "defaults"
}
