package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gmlg/gmlg/learn/rundir"
)

// Target is the goal for every row: at least SpeedUp times faster
// than the paper's t_500 and at most MemFraction of its memory.
var Target = struct{ SpeedUp, MemFraction float64 }{SpeedUp: 10, MemFraction: 0.1}

// Summary is one row of the side-by-side table: the row's measurements by
// backend, and the best of them against the paper.
type Summary struct {
	Row       Row
	ByBackend map[string]*Measurement
	// Fastest is the measurement with the smallest t_500 (Hours).
	Fastest *Measurement
	// SpeedUp is PaperT500 / Hours(Fastest) (0 without a paper figure).
	SpeedUp float64
	// WallSpeedUp is PaperT500 / Fastest.T500Hours, the speed-up in wall
	// time as measured (on a shared machine, pessimistic).
	WallSpeedUp float64
	// MemFraction is the fastest measurement's peak RSS over the paper's
	// memory (0 without a paper figure or RSS).
	MemFraction float64
	// Met reports whether both targets hold (false without paper figures).
	Met bool
}

// Hours is the t_500 figure the targets are judged by: T500CPUHours when
// the CPU time is known (it does not depend on the machine's load), else
// the wall-time T500Hours.
func Hours(m *Measurement) float64 {
	if m.T500CPUHours > 0 {
		return m.T500CPUHours
	}
	return m.T500Hours
}

// Summarize groups measurements by row, in first-seen order.
func Summarize(ms []*Measurement) []Summary {
	var out []Summary
	index := map[string]int{}
	for _, m := range ms {
		key := m.Spec.Row.String()
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, Summary{Row: m.Spec.Row, ByBackend: map[string]*Measurement{}})
		}
		s := &out[i]
		s.ByBackend[m.Spec.Backend] = m
		if Hours(m) > 0 && (s.Fastest == nil || Hours(m) < Hours(s.Fastest)) {
			s.Fastest = m
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return paperIndex(out[i].Row) < paperIndex(out[j].Row) })
	for i := range out {
		s := &out[i]
		if s.Fastest == nil {
			continue
		}
		if s.Row.PaperT500 > 0 {
			s.SpeedUp = s.Row.PaperT500 / Hours(s.Fastest)
			if s.Fastest.T500Hours > 0 {
				s.WallSpeedUp = s.Row.PaperT500 / s.Fastest.T500Hours
			}
		}
		if s.Row.PaperMemGB > 0 && s.Fastest.MaxRSS > 0 {
			s.MemFraction = float64(s.Fastest.MaxRSS) / (s.Row.PaperMemGB * 1e9)
		}
		s.Met = s.SpeedUp >= Target.SpeedUp && s.MemFraction > 0 && s.MemFraction <= Target.MemFraction
	}
	return out
}

// SolveFlops is the floating-point work of the measurement's solves: a
// forward and a backward substitution with L cost 2·nnz(L) multiply-adds,
// i.e. 4·nnz(L) flops, per right-hand side (the diagonal counted as the
// rest).
func SolveFlops(m *Measurement) float64 { return 4 * float64(m.NNZL) * float64(m.SolveColumns) }

// paperIndex is the row's position in PaperRows, len(PaperRows) if absent.
func paperIndex(r Row) int {
	for i, p := range PaperRows {
		if p.D == r.D && p.N == r.N && p.Steps == r.Steps {
			return i
		}
	}
	return len(PaperRows)
}

