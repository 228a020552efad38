package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gmlg/gmlg/kernel"
)

// ChildEnv is the environment variable through which Run hands a Spec (as
// JSON) to a child process. A program that runs benchmarks calls
// ChildFromEnv first thing in the code path Options.Command starts.
const ChildEnv = "GMLG_BENCH_CHILD"

// resultMarker prefixes the child's JSON result line on its standard output,
// so that stray output cannot be mistaken for it.
const resultMarker = "gmlg-bench-result: "

// ChildFromEnv reports whether this process is a benchmark child (ChildEnv
// is set). If it is, it runs the measurement, writes the result to w and
// returns the measurement's error.
func ChildFromEnv(ctx context.Context, w io.Writer) (bool, error) {
	spec, ok := os.LookupEnv(ChildEnv)
	if !ok {
		return false, nil
	}
	var s Spec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		return true, fmt.Errorf("bench: child: decode %s: %w", ChildEnv, err)
	}
	m, err := Measure(ctx, s)
	var b []byte
	if err == nil {
		b, err = json.Marshal(m)
	}
	if err == nil {
		_, err = fmt.Fprintf(w, "%s%s\n", resultMarker, b)
	}
	return true, err
}

// Options configures Run. Zero fields mean the documented defaults.
type Options struct {
	Rows     []Row    // nil means QuickRows
	Backends []string // measured side by side; nil means DefaultBackends
	// Iters is the number of L-BFGS iterations per measurement; 0 means 3,
	// negative means a single evaluation (Spec.EvalOnly). A colour row
	// stops after Iters iterations when it is positive.
	Iters   int
	Threads int // GOMAXPROCS of the children; 0 leaves the environment's
	// Spec is the template of each measurement (t, λ_s, frames, …); its
	// Row, Backend and Iters are set per measurement.
	Spec Spec
	// Command returns the command that runs gmlg with the arguments args.
	// Required. Run runs "bench" children, which must call ChildFromEnv
	// (it adds ChildEnv to their environment, which is otherwise
	// inherited, and reads their standard output), and gmlg learn for the
	// colour rows.
	Command func(ctx context.Context, args ...string) *exec.Cmd
	// Roofline has Run measure the roofline (MeasureRoofline) last, after
	// rows of the paper's table: a child's ru_maxrss starts from Run's.
	Roofline bool
	Log      io.Writer // if set, receives one progress line per measurement
}

// Report is the outcome of Run.
type Report struct {
	Results  []*Measurement // in row order, then backend order
	Colour   []*ColourRun   // the colour rows, in order
	Roofline Roofline       // zero unless Options.Roofline
	Machine  Machine
	Started  time.Time
	Elapsed  time.Duration
	Command  string // the command line that produced it, set by the caller
}

// WriteJSON writes the report as indented JSON (ReadJSONFile reads it
// back), so that tables can be re-rendered without measuring again.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadJSONFile reads the report that WriteJSON saved in the file path.
func ReadJSONFile(path string) (*Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		return nil, fmt.Errorf("bench: read report: %w", err)
	}
	return &r, nil
}

// Machine describes where a report was measured.
type Machine struct {
	CPU, GOOS, GOARCH, GoVersion string
	NumCPU                       int
	LoadBefore                   [3]float64 // 1, 5 and 15 min load averages when Run started
	LoadAfter                    [3]float64 // … and when it finished
	MemTotalGB                   float64
	ProgramVersion               string // set by the caller
}

