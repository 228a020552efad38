package bench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/gmlg/gmlg/learn/rundir"
)

// Target is the goal for every row: at least SpeedUp times faster
// than the paper's t_500 and at most MemFraction of its memory.
var Target = struct{ SpeedUp, MemFraction float64 }{SpeedUp: 10, MemFraction: 0.1}

// Hours is the t_500 figure the targets are judged by: T500CPUHours when
// the CPU time is known (it does not depend on the machine's load), else
// the wall-time T500Hours.
func Hours(m *Measurement) float64 {
	if m.T500CPUHours > 0 {
		return m.T500CPUHours
	}
	return m.T500Hours
}

// cell formats a cell: format with a when ok, else "–".
func cell(ok bool, format string, a ...any) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf(format, a...)
}

// num formats a figure with three significant digits (all of its integer
// digits from 100 on), "–" for zero, NaN and infinities.
func num(x float64) string {
	if ax := math.Abs(x); ax >= 1 && !math.IsInf(x, 0) {
		return fmt.Sprintf("%.*f", max(0, 2-int(math.Log10(ax))), x)
	}
	return cell(x != 0 && !math.IsNaN(x), "%.3g", x)
}

// detailHeader and detailCells define the per-measurement table.
var detailHeader = []string{"d:n:S", "N", "backend", "ordering", "nnz(L)", "threads", "iters", "evals",
	"evals/iter", "s/eval", "s/iter", "CPU s/iter", "t500 wall (h)", "t500 CPU (h)", "paper t500 (h)", "speed-up", "peak RSS (MB)", "paper mem (GB)",
	"mem/paper", "solve share", "solves/eval", "RHS/solve", "solve GFlop/eval", "GFlop/CPU-s", "tree W/D", "schedule ×8/×16",
	"solve GFlop/s", "kernel GFlop/s", "solve/kernel", "applications/adjoint", "roofline GFlop/s", "roofline share"}

// detailCells is the row of m in the per-measurement table, with the
// roofline rl (zero: not measured).
func detailCells(m *Measurement, rl Roofline) []string {
	r, flops := m.Spec.Row, solveFlops(m.NNZL, m.SolveColumns)
	ap, ad := m.KernelApply, m.KernelAdjoint
	rate, roof := flops/m.SolveWall/1e9, 0.0
	if rl.Threads > 0 && m.KernelCols > 0 {
		roof = rl.Bound(SolveIntensity(m.NNZL, r.Vertices(), m.KernelCols), SolveBytes(m.NNZL, r.Vertices(), m.KernelCols))
	}
	epi := num(m.EvalsPerIter)
	if m.Spec.EvalOnly {
		epi += "*"
	}
	return []string{r.String(), fmt.Sprint(r.Vertices()), m.Backend, m.Ordering, fmt.Sprint(m.NNZL), fmt.Sprint(m.Threads),
		fmt.Sprint(m.Iters), fmt.Sprint(m.Evals), epi, num(m.SecPerEval), num(m.SecPerIter),
		num(m.CPUPerIter), num(m.T500Hours), num(m.T500CPUHours), num(r.PaperT500),
		cell(r.PaperT500 > 0 && Hours(m) > 0, "%.1f×", r.PaperT500/Hours(m)), cell(m.MaxRSS > 0, "%.0f", float64(m.MaxRSS)/1e6),
		num(r.PaperMemGB), cell(r.PaperMemGB > 0 && m.MaxRSS > 0, "1/%.0f", r.PaperMemGB*1e9/float64(m.MaxRSS)),
		cell(m.Minimize > 0, "%.0f%%", 100*m.SolveWall/m.Minimize),
		cell(m.Evals > 0 && m.Solves > 0, "%d", m.Solves/int64(max(m.Evals, 1))), cell(m.KernelCols > 0, "%d", m.KernelCols),
		num(flops / float64(m.Evals) / 1e9), num(flops / m.MinimizeCPU / 1e9),
		cell(m.Span > 0, "%.1f", m.Work/m.Span), cell(m.Sched8 > 0, "%.1f/%.1f", m.Sched8, m.Sched16),
		num(rate), num(m.KernelGFlops), cell(ap.Eval > 0 && ad.Eval > 0, "%.2f", (ap.Alone+ad.Alone)/(ap.Eval+ad.Eval)),
		cell(ap.Eval > 0 && ad.Eval > 0, "%.2f/%.2f", ap.Alone/ap.Eval, ad.Alone/ad.Eval),
		num(roof), cell(roof > 0 && rate > 0, "%.0f%%", 100*rate/roof)}
}

