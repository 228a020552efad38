package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// Row is one line of the paper's timing table: a d-dimensional Cartesian grid
// of side n (N = n^d vertices) and S = Steps implicit heat sub-steps, with the
// figures the paper published for it (zero where unknown: the paper's t_500
// in hours and peak memory in GB, 10⁹ bytes). A colour row (Colour set) is
// instead the colour run of gmlg learn at n bins per channel (d = 3).
type Row struct {
	D, N, Steps           int
	Colour                string `json:",omitempty"` // Synthetic, or a folder of DataRoot
	PaperT500, PaperMemGB float64
}

// Vertices returns N = n^d.
func (r Row) Vertices() int { return int(math.Pow(float64(r.N), float64(r.D))) }

// Images returns the folder of colour row r's images, "" for the synthetic
// sequence, and whether it is there (Run skips a row whose folder is not).
func (r Row) Images() (dir string, ok bool) {
	if r.Colour == Synthetic {
		return "", true
	}
	dir = filepath.Join(DataRoot(), r.Colour)
	fi, err := os.Stat(dir)
	return dir, err == nil && fi.IsDir()
}

// String is the row's key, the form ParseRows reads: d:n:S, or colour:n
// and colour:n:NAME.
func (r Row) String() string {
	switch r.Colour {
	case "":
		return fmt.Sprintf("%d:%d:%d", r.D, r.N, r.Steps)
	case Synthetic:
		return fmt.Sprintf("colour:%d", r.N)
	}
	return fmt.Sprintf("colour:%d:%s", r.N, r.Colour)
}

// PaperRows is Table 1 of the paper ("Timing and memory"), in its order;
// the paper measured 3:32:20 on 8 threads, the others on one.
var PaperRows = []Row{
	{D: 2, N: 50, Steps: 20, PaperT500: 1.6, PaperMemGB: 1.3},
	{D: 2, N: 50, Steps: 100, PaperT500: 7, PaperMemGB: 4.7},
	{D: 2, N: 100, Steps: 20, PaperT500: 13, PaperMemGB: 4},
	{D: 2, N: 100, Steps: 100, PaperT500: 60, PaperMemGB: 16},
	{D: 3, N: 16, Steps: 20, PaperT500: 9, PaperMemGB: 1.7},
	{D: 3, N: 16, Steps: 50, PaperT500: 25, PaperMemGB: 3.3},
	{D: 3, N: 16, Steps: 100, PaperT500: 46, PaperMemGB: 6.2},
	{D: 3, N: 32, Steps: 20, PaperT500: 110, PaperMemGB: 10.9},
}

// QuickRows are the two smallest rows of the table (by N·S), the CI set.
var QuickRows = []Row{PaperRows[0], PaperRows[4]}

// ColourRows are the colour rows of "all": the synthetic sequence at 16³
// and 32³ bins, and the paper's seldovia2 images at 32³.
var ColourRows = []Row{{D: 3, N: 16, Colour: Synthetic}, {D: 3, N: 32, Colour: Synthetic}, {D: 3, N: 32, Colour: "seldovia2"}}

