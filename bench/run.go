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
	"strconv"
	"strings"
	"syscall"
	"time"
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
	if err != nil {
		return true, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return true, fmt.Errorf("bench: child: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s%s\n", resultMarker, b)
	return true, err
}

// Options configures Run. Zero fields mean the documented defaults.
type Options struct {
	// Rows to measure; nil means QuickRows.
	Rows []Row
	// Backends to measure each row with, side by side; nil means
	// DefaultBackends.
	Backends []string
	// Iters is the number of L-BFGS iterations per measurement; 0 means 3,
	// negative means a single evaluation (Spec.EvalOnly).
	Iters int
	// Threads sets GOMAXPROCS in the children; 0 leaves the environment's.
	Threads int
	// Spec is the template of each measurement (t, λ_s, frames, …); its
	// Row, Backend and Iters are set per measurement.
	Spec Spec
	// Command returns the command that runs a child: a process that calls
	// ChildFromEnv. Required. Run adds ChildEnv to its environment (which
	// is otherwise inherited) and reads its standard output.
	Command func(ctx context.Context) *exec.Cmd
	// Log, if set, receives one progress line per measurement.
	Log io.Writer
}

// Report is the outcome of Run.
type Report struct {
	Results []*Measurement // in row order, then backend order
	Machine Machine
	Started time.Time
	Elapsed time.Duration
	Command string // the command line that produced it, set by the caller
}

// WriteJSON writes the report as indented JSON (ReadJSON reads it back), so
// that tables can be re-rendered without measuring again.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadJSON reads a report written by WriteJSON.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("bench: read report: %w", err)
	}
	return &r, nil
}

// ReadJSONFile reads the report that WriteJSON saved in the file path.
func ReadJSONFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadJSON(f)
}

// Machine describes where a report was measured.
type Machine struct {
	CPU            string
	NumCPU         int
	GOOS, GOARCH   string
	GoVersion      string
	LoadBefore     [3]float64 // 1, 5 and 15 min load averages when Run started
	LoadAfter      [3]float64 // … and when it finished
	MemTotalGB     float64
	ProgramVersion string // set by the caller
}

// Run measures every row with every backend, each in its own child process
// (Options.Command), and reads the child's peak resident memory from the OS
// (getrusage's ru_maxrss of the reaped child). It stops at the first failed
// measurement and returns the report so far with the error.
func Run(ctx context.Context, opt *Options) (*Report, error) {
	if opt == nil || opt.Command == nil {
		return nil, errors.New("bench: Options.Command is required")
	}
	rows := opt.Rows
	if rows == nil {
		rows = QuickRows
	}
	backends := opt.Backends
	if backends == nil {
		backends = DefaultBackends()
	}
	rep := &Report{Started: time.Now(), Machine: ReadMachine()}
	defer func() {
		rep.Elapsed = time.Since(rep.Started)
		rep.Machine.LoadAfter = loadAvg()
	}()
	for _, r := range rows {
		for _, be := range backends {
			s := opt.Spec
			s.Row, s.Backend, s.Iters = r, be, opt.Iters
			if s.Iters < 0 {
				s.Iters, s.EvalOnly = 0, true
			}
			s = s.Defaults()
			cmd := opt.Command(ctx)
			m, err := RunChild(cmd, s, opt.Threads)
			if err != nil {
				return rep, err
			}
			rep.Results = append(rep.Results, m)
			if opt.Log != nil {
				fmt.Fprintf(opt.Log, "bench: %-8s %-7s %d it %d ev  %.3g s/it  t500 %.3g h  RSS %.0f MB  (load %s)\n",
					r, be, m.Iters, m.Evals, m.SecPerIter, m.T500Hours, float64(m.MaxRSS)/1e6, loadString(loadAvg()))
			}
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
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env, ChildEnv+"="+string(spec))
	if threads > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(threads))
	}
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	runErr := cmd.Run()
	if runErr != nil {
		return nil, fmt.Errorf("bench: %v on %s: child failed: %w: %s", s.Row, s.Backend, runErr, strings.TrimSpace(lastLines(errb.String(), 5)))
	}
	var m *Measurement
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, resultMarker); ok {
			m = new(Measurement)
			if err := json.Unmarshal([]byte(rest), m); err != nil {
				return nil, fmt.Errorf("bench: %v on %s: decode child result: %w", s.Row, s.Backend, err)
			}
		}
	}
	if m == nil {
		return nil, fmt.Errorf("bench: %v on %s: child printed no result (stderr: %s)", s.Row, s.Backend, strings.TrimSpace(lastLines(errb.String(), 5)))
	}
	m.MaxRSS = maxRSS(cmd.ProcessState)
	return m, nil
}

// maxRSS returns the peak resident set size of a reaped child in bytes
// (Linux reports ru_maxrss in KiB), or 0 when the OS does not say.
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes on macOS
	}
	return int64(ru.Maxrss) * 1024
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// DefaultBackends lists "cholmod", "go" and "go-purego", those compiled in:
// in a cgo build CHOLMOD, the pure-Go factorisation on OpenBLAS and the
// pure-Go factorisation on gonum's BLAS side by side; without cgo "go"
// alone (on gonum's BLAS).
func DefaultBackends() []string {
	var out []string
	for _, name := range []string{"cholmod", "go", "go-purego"} {
		for _, have := range availableBackends() {
			if have == name {
				out = append(out, name)
			}
		}
	}
	return out
}

// ReadMachine describes the current machine (CPU model from /proc/cpuinfo
// where available, load averages from /proc/loadavg).
func ReadMachine() Machine {
	m := Machine{NumCPU: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), LoadBefore: loadAvg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
					m.MemTotalGB = kb * 1024 / 1e9
				}
			}
		}
	}
	return m
}

func loadAvg() [3]float64 {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	f := strings.Fields(string(b))
	for k := 0; k < 3 && k < len(f); k++ {
		l[k], _ = strconv.ParseFloat(f[k], 64)
	}
	return l
}

func loadString(l [3]float64) string { return fmt.Sprintf("%.2f %.2f %.2f", l[0], l[1], l[2]) }