// summaryTable is the side-by-side table of ms, a line per row, those of
// the paper's table first: t500 and peak RSS of the paper and of each
// backend, each backend's t500 over the base's (CHOLMOD's when present,
// else the first's), and the fastest's (the smallest Hours) speed-up and
// share of memory against the paper, and whether they meet Target.
func summaryTable(ms []*Measurement) (t table) {
	var rows []Row
	var backends []string // in first-seen order
	for _, m := range ms {
		if !slices.ContainsFunc(rows, func(r Row) bool { return r.String() == m.Spec.Row.String() }) {
			rows = append(rows, m.Spec.Row)
		}
		if !slices.Contains(backends, m.Spec.Backend) {
			backends = append(backends, m.Spec.Backend)
		}
	}
	// The paper's rows in its order, then the others: -1 is the largest uint.
	paper := func(r Row) uint {
		return uint(slices.IndexFunc(PaperRows, func(p Row) bool { return p.String() == r.String() }))
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(paper(a), paper(b)) })
	base := "cholmod"
	if !slices.Contains(backends, base) && len(backends) > 0 {
		base = backends[0]
	}
	for i, r := range rows {
		var row []string
		col := func(head, c string) {
			if i == 0 {
				t.header = append(t.header, head)
			}
			row = append(row, c)
		}
		get := func(b string) *Measurement { // a missing measurement formats as "–"
			k := slices.IndexFunc(ms, func(m *Measurement) bool { return m.Spec.Row.String() == r.String() && m.Spec.Backend == b })
			if k < 0 {
				return &Measurement{}
			}
			return ms[k]
		}
		f := &Measurement{}
		col("d", fmt.Sprint(r.D))
		col("n", fmt.Sprint(r.N))
		col("N", fmt.Sprint(r.Vertices()))
		col("S", fmt.Sprint(r.Steps))
		col("paper t500 (h)", num(r.PaperT500))
		for _, b := range backends {
			if m := get(b); Hours(m) > 0 && (Hours(f) == 0 || Hours(m) < Hours(f)) {
				f = m
			}
			col(b+" t500 (h) CPU / wall", cell(get(b).Spec.Backend != "", "%s / %s", num(get(b).T500CPUHours), num(get(b).T500Hours)))
		}
		for _, b := range backends {
			if x, y := Hours(get(base)), Hours(get(b)); b != base {
				col(b+"/"+base, cell(x > 0 && y > 0, "%.2f", y/x))
			}
		}
		speedUp, mem := r.PaperT500/Hours(f), float64(f.MaxRSS)/(r.PaperMemGB*1e9)
		col("speed-up CPU / wall", cell(r.PaperT500 > 0 && Hours(f) > 0, "%.1f× / %.1f×", speedUp, r.PaperT500/f.T500Hours))
		col("paper mem (GB)", num(r.PaperMemGB))
		for _, b := range backends {
			col(b+" RSS (GB)", cell(get(b).MaxRSS > 0, "%.3f", float64(get(b).MaxRSS)/1e9))
		}
		met := speedUp >= Target.SpeedUp && mem > 0 && mem <= Target.MemFraction
		col("mem/paper", cell(r.PaperMemGB > 0 && mem > 0, "1/%.0f", 1/mem))
		col("target met", cell(r.PaperT500 > 0, "%s", map[bool]string{true: "yes", false: "no"}[met]))
		t.rows = append(t.rows, row)
	}
	return t
}

// colourHeader and colourCells define the table of colour rows.
var colourHeader = []string{"row", "threads", "wall (s)", "CPU (s)", "peak RSS (MB)", "iters", "evals", "F (fast)", "f_exact", "status"}