// ParseRows reads a comma-separated list of rows. Each item is "all" (the
// whole table, then ColourRows), "quick" (QuickRows), a 1-based index into
// PaperRows, d:n:S, colour:n (the synthetic sequence at n bins) or
// colour:n:NAME (the images of DataRoot/NAME); a d:n:S found in the table
// carries the paper's figures, any other is measured without them.
// Duplicates are dropped, the order is kept.
func ParseRows(s string) ([]Row, error) {
	var out []Row
	add := func(rows ...Row) {
		for _, r := range rows {
			if !slices.ContainsFunc(out, func(o Row) bool { return o.String() == r.String() }) {
				out = append(out, r)
			}
		}
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		i, err := strconv.Atoi(item)
		switch {
		case item == "all":
			add(slices.Concat(PaperRows, ColourRows)...)
		case item == "quick":
			add(QuickRows...)
		case err == nil && i >= 1 && i <= len(PaperRows):
			add(PaperRows[i-1])
		case err == nil:
			return nil, fmt.Errorf("bench: row %q: want an index 1..%d into the paper's table", item, len(PaperRows))
		case strings.HasPrefix(item, "colour:"):
			n, name, named := strings.Cut(item[len("colour:"):], ":")
			r := Row{D: 3, Colour: Synthetic}
			if named {
				r.Colour = name
			}
			if r.N, err = strconv.Atoi(n); err != nil || r.N < 2 || r.Colour == "" || strings.ContainsAny(r.Colour, `:/\`) {
				return nil, fmt.Errorf("bench: row %q: want colour:n or colour:n:NAME, n ≥ 2 bins, NAME a folder of %s", item, DataRoot())
			}
			add(r)
		case item != "":
			var r Row
			if _, err := fmt.Sscanf(item, "%d:%d:%d", &r.D, &r.N, &r.Steps); err != nil || r.String() != item || r.D < 2 || r.D > 3 || r.N < 4 || r.Steps < 1 {
				return nil, fmt.Errorf("bench: row %q: want d:n:S with d = 2 or 3, n ≥ 4 and S ≥ 1 (e.g. 2:50:20), colour:n, all or quick", item)
			}
			if k := slices.IndexFunc(PaperRows, func(p Row) bool { return p.String() == item }); k >= 0 {
				r = PaperRows[k]
			}
			add(r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no rows in %q", s)
	}
	return out, nil
}

// ChildEnv is the environment variable through which Run hands a Spec (as
// JSON) to a child process (ChildFromEnv).
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
	// Required: Run runs "bench" children, which must call ChildFromEnv
	// (with ChildEnv added to their inherited environment), and gmlg learn
	// for the colour rows.
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
	b, err := rundir.ReadInput(path)
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
	// BLAS is OpenBLAS's name for the kernels it runs on the machine
	// (kernel.BLASInfo), on which backends cholmod and go factorise;
	// BLASSuggest the OPENBLAS_CORETYPE that would select faster ones,
	// where there is one.
	BLAS, BLASSuggest string
}

// Run measures every row of the paper's table with every backend, and
// runs every colour row (runColour), each in its own child process
// (Options.Command). It stops at the first failed measurement and returns
// the report so far with the error.
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
// /proc/loadavg, OpenBLAS's kernels from kernel.BLAS).
func ReadMachine() Machine {
	b := kernel.BLAS()
	m := Machine{NumCPU: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), LoadBefore: loadAvg(),
		BLAS: b.Core, BLASSuggest: b.Suggest}
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

// Synthetic is Row.Colour for the synthetic colour sequence of
// WriteColourSequence, ColourFrames images.
const (
	Synthetic    = "synthetic"
	ColourFrames = 10
)

// ColourRun is the outcome of a colour row. Seconds is the wall time of its
// child process, CPUSeconds its user and system time and MaxRSS its peak
// resident set size in bytes; the others are the run's own
// (runlog.Result): F is the fast objective at the final metric, FExact
// that metric's exact score.
type ColourRun struct {
	Row                     Row
	Images                  string // the folder of images; empty for the synthetic sequence
	Threads                 int    // GOMAXPROCS of the child (set by Run)
	Seconds, CPUSeconds     float64
	MaxRSS                  int64
	Iterations, Evaluations int
	F, FExact               float64
	Status                  string // the run's status, or why the row was skipped
}

// DataRoot is the folder of the image folders of colour:n:NAME rows:
// $GMLG_DATA when set, else ../shared/data from the module root (the
// nearest folder above the working directory with a go.mod) or, without
// one, from the working directory.
func DataRoot() string {
	if d := os.Getenv("GMLG_DATA"); d != "" {
		return d
	}
	for d, _ := os.Getwd(); d != "" && d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "data")
		}
	}
	return filepath.Join("..", "shared", "data")
}

// WriteColourSequence writes the synthetic colour sequence into the folder
// dir (made if missing): ColourFrames PNG images of 96×64 pixels,
// frame-00.png to frame-09.png, from day to night (colourFrame). The bytes
// depend on nothing else.
func WriteColourSequence(dir string) error {
	err := os.MkdirAll(dir, 0o755)
	for k := 0; k < ColourFrames && err == nil; k++ {
		var b bytes.Buffer
		if err = png.Encode(&b, colourFrame(float64(k)/(ColourFrames-1))); err == nil {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("frame-%02d.png", k)), b.Bytes(), 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// colourFrame is the image at the time of day s in [0, 1]: a sky and
// ground that darken, a sun that sets, turning from yellow to red, two
// blobs that cross the picture and a window light that comes on. Every
// pixel is a smooth function of its place and of s, so that the colour
// histograms move gradually.
func colourFrame(s float64) *image.NRGBA {
	blobs := []struct{ x, y, r, on, c0, c1, c2 float64 }{ // centre and radius in heights, strength, colour
		{0.2 + 0.6*s, 0.15 + 0.5*s, 0.12, 1, 1, 0.85 - 0.6*s, 0.3 - 0.2*s},
		{1.4 - 1.1*s, 0.82, 0.1, 1, 0.2, 0.6, 0.25},
		{0.1 + 1.1*s, 0.9, 0.08, 1, 0.75, 0.2, 0.55},
		{1.2, 0.55, 0.05, s * s, 0.95, 0.85, 0.45},
	}
	img := image.NewNRGBA(image.Rect(0, 0, 96, 64))
	for y := range 64 {
		for x := range 96 {
			u, v := float64(x)/63, float64(y)/63
			g := 1 / (1 + math.Exp(-30*(v-0.7))) // 0 in the sky, 1 on the ground
			c := [3]float64{
				(1-s)*((1-g)*(0.45+0.2*v)+g*(0.3+0.15*u)) + s*((1-g)*0.03+g*0.1),
				(1-s)*((1-g)*(0.65+0.2*v)+g*0.55) + s*((1-g)*(0.04+0.05*v)+g*0.12),
				(1-s)*((1-g)*0.95+g*0.2) + s*((1-g)*(0.15+0.1*v)+g*0.06),
			}
			for _, b := range blobs {
				w := b.on * math.Exp(-((u-b.x)*(u-b.x)+(v-b.y)*(v-b.y))/(b.r*b.r))
				c = [3]float64{(1-w)*c[0] + w*b.c0, (1-w)*c[1] + w*b.c1, (1-w)*c[2] + w*b.c2}
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(255*c[0] + 0.5), uint8(255*c[1] + 0.5), uint8(255*c[2] + 0.5), 255})
		}
	}
	return img
}

// runColour runs the colour row r, gmlg learn --preset colour --mode fast
// --bins n (with --max-iter opt.Iters when positive) on the row's images,
// writing into a temporary folder that it removes. A row whose folder is
// missing is skipped: its Status says so.
func runColour(ctx context.Context, opt *Options, r Row) (*ColourRun, error) {
	c := &ColourRun{Row: r}
	dir, ok := r.Images()
	if !ok {
		c.Status = "skipped: no folder " + dir
		return c, nil
	}
	c.Images = dir
	tmp, err := os.MkdirTemp("", "gmlg-bench-colour-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	images, out := cmp.Or(c.Images, filepath.Join(tmp, "images")), filepath.Join(tmp, "run")
	if c.Images == "" {
		if err := WriteColourSequence(images); err != nil {
			return nil, err
		}
	}
	args := []string{"learn", "--preset", "colour", "--mode", "fast", "--bins", strconv.Itoa(r.N), "--progress", "none", "-o", out}
	if opt.Iters > 0 {
		args = append(args, "--max-iter", strconv.Itoa(opt.Iters))
	}
	cmd, start := opt.Command(ctx, append(args, images)...), time.Now()
	if _, err := runChild(cmd, opt.Threads); err != nil {
		return nil, fmt.Errorf("bench: %v: %w", r, err)
	}
	c.Seconds, c.MaxRSS = time.Since(start).Seconds(), maxRSS(cmd.ProcessState)
	c.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	var res runlog.Result
	b, err := os.ReadFile(filepath.Join(out, runlog.ResultName))
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		return nil, fmt.Errorf("bench: %v: %w", r, err)
	}
	c.Iterations, c.Evaluations, c.F, c.Status = res.Iterations, res.Evaluations, res.F, res.Status
	if res.FExact != nil {
		c.FExact = *res.FExact
	}
	return c, nil
}