// Run measures every row of the paper's table with every backend, and
// runs every colour row (runColour), each in its own child process
// (Options.Command), and reads the child's peak resident memory from the
// OS (getrusage's ru_maxrss of the reaped child). It stops at the first
// failed measurement and returns the report so far with the error.
func Run(ctx context.Context, opt *Options) (*Report, error) {
	if opt == nil || opt.Command == nil {
		return nil, errors.New("bench: Options.Command is required")
	}
	rows, backends := opt.Rows, opt.Backends
	if rows == nil {
		rows = QuickRows
	}
	if backends == nil {
		backends = DefaultBackends()
	}
	rep, p := &Report{Started: time.Now(), Machine: ReadMachine()}, opt.Threads
	if p <= 0 {
		p = runtime.GOMAXPROCS(0)
	}
	defer func() { // also after a failed row, unless interrupted
		if opt.Roofline && len(rep.Results) > 0 && ctx.Err() == nil {
			rep.Roofline = MeasureRoofline(min(p, runtime.NumCPU()))
		}
		rep.Elapsed, rep.Machine.LoadAfter = time.Since(rep.Started), loadAvg()
	}()
	logf := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "bench: "+format+"\n", a...)
		}
	}
	for _, r := range rows {
		if r.Colour != "" {
			c, err := runColour(ctx, opt, r)
			if err != nil {
				return rep, err
			}
			c.Threads, rep.Colour = p, append(rep.Colour, c)
			logf("%s", strings.Join(colourCells(c), "  "))
			continue
		}
		for _, be := range backends {
			s := opt.Spec
			s.Row, s.Backend, s.Iters, s.EvalOnly = r, be, max(opt.Iters, 0), opt.Iters < 0
			m, err := RunChild(opt.Command(ctx, "bench"), s.Defaults(), opt.Threads)
			if err != nil {
				return rep, err
			}
			rep.Results = append(rep.Results, m)
			logf("%-8s %-7s %d it %d ev  %.3g s/it  t500 %.3g h  RSS %.0f MB  (load %s)",
				r, be, m.Iters, m.Evals, m.SecPerIter, m.T500Hours, float64(m.MaxRSS)/1e6, loadString(loadAvg()))
		}
	}
	return rep, nil
}

// RunChild runs one measurement in the child process cmd (which must call
// ChildFromEnv), with GOMAXPROCS set to threads when threads > 0, and returns
// its result with MaxRSS from the OS.
func RunChild(cmd *exec.Cmd, s Spec, threads int) (*Measurement, error) {
	spec, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	out, err := runChild(cmd, threads, ChildEnv+"="+string(spec))
	_, line, found := strings.Cut("\n"+out, "\n"+resultMarker)
	line, _, _ = strings.Cut(line, "\n")
	var m Measurement
	if err == nil && !found {
		err = errors.New("child printed no result")
	} else if err == nil {
		err = json.Unmarshal([]byte(line), &m)
	}
	if err != nil {
		return nil, fmt.Errorf("bench: %v on %s: %w", s.Row, s.Backend, err)
	}
	m.MaxRSS = maxRSS(cmd.ProcessState)
	return &m, nil
}

// runChild runs cmd with GOMAXPROCS set to threads when threads > 0 and
// the environment variables env added, and returns its standard output;
// an error quotes the end of its standard error.
func runChild(cmd *exec.Cmd, threads int, env ...string) (string, error) {
	if threads > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(threads))
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(errb.String())
		return "", fmt.Errorf("child failed: %w: %s", err, tail[max(0, len(tail)-500):])
	}
	return out.String(), nil
}

// maxRSS returns the peak resident set size of a reaped child in bytes
// (Linux reports ru_maxrss in KiB, macOS in bytes), or 0 when the OS does
// not say.
func maxRSS(ps *os.ProcessState) int64 {
	switch ru, ok := ps.SysUsage().(*syscall.Rusage); {
	case !ok || ru == nil:
		return 0
	case runtime.GOOS == "darwin":
		return int64(ru.Maxrss)
	default:
		return int64(ru.Maxrss) * 1024
	}
}

// DefaultBackends lists "cholmod", "go" and "go-purego", those compiled in:
// in a cgo build CHOLMOD, the pure-Go factorisation on OpenBLAS and the
// pure-Go factorisation on gonum's BLAS side by side; without cgo "go"
// alone (on gonum's BLAS).
func DefaultBackends() []string {
	var out []string
	for _, name := range []string{"cholmod", "go", "go-purego"} {
		if slices.Contains(kernel.Backends(), name) {
			out = append(out, name)
		}
	}
	return out
}

// ReadMachine describes the current machine (CPU model and memory from
// /proc/cpuinfo and /proc/meminfo where available, load averages from
// /proc/loadavg).
func ReadMachine() Machine {
	m := Machine{NumCPU: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), LoadBefore: loadAvg()}
	m.CPU = procField("/proc/cpuinfo", "model name")
	fmt.Sscanf(procField("/proc/meminfo", "MemTotal"), "%g kB", &m.MemTotalGB)
	m.MemTotalGB *= 1024 / 1e9
	return m
}

// procField returns the value of the first line "key: value" of the file.
func procField(path, key string) string {
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func loadAvg() (l [3]float64) {
	b, _ := os.ReadFile("/proc/loadavg")
	fmt.Sscan(string(b), &l[0], &l[1], &l[2])
	return l
}

func loadString(l [3]float64) string { return fmt.Sprintf("%.2f %.2f %.2f", l[0], l[1], l[2]) }
