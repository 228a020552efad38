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

// kernelFlags declares the heat-kernel options (used by every command that
// builds a kernel).
func kernelFlags(m *runlog.Model, fs *flag.FlagSet) {
	fs.Float64Var(&m.T, "t", m.T, "diffusion time t of the heat kernel on the unit square/cube (the reference's t_heat = ε/4; blur radius ≈ √(2t) of the side), > 0 and with (t/steps)·(n−1)²·2d·max(metric) ≤ 1e12 so that the heat matrix stays numerically positive definite")
	fs.IntVar(&m.Steps, "steps", m.Steps, "implicit time `steps` S of the heat kernel (the reference's k_heat), ≥ 1")
	fs.StringVar(&m.Scheme, "scheme", m.Scheme, "time scheme of the heat kernel: backward-euler or crank-nicolson")
	fs.IntVar(&m.SinkhornIters, "sinkhorn-iters", m.SinkhornIters, "Sinkhorn `iterations` L per barycenter, ≥ 1")
	fs.StringVar(&m.Backend, "backend", m.Backend, fmt.Sprintf("sparse Cholesky `backend`: %s, or auto for the default (%s in this build)",
		strings.Join(kernel.Backends(), ", "), kernel.DefaultBackend().Name()))
	fs.StringVar(&m.Ordering, "ordering", m.Ordering, "fill-reducing ordering: default, natural, amd or nd")
	fs.IntVar(&m.Threads, "threads", m.Threads, "number of CPU `threads`: Go's GOMAXPROCS and the solves' workers (CHOLMOD factorises on one BLAS thread); 0 = all cores; results are the same for any count; at most "+fmt.Sprint(limits.MaxThreadsPerCPU)+" per CPU (more is a usage error)")
}

// objectiveFlags declares the kernel options and those of the objective.
func objectiveFlags(m *runlog.Model, fs *flag.FlagSet) {
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
func sinkhornFlags(m *runlog.Model, fs *flag.FlagSet) {
	fs.StringVar(&m.Mode, "mode", m.Mode, "exact (the reference: L Sinkhorn iterations from scratch, unrolled gradient) or fast (converged, warm-started Sinkhorn with the implicit gradient; --sinkhorn-iters is then only an upper bound per evaluation)")
	fs.Float64Var(&m.Tol, "tol", m.Tol, "fast mode: Sinkhorn marginal `tolerance` (L1 violation); 0 = 1e-6")
	fs.IntVar(&m.Anderson, "anderson", m.Anderson, "fast mode: Anderson acceleration `depth` of the Sinkhorn iterations (0 = off)")
}

// interpFlags declares the options of an interpolation's model: the
// kernel's and the barycenter model's.
func interpFlags(m *runlog.Model, fs *flag.FlagSet) {
	kernelFlags(m, fs)
	sinkhornFlags(m, fs)
}

// checkModel validates every option of m (runlog.Model.Check and the
// thread count's limit), as usage errors naming the option.
func checkModel(m *runlog.Model) error {
	if err := checkKernel(m); err != nil {
		return err
	}
	return flagLimit(m.Check())
}

// checkKernel validates the kernel options of m, as usage errors naming
// the option.
func checkKernel(m *runlog.Model) error {
	if err := flagLimit(m.CheckKernel()); err != nil {
		return err
	}
	return checkThreads("--threads", m.Threads)
}

// applyThreads sets GOMAXPROCS to n, the value of --threads, when it is
// positive (0 keeps all cores): the option's one process-wide effect, made
// once the options are checked, before building a kernel.
func applyThreads(n int) {
	if n > 0 {
		runtime.GOMAXPROCS(n)
	}
}

// warnFrames warns, for command (learn or eval), that frames that are
// colour images are read as grey levels, naming the first such file, and
// names every sequence of set whose frame numbers skip values
// (dataset.Set.Gaps): a missing frame shifts the times of the ones after
// it, which is rarely what was meant.
func warnFrames(w io.Writer, command string, set *dataset.Set) {
	if set.Colour != "" {
		fmt.Fprintf(w, "gmlg %s: warning: %s: frames are colour images; %s uses their grey level (give --preset colour to learn a colour metric)\n",
			command, set.Colour, command)
	}
	for _, g := range set.Gaps {
		fmt.Fprintf(w, "gmlg %s: warning: %s: %s; the frames that are there are taken as evenly spaced in time\n",
			command, set.Dir, g)
	}
}

// modelSource says where the settings of a barycenter model come from:
// "flags" when a flag that decides it was given (set), else the run's
// params.json, else "defaults". interp, sunset and eval print it so that a
// metric is never silently rendered under another model than the one it
// was learned with.
func modelSource(run string, set map[string]bool) string {
	if set["mode"] || set["tol"] || set["anderson"] || set["sinkhorn-iters"] {
		return "flags"
	}
	if run != "" {
		return "from " + filepath.Join(run, "params.json")
	}
	return "defaults"
}