func colourCells(c *ColourRun) []string {
	return []string{c.Row.String(), fmt.Sprint(c.Threads), num(c.Seconds), num(c.CPUSeconds), cell(c.MaxRSS > 0, "%.0f", float64(c.MaxRSS)/1e6),
		cell(c.Evaluations > 0, "%d", c.Iterations), cell(c.Evaluations > 0, "%d", c.Evaluations),
		cell(c.F != 0, "%.6g", c.F), cell(c.FExact != 0, "%.6g", c.FExact), c.Status}
}

// table is a header and rows of cells, printed aligned for a terminal
// (text) or as markdown.
type table struct {
	header []string
	rows   [][]string
}

// write prints t aligned for a terminal, or as markdown.
func (t table) write(b *bytes.Buffer, md bool) {
	if md {
		fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(t.header, " | "), strings.Repeat("---:|", len(t.header)))
		for _, r := range t.rows {
			fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
		}
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range append([][]string{t.header}, t.rows...) {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}

// writeTables prints the roofline, the summary and detail tables, and the
// colour rows ("Time to a colour metric"), each only when it has
// something to show; with md as markdown, with the columns explained.
func writeTables(b *bytes.Buffer, rep *Report, md bool) {
	summary, detail, colour := summaryTable(rep.Results), table{header: detailHeader}, table{header: colourHeader}
	for _, m := range rep.Results {
		detail.rows = append(detail.rows, detailCells(m, rep.Roofline))
	}
	for _, c := range rep.Colour {
		colour.rows = append(colour.rows, colourCells(c))
	}
	if rl := rep.Roofline; rl.Threads > 0 {
		var bands []string
		for _, band := range rl.Bands {
			bands = append(bands, fmt.Sprintf("%s over %d MiB", num(band.GBPerSecond), band.Bytes>>20))
		}
		fmt.Fprintf(b, "Roofline on P = %d: multiply-add peak %s GFlop/s (%d lanes); triad bandwidth in GB/s %s.\n\n",
			rl.Threads, num(rl.PeakGFlops), rl.Lanes, strings.Join(bands, ", "))
	}
	if len(detail.rows) > 0 {
		summary.write(b, md)
		b.WriteString("\n")
		if md {
			b.WriteString("Per measurement. Solve share: wall time inside the backend's solves over the L-BFGS wall time. Solve GFlop/eval: 4·nnz(L) flops per right-hand side and solve. GFlop/CPU-s: those flops over the process's CPU time (everything included), a load-independent floor of the solve throughput. Tree W/D: the work of one triangular solve with the factor over the critical path of its elimination tree's schedule (factor.Tree.Span), the most that any number of workers could speed a whole-block solve up. Schedule ×8/×16: the speed-up that the backend's own solve schedule allows on 8 and 16 workers (factor.ScheduleReporter: its tasks' work placed on the workers, synchronisation and memory free); the engine of cholmod and go has one. Solve GFlop/s: those flops over the wall time inside the solves, on the threads they ran on. Kernel GFlop/s (P = 1 only): one more evaluation with every solve call (SolveSteps, AdjointSteps with its edge sums) made twice, the second time at once on the same inputs, as a kernel benchmark repeats a call: its solve flops over the second calls' time; solve/kernel: the second calls' time over the first calls', the share of the solves' speed alone that the whole evaluation keeps (each call beside its repetition, so the machine's drift cancels); applications/adjoint: the same for each kind of call. Roofline GFlop/s: min(peak, intensity × bandwidth) at the solve's intensity 2·nnz·c / (12·nnz + 16·N·c) flops per byte for c columns (package bench's doc); roofline share: the solve GFlop/s over it.\n\n")
		}
		detail.write(b, md)
		if slices.ContainsFunc(rep.Results, func(m *Measurement) bool { return m.Spec.EvalOnly }) {
			fmt.Fprintf(b, "\n\\* one evaluation measured; %.1f evaluations per iteration assumed (the reference's L-BFGS-B spends 1.1–1.7).\n", AssumedEvalsPerIter)
		}
	}
	switch {
	case len(colour.rows) == 0:
		return
	case md:
		b.WriteString("\n### Time to a colour metric\n\ngmlg learn --preset colour --mode fast --bins n on the row's images (colour:n: the synthetic sequence, package bench's doc), from the images to the final metric in a child process: its wall and CPU time and peak RSS, and the run's own iterations, evaluations, fast objective F and the exact score f_exact of its final metric (result.json).\n\n")
	default:
		b.WriteString("\nTime to a colour metric\n")
	}
	colour.write(b, md)
}

// WriteText prints the tables of rep (writeTables) aligned for a terminal.
func WriteText(w io.Writer, rep *Report) error {
	var b bytes.Buffer
	writeTables(&b, rep, false)
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes the report as markdown: the machine and load, the
// command, then its tables (writeTables).
func WriteMarkdown(w io.Writer, rep *Report, command string) error {
	var b bytes.Buffer
	m := rep.Machine
	fmt.Fprintf(&b, "Measured in %s", rep.Elapsed.Round(1e9))
	if m.ProgramVersion != "" {
		fmt.Fprintf(&b, " with gmlg %s", m.ProgramVersion)
	}
	if !strings.Contains(m.ProgramVersion, m.GoVersion) {
		fmt.Fprintf(&b, " (%s)", m.GoVersion)
	}
	fmt.Fprintf(&b, ".\n\nMachine: %s, %d logical CPUs, %.0f GB RAM, %s/%s. Load average (1/5/15 min) %s at the start, %s at the end",
		cmp.Or(m.CPU, "unknown CPU"), m.NumCPU, m.MemTotalGB, m.GOOS, m.GOARCH, loadString(m.LoadBefore), loadString(m.LoadAfter))
	if m.LoadBefore[0] > float64(m.NumCPU)/2 || m.LoadAfter[0] > float64(m.NumCPU)/2 {
		fmt.Fprintf(&b, " — the machine was shared, so these times are pessimistic")
	}
	if m.BLAS != "" {
		fmt.Fprintf(&b, ". OpenBLAS runs its %s kernels here", m.BLAS)
		if m.BLASSuggest != "" {
			fmt.Fprintf(&b, ", which leave out the processor's AVX2 and FMA units (OPENBLAS_CORETYPE=%s selects kernels for them)", m.BLASSuggest)
		}
	}
	fmt.Fprintf(&b, ".\n\n")
	if command != "" {
		fmt.Fprintf(&b, "Command:\n\n```\n%s\n```\n\n", command)
	}
	writeTables(&b, rep, true)
	_, err := w.Write(b.Bytes())
	return err
}

// Markers delimit the generated part of BENCHMARKS.md.
const (
	BeginMarker = "<!-- gmlg bench: begin generated table -->"
	EndMarker   = "<!-- gmlg bench: end generated table -->"
)

// Splice replaces the text between BeginMarker and EndMarker in doc with
// generated (the markers are kept). When doc has no markers it returns doc
// followed by the markers and generated, so that hand-written notes around
// the table survive regeneration.
func Splice(doc, generated string) (string, error) {
	block := BeginMarker + "\n" + generated + EndMarker + "\n"
	switch i, j := strings.Index(doc, BeginMarker), strings.Index(doc, EndMarker); {
	case i < 0 && j < 0 && doc != "" && !strings.HasSuffix(doc, "\n"):
		return doc + "\n" + block, nil
	case i < 0 && j < 0:
		return doc + block, nil
	case i < 0 || j < i:
		return "", fmt.Errorf("bench: malformed markers in the document (begin at %d, end at %d)", i, j)
	default:
		return doc[:i] + block + strings.TrimPrefix(doc[j+len(EndMarker):], "\n"), nil
	}
}

// UpdateMarkdown writes the markdown tables of rep, made by command, into
// the file path between its markers (Splice), keeping the text around
// them; a missing file is created. The file is replaced atomically.
func UpdateMarkdown(path string, rep *Report, command string) error {
	var gen bytes.Buffer
	if err := WriteMarkdown(&gen, rep, command); err != nil {
		return err
	}
	old, err := rundir.ReadInput(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	doc, err := Splice(string(old), gen.String())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return rundir.WriteFile(path, []byte(doc), 0o644)
}