// ratio formats a/b, or "–" when either is missing.
func ratio(a, b float64) string {
	if !(a > 0) || !(b > 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// num formats a figure with three significant digits, "–" for zero/NaN.
func num(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	switch ax := math.Abs(x); {
	case ax >= 100:
		return fmt.Sprintf("%.0f", x)
	case ax >= 10:
		return fmt.Sprintf("%.1f", x)
	case ax >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

func mb(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(b)/1e6)
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// backendOrder returns the backends present in ms, first-seen order.
func backendOrder(ms []*Measurement) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.Spec.Backend] {
			seen[m.Spec.Backend] = true
			out = append(out, m.Spec.Backend)
		}
	}
	return out
}

// detailHeader and detailCells define the per-measurement table.
var detailHeader = []string{"d:n:S", "N", "backend", "ordering", "nnz(L)", "threads", "iters", "evals",
	"evals/iter", "s/eval", "s/iter", "CPU s/iter", "t500 wall (h)", "t500 CPU (h)", "paper t500 (h)", "speed-up", "peak RSS (MB)", "paper mem (GB)",
	"mem/paper", "solve share", "solves/eval", "RHS/solve", "solve GFlop/eval", "GFlop/CPU-s", "tree W/D", "schedule ×8/×16"}

func detailCells(m *Measurement) []string {
	r := m.Spec.Row
	share, perEval, rhs, gfEval, gflops, bound, sched := "–", "–", "–", "–", "–", "–", "–"
	if m.Span > 0 {
		bound = fmt.Sprintf("%.1f", m.Work/m.Span)
	}
	if m.Sched8 > 0 {
		sched = fmt.Sprintf("%.1f/%.1f", m.Sched8, m.Sched16)
	}
	if m.Minimize > 0 {
		share = fmt.Sprintf("%.0f%%", 100*m.SolveSeconds/m.Minimize)
	}
	if m.Evals > 0 && m.Solves > 0 {
		perEval = fmt.Sprintf("%d", m.Solves/int64(m.Evals))
		rhs = fmt.Sprintf("%d", m.SolveColumns/m.Solves)
	}
	if m.Evals > 0 && m.NNZL > 0 {
		gfEval = num(SolveFlops(m) / float64(m.Evals) / 1e9)
	}
	if m.MinimizeCPU > 0 && m.NNZL > 0 {
		gflops = num(SolveFlops(m) / m.MinimizeCPU / 1e9)
	}
	speed, mem := "–", "–"
	if r.PaperT500 > 0 && Hours(m) > 0 {
		speed = fmt.Sprintf("%.1f×", r.PaperT500/Hours(m))
	}
	if r.PaperMemGB > 0 && m.MaxRSS > 0 {
		mem = fmt.Sprintf("1/%.0f", r.PaperMemGB*1e9/float64(m.MaxRSS))
	}
	paperMem := "–"
	if r.PaperMemGB > 0 {
		paperMem = num(r.PaperMemGB)
	}
	epi := num(m.EvalsPerIter)
	if m.Spec.EvalOnly {
		epi += "*"
	}
	return []string{r.String(), fmt.Sprint(r.Vertices()), m.Backend, m.Ordering, fmt.Sprint(m.NNZL), fmt.Sprint(m.Threads),
		fmt.Sprint(m.Iters), fmt.Sprint(m.Evals), epi, num(m.SecPerEval), num(m.SecPerIter),
		num(m.CPUPerIter), num(m.T500Hours), num(m.T500CPUHours), num(r.PaperT500), speed, mb(m.MaxRSS), paperMem, mem, share, perEval, rhs, gfEval, gflops, bound, sched}
}

// ratioBase returns the backend the ratio columns compare against,
// "cholmod" when present, else the first; and the others, in order. With a
// single backend there are no ratio columns.
func ratioBase(backends []string) (base string, others []string) {
	if len(backends) < 2 {
		return "", nil
	}
	base = backends[0]
	for _, b := range backends {
		if b == "cholmod" {
			base = b
		}
	}
	for _, b := range backends {
		if b != base {
			others = append(others, b)
		}
	}
	return base, others
}

// summaryHeader lists the side-by-side columns for the given backends: the
// t500 of each, then each other backend's t500 over the base's (ratioBase).
func summaryHeader(backends []string) []string {
	h := []string{"d", "n", "N", "S", "paper t500 (h)"}
	for _, b := range backends {
		h = append(h, b+" t500 (h) CPU / wall")
	}
	base, others := ratioBase(backends)
	for _, b := range others {
		h = append(h, b+"/"+base)
	}
	h = append(h, "speed-up CPU / wall", "paper mem (GB)")
	for _, b := range backends {
		h = append(h, b+" RSS (GB)")
	}
	return append(h, "mem/paper", "target met")
}

func summaryCells(s Summary, backends []string) []string {
	r := s.Row
	c := []string{fmt.Sprint(r.D), fmt.Sprint(r.N), fmt.Sprint(r.Vertices()), fmt.Sprint(r.Steps), num(r.PaperT500)}
	for _, b := range backends {
		if m := s.ByBackend[b]; m != nil {
			c = append(c, num(m.T500CPUHours)+" / "+num(m.T500Hours))
		} else {
			c = append(c, "–")
		}
	}
	base, others := ratioBase(backends)
	for _, o := range others {
		a, b := s.ByBackend[base], s.ByBackend[o]
		if a != nil && b != nil {
			c = append(c, ratio(Hours(b), Hours(a)))
		} else {
			c = append(c, "–")
		}
	}
	speed := "–"
	if s.SpeedUp > 0 {
		speed = fmt.Sprintf("%.1f× / %.1f×", s.SpeedUp, s.WallSpeedUp)
	}
	paperMem := "–"
	if r.PaperMemGB > 0 {
		paperMem = num(r.PaperMemGB)
	}
	c = append(c, speed, paperMem)
	for _, b := range backends {
		if m := s.ByBackend[b]; m != nil && m.MaxRSS > 0 {
			c = append(c, fmt.Sprintf("%.3f", float64(m.MaxRSS)/1e9))
		} else {
			c = append(c, "–")
		}
	}
	mem := "–"
	if s.MemFraction > 0 {
		mem = fmt.Sprintf("1/%.0f", 1/s.MemFraction)
	}
	met := "–"
	if r.PaperT500 > 0 {
		met = yesNo(s.Met)
	}
	return append(c, mem, met)
}

// WriteText prints the summary and the detail tables, aligned for a
// terminal.
func WriteText(w io.Writer, ms []*Measurement) error {
	backends := backendOrder(ms)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := func(cells []string) { fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t") }
	line(summaryHeader(backends))
	for _, s := range Summarize(ms) {
		line(summaryCells(s, backends))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line(detailHeader)
	for _, m := range ms {
		line(detailCells(m))
	}
	return tw.Flush()
}

func mdTable(w io.Writer, header []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---:"
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(sep, "|"))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
}

// WriteMarkdown writes the report as markdown: the machine and load, the
// command, the side-by-side summary against the paper and the detail table.
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
	fmt.Fprintf(&b, ".\n\n")
	cpu := m.CPU
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(&b, "Machine: %s, %d logical CPUs, %.0f GB RAM, %s/%s. Load average (1/5/15 min) %s at the start, %s at the end", cpu, m.NumCPU, m.MemTotalGB, m.GOOS, m.GOARCH, loadString(m.LoadBefore), loadString(m.LoadAfter))
	if m.LoadBefore[0] > float64(m.NumCPU)/2 || m.LoadAfter[0] > float64(m.NumCPU)/2 {
		fmt.Fprintf(&b, " — the machine was shared, so these times are pessimistic")
	}
	fmt.Fprintf(&b, ".\n\n")
	if command != "" {
		fmt.Fprintf(&b, "Command:\n\n```\n%s\n```\n\n", command)
	}
	backends := backendOrder(rep.Results)
	var rows [][]string
	for _, s := range Summarize(rep.Results) {
		rows = append(rows, summaryCells(s, backends))
	}
	mdTable(&b, summaryHeader(backends), rows)
	fmt.Fprintf(&b, "\nPer measurement. Solve share: wall time inside the backend's solves, summed over the threads that solve concurrently (the workers of the engine's team, or the two chains of an adjoint), over the L-BFGS wall time. Solve GFlop/eval: 4·nnz(L) flops per right-hand side and solve. GFlop/CPU-s: those flops over the process's CPU time (everything included), a load-independent floor of the solve throughput. Tree W/D: the work of one triangular solve with the factor over the critical path of its elimination tree's schedule (factor.Tree.Span), the most that any number of workers could speed a whole-block solve up. Schedule ×8/×16: the speed-up that the backend's own solve schedule allows on 8 and 16 workers (factor.ScheduleReporter: its tasks' work placed on the workers, synchronisation and memory free); the engine of cholmod and go has one.\n\n")
	rows = rows[:0]
	for _, m := range rep.Results {
		rows = append(rows, detailCells(m))
	}
	mdTable(&b, detailHeader, rows)
	for _, m := range rep.Results {
		if m.Spec.EvalOnly {
			fmt.Fprintf(&b, "\n\\* one evaluation measured; %.1f evaluations per iteration assumed (the reference's L-BFGS-B spends 1.1–1.7).\n", AssumedEvalsPerIter)
			break
		}
	}
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
	i := strings.Index(doc, BeginMarker)
	j := strings.Index(doc, EndMarker)
	switch {
	case i < 0 && j < 0:
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + block, nil
	case i < 0 || j < i:
		return "", fmt.Errorf("bench: malformed markers in the document (begin at %d, end at %d)", i, j)
	}
	rest := doc[j+len(EndMarker):]
	rest = strings.TrimPrefix(rest, "\n")
	return doc[:i] + block + rest, nil
}

// UpdateMarkdown writes the markdown tables of rep, made by command, into
// the file path between its markers (Splice), keeping the text around
// them; a missing file is created. The file is replaced atomically.
func UpdateMarkdown(path string, rep *Report, command string) error {
	var gen bytes.Buffer
	if err := WriteMarkdown(&gen, rep, command); err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	doc, err := Splice(string(old), gen.String())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return rundir.WriteFile(path, []byte(doc), 0o644)
}
