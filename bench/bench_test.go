package bench

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel"
)

// TestMain lets the test binary serve as the benchmark child: Run re-executes
// it with ChildEnv set.
func TestMain(m *testing.M) {
	if ok, err := ChildFromEnv(context.Background(), os.Stdout); ok {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func selfCommand(ctx context.Context, _ ...string) *exec.Cmd {
	return exec.CommandContext(ctx, os.Args[0])
}

func TestParseRows(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		paper   float64 // PaperT500 of the first row
		wantErr bool
	}{
		{in: "2:50:20", want: []string{"2:50:20"}, paper: 1.6},
		{in: "3:32:20", want: []string{"3:32:20"}, paper: 110},
		{in: " 2:8:3 , 3:16:100", want: []string{"2:8:3", "3:16:100"}, paper: 0},
		{in: "quick", want: []string{"2:50:20", "3:16:20"}, paper: 1.6},
		{in: "4,1,4", want: []string{"2:100:100", "2:50:20"}, paper: 60},
		{in: "all", want: []string{"2:50:20", "2:50:100", "2:100:20", "2:100:100", "3:16:20", "3:16:50", "3:16:100", "3:32:20",
			"colour:16", "colour:32", "colour:32:seldovia2"}, paper: 1.6},
		{in: "colour:4,colour:32:seldovia2,colour:4:synthetic", want: []string{"colour:4", "colour:32:seldovia2"}},
		{in: "colour:1", wantErr: true},
		{in: "colour:x", wantErr: true},
		{in: "colour:8:", wantErr: true},
		{in: "colour:8:a/b", wantErr: true},
		{in: "colour:8:a:b", wantErr: true},
		{in: "", wantErr: true},
		{in: "9", wantErr: true},
		{in: "0", wantErr: true},
		{in: "2:50", wantErr: true},
		{in: "4:10:10", wantErr: true},
		{in: "2:x:10", wantErr: true},
		{in: "2:50:0", wantErr: true},
	}
	for _, tc := range tests {
		rows, err := ParseRows(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParseRows(%q) = %v, want an error", tc.in, rows)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRows(%q): %v", tc.in, err)
			continue
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.String())
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("ParseRows(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if rows[0].PaperT500 != tc.paper {
			t.Errorf("ParseRows(%q)[0].PaperT500 = %v, want %v", tc.in, rows[0].PaperT500, tc.paper)
		}
	}
}

func TestPaperRows(t *testing.T) {
	// Table 1 of the paper: t_500 in hours, memory in GB.
	t500 := []float64{1.6, 7, 13, 60, 9, 25, 46, 110}
	mem := []float64{1.3, 4.7, 4, 16, 1.7, 3.3, 6.2, 10.9}
	verts := []int{2500, 2500, 10000, 10000, 4096, 4096, 4096, 32768}
	for i, r := range PaperRows {
		if r.PaperT500 != t500[i] || r.PaperMemGB != mem[i] || r.Vertices() != verts[i] {
			t.Errorf("row %d = %+v (N=%d), want t500 %v, mem %v, N %d", i+1, r, r.Vertices(), t500[i], mem[i], verts[i])
		}
	}
	for _, q := range QuickRows {
		for _, r := range PaperRows {
			if r.Vertices()*r.Steps < q.Vertices()*q.Steps && r.D == q.D {
				t.Errorf("quick row %v is not the smallest %d-D row (%v is smaller)", q, q.D, r)
			}
		}
	}
}

func TestDerive(t *testing.T) {
	tests := []struct {
		name                                      string
		m                                         Measurement
		perEval, perIter, evalsPerIter, t500, cpu float64
	}{
		// 4 iterations after x0, 7 evaluations in 26 s, the first taking 2 s:
		// 6 s per iteration, 1.5 evaluations per iteration,
		// t500 = (2 + 500·6)/3600 h; the process used 13 s of CPU in the
		// 26 s, so half of every figure in CPU time.
		{name: "regular", m: Measurement{Iters: 4, Evals: 7, Minimize: 26, FirstEval: 2, MinimizeCPU: 13},
			perEval: 26.0 / 7, perIter: 6, evalsPerIter: 1.5, t500: 3002.0 / 3600, cpu: 1501.0 / 3600},
		{name: "no iteration", m: Measurement{Iters: 0, Evals: 3, Minimize: 9, FirstEval: 3},
			perEval: 3},
		// One evaluation of 4 s using 2 s of CPU: AssumedEvalsPerIter
		// evaluations per iteration.
		{name: "eval only", m: Measurement{Spec: Spec{EvalOnly: true}, Evals: 1, Minimize: 4, FirstEval: 4, MinimizeCPU: 2},
			perEval: 4, perIter: 4 * AssumedEvalsPerIter, evalsPerIter: AssumedEvalsPerIter,
			t500: (4 + 500*4*AssumedEvalsPerIter) / 3600, cpu: (2 + 500*2*AssumedEvalsPerIter) / 3600},
	}
	for _, tc := range tests {
		m := tc.m
		m.Derive()
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"SecPerEval", m.SecPerEval, tc.perEval},
			{"SecPerIter", m.SecPerIter, tc.perIter},
			{"EvalsPerIter", m.EvalsPerIter, tc.evalsPerIter},
			{"T500Hours", m.T500Hours, tc.t500},
			{"T500CPUHours", m.T500CPUHours, tc.cpu},
		} {
			if math.Abs(c.got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
				t.Errorf("%s: %s = %v, want %v", tc.name, c.what, c.got, c.want)
			}
		}
	}
	if got := T500(0, 7.2); got != 1 {
		t.Errorf("T500(0, 7.2 s/iter) = %v h, want 1", got)
	}
}

func fakeMeasurement(row string, backend string, t500cpu, t500wall float64, rss int64) *Measurement {
	rows, err := ParseRows(row)
	if err != nil {
		panic(err)
	}
	return &Measurement{Spec: Spec{Row: rows[0], Backend: backend}, Backend: backend, Ordering: "amd", NNZL: 1234,
		Threads: 2, Iters: 2, Evals: 5, Minimize: 10, FirstEval: 2, SecPerIter: 4, EvalsPerIter: 2,
		T500Hours: t500wall, T500CPUHours: t500cpu, MaxRSS: rss, Solves: 1000, SolveColumns: 20000,
		SolveWall: 5, KernelCols: 16, KernelGFlops: 0.025, Work: 1369, Span: 37, Sched8: 5.25, Sched16: 7.5,
		KernelApply: CallPair{Columns: 8000, Eval: 2, Alone: 1.5}, KernelAdjoint: CallPair{Columns: 12000, Eval: 3, Alone: 2.7}}
}

// TestSummaryTable checks the side-by-side table: the paper's rows in its
// order and the others last, the fastest backend's speed-ups and memory
// against the paper, and the targets.
func TestSummaryTable(t *testing.T) {
	ms := []*Measurement{
		fakeMeasurement("2:8:2", "go", 0.001, 0.002, 10e6),
		fakeMeasurement("3:32:20", "cholmod", 20, 40, 2e9),
		fakeMeasurement("2:50:20", "cholmod", 0.1, 0.3, 100e6),
		fakeMeasurement("2:50:20", "go", 0.08, 0.2, 65e6),
	}
	st := summaryTable(ms)
	col := func(row int, head string) string { return st.rows[row][slices.Index(st.header, head)] }
	if len(st.rows) != 3 || col(0, "n") != "50" || col(1, "n") != "32" || col(2, "n") != "8" {
		t.Fatalf("rows %v, want 2:50:20, 3:32:20 and 2:8:2", st.rows)
	}
	// 2:50:20: go is the fastest, 1.6 h / 0.08 h on CPU time, 1.6 / 0.2
	// on wall time, 65 MB of the paper's 1.3 GB.
	for _, c := range []struct {
		row        int
		head, want string
	}{
		{0, "speed-up CPU / wall", "20.0× / 8.0×"}, {0, "mem/paper", "1/20"}, {0, "target met", "yes"},
		{1, "speed-up CPU / wall", "5.5× / 2.8×"}, {1, "target met", "no"}, // 20 h and 2 GB against 110 h and 10.9 GB
		{2, "speed-up CPU / wall", "–"}, {2, "target met", "–"},
	} {
		if got := col(c.row, c.head); got != c.want {
			t.Errorf("row %d, %s: %q, want %q", c.row, c.head, got, c.want)
		}
	}
}

// TestRatioColumns checks the ratio columns of the side-by-side table: one
// per backend other than CHOLMOD, each against CHOLMOD wherever it stands,
// against the first backend without CHOLMOD, none with a single backend.
func TestRatioColumns(t *testing.T) {
	for _, c := range []struct {
		backends []string
		want     map[string]string // ratio column → cell
	}{
		{[]string{"cholmod", "go", "go-purego"}, map[string]string{"go/cholmod": "0.80", "go-purego/cholmod": "1.50"}},
		{[]string{"go", "cholmod", "go-purego"}, map[string]string{"go/cholmod": "0.80", "go-purego/cholmod": "1.50"}},
		{[]string{"go", "go-purego"}, map[string]string{"go-purego/go": "1.88"}},
		{[]string{"go"}, map[string]string{}},
	} {
		hours := map[string]float64{"cholmod": 0.1, "go": 0.08, "go-purego": 0.15}
		var ms []*Measurement
		for _, be := range c.backends {
			ms = append(ms, fakeMeasurement("2:50:20", be, hours[be], 2*hours[be], 100e6))
		}
		st := summaryTable(ms)
		header, cells := st.header, st.rows[0]
		if len(cells) != len(header) {
			t.Fatalf("%v: %d cells for %d header columns", c.backends, len(cells), len(header))
		}
		got := map[string]string{}
		for i, h := range header {
			if strings.Contains(h, "/") && !strings.Contains(h, " ") && h != "mem/paper" {
				got[h] = cells[i]
			}
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%v: ratio columns %v, want %v", c.backends, got, c.want)
		}
	}
}

func TestWriteTables(t *testing.T) {
	ms := []*Measurement{
		fakeMeasurement("2:50:20", "cholmod", 0.1, 0.3, 100e6),
		fakeMeasurement("2:50:20", "go", 0.08, 0.2, 65e6),
	}
	// The roofline bounds 2:50:20 at its intensity, 2·1234·16 / (12·1234
	// + 16·2500·16) = 0.0603 flop/byte, times 1 GB/s.
	rep := &Report{Results: ms, Machine: Machine{CPU: "Test CPU", NumCPU: 2, LoadBefore: [3]float64{3, 2, 1}, GoVersion: "go1.x",
		BLAS: "Prescott", BLASSuggest: "SkylakeX"},
		Roofline: Roofline{Threads: 2, Lanes: 8, PeakGFlops: 100, Bands: []Band{{1 << 30, 1}}},
		Colour: []*ColourRun{{Row: Row{D: 3, N: 16, Colour: Synthetic}, Threads: 2, Seconds: 61.25, CPUSeconds: 118, MaxRSS: 45e6,
			Iterations: 500, Evaluations: 509, F: 124.77227, FExact: 124.77226, Status: "iteration limit"},
			{Row: Row{D: 3, N: 32, Colour: "seldovia2"}, Threads: 2, Status: "skipped: no folder /x/seldovia2"}}}
	var txt bytes.Buffer
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cholmod t500 (h) CPU / wall", "go/cholmod", "0.80", "20.0× / 8.0×", "1/20", "yes", "0.065", "1234", "50%", "200",
		"0.0197", // 4·1234·20000 flops over 5 evaluations
		"tree W/D", "37.0", "schedule ×8/×16", "5.2/7.5",
		"Roofline on P = 2: multiply-add peak 100 GFlop/s (8 lanes); triad bandwidth in GB/s 1.00 over 1024 MiB.",
		"0.84",      // solve/kernel: 1.5 + 2.7 s alone over 2 + 3 s
		"0.75/0.90", // applications/adjoint
		"0.0603",    // the roofline
		"33%",       // 0.0197 / 0.0603
		"Time to a colour metric", "colour:16", "61.2", "118", "45", "500", "509", "124.772", "iteration limit",
		"colour:32:seldovia2", "skipped: no folder /x/seldovia2"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text table lacks %q:\n%s", want, txt.String())
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep, "gmlg bench -rows all"); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{"Test CPU, 2 logical CPUs", "3.00 2.00 1.00", "machine was shared", "gmlg bench -rows all",
		"OpenBLAS runs its Prescott kernels here", "OPENBLAS_CORETYPE=SkylakeX", "| 2 | 50 | 2500 | 20 | 1.60 |", "Tree W/D: the work",
		"Roofline on P = 2", "roofline share", "### Time to a colour metric", "| colour:16 | 2 | 61.2 | 118 | 45 | 500 | 509 | 124.772 | 124.772 | iteration limit |"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	// Every table line has the same number of cells as its header.
	for _, block := range strings.Split(out, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if !strings.HasPrefix(lines[0], "|") {
			continue
		}
		n := strings.Count(lines[0], "|")
		for _, l := range lines[1:] {
			if strings.Count(l, "|") != n {
				t.Errorf("markdown line %q has %d bars, header %d", l, strings.Count(l, "|"), n)
			}
		}
	}
}

func TestReportJSON(t *testing.T) {
	rep := &Report{Results: []*Measurement{fakeMeasurement("3:16:20", "go", 1, 2, 3e6)},
		Colour:  []*ColourRun{{Row: Row{D: 3, N: 32, Colour: "seldovia2"}, F: 3}},
		Machine: Machine{CPU: "x", LoadBefore: [3]float64{1, 2, 3}}, Roofline: Roofline{Threads: 2, Bands: []Band{{1 << 30, 7}}}}
	path := filepath.Join(t.TempDir(), "rep.json")
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, w := back.Results[0], rep.Results[0]
	if m.Spec.Row != w.Spec.Row || m.NNZL != w.NNZL || m.T500CPUHours != w.T500CPUHours || m.MaxRSS != w.MaxRSS || m.KernelGFlops != w.KernelGFlops ||
		back.Machine.LoadBefore != rep.Machine.LoadBefore || !reflect.DeepEqual(back.Roofline, rep.Roofline) || *back.Colour[0] != *rep.Colour[0] {
		t.Errorf("round trip: got %+v %+v, want %+v %+v", back, m, rep, w)
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSONFile(path); err == nil {
		t.Error("ReadJSONFile of a truncated report succeeded")
	}
}

func TestSplice(t *testing.T) {
	gen := "TABLE\n"
	block := BeginMarker + "\nTABLE\n" + EndMarker + "\n"
	tests := []struct {
		doc, want string
		wantErr   bool
	}{
		{doc: "", want: block},
		{doc: "# Title\nnotes", want: "# Title\nnotes\n" + block},
		{doc: "head\n" + BeginMarker + "\nold\nlines\n" + EndMarker + "\ntail\n", want: "head\n" + block + "tail\n"},
		{doc: EndMarker + "\n" + BeginMarker, wantErr: true},
		{doc: BeginMarker + " only", wantErr: true},
	}
	for _, tc := range tests {
		got, err := Splice(tc.doc, gen)
		if tc.wantErr {
			if err == nil {
				t.Errorf("Splice(%q) = %q, want an error", tc.doc, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Splice(%q) = %q, %v; want %q", tc.doc, got, err, tc.want)
		}
		// Regenerating is idempotent.
		if again, _ := Splice(got, gen); again != got {
			t.Errorf("Splice is not idempotent: %q → %q", got, again)
		}
	}
}

func TestMetric3D(t *testing.T) {
	n := 5
	th := Metric3D(n)
	if len(th) != 3*n*n*n {
		t.Fatalf("len = %d, want %d", len(th), 3*n*n*n)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range th {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo < 0.4-1e-12 || hi > 1.6+1e-12 || hi-lo < 0.5 {
		t.Errorf("Metric3D range [%v, %v], want a non-constant metric within [0.4, 1.6]", lo, hi)
	}
}

// TestRunTiny is the --quick path on the tiniest grid: each backend in a
// child process (this test binary, see TestMain), peak RSS from the OS.
func TestRunTiny(t *testing.T) {
	rows, err := ParseRows("2:8:2")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	rep, err := Run(context.Background(), &Options{Rows: rows, Iters: 1, Threads: 1, Command: selfCommand, Log: &log,
		Spec: Spec{Sinkhorn: 5, Frames: 4, T: 1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(DefaultBackends()); len(rep.Results) != want {
		t.Fatalf("%d results, want %d (one per backend)", len(rep.Results), want)
	}
	for _, m := range rep.Results {
		if m.Backend != m.Spec.Backend || m.Ordering == "" || m.NNZL < 64 || m.Threads != 1 {
			t.Errorf("%s: backend %q ordering %q nnz(L) %d threads %d", m.Spec.Backend, m.Backend, m.Ordering, m.NNZL, m.Threads)
		}
		// A Go process holds several MB resident; a 64-vertex problem
		// should not need 1 GB.
		if m.MaxRSS < 1<<20 || m.MaxRSS > 1<<30 {
			t.Errorf("%s: MaxRSS = %d bytes", m.Spec.Backend, m.MaxRSS)
		}
		if m.Iters != 1 || m.Evals < 2 || m.Solves == 0 || m.Factorizations < int64(m.Evals) {
			t.Errorf("%s: iters %d evals %d solves %d factorisations %d", m.Spec.Backend, m.Iters, m.Evals, m.Solves, m.Factorizations)
		}
		// The tree's work counts every stored entry of L.
		if !(m.Span > 0 && m.Span <= m.Work && m.Work >= float64(m.NNZL)) {
			t.Errorf("%s: tree work %g, span %g, nnz(L) %d", m.Spec.Backend, m.Work, m.Span, m.NNZL)
		}
		// Every backend but the dense oracle solves on the engine's
		// schedule, which can use 8 workers no worse than 1, and 16 no
		// worse than 8.
		if sched := m.Spec.Backend != "dense"; sched != (m.Sched8 > 0) || m.Sched8 < 1 && sched || m.Sched16 < m.Sched8 {
			t.Errorf("%s: schedule bounds ×%g on 8 workers, ×%g on 16", m.Spec.Backend, m.Sched8, m.Sched16)
		}
		if !(m.T500Hours > 0) || !(m.F < m.F0) {
			t.Errorf("%s: t500 %v, F %v → %v (want a decrease)", m.Spec.Backend, m.T500Hours, m.F0, m.F)
		}
		// The evaluation's mean width is 2·(4−2) columns. The paired
		// evaluation, one of them, solves both kinds of call, no more
		// columns than the timed run's evaluations together, and
		// KernelGFlops is its flops over the repeated calls' time (to
		// 1e-12: the same formula, its inputs through the child's JSON,
		// which keeps float64s exactly; a slack of rounding only).
		if m.KernelCols != 4 || !(m.SolveWall > 0) || m.SolveWall > m.Minimize {
			t.Errorf("%s: %d columns; solve wall %v s of %v", m.Spec.Backend, m.KernelCols, m.SolveWall, m.Minimize)
		}
		ap, ad := m.KernelApply, m.KernelAdjoint
		cols := ap.Columns + ad.Columns
		want := solveFlops(m.NNZL, cols) / (ap.Alone + ad.Alone) / 1e9
		if ap.Columns <= 0 || ad.Columns <= 0 || cols > m.SolveColumns || !(ap.Eval > 0 && ap.Alone > 0 && ad.Eval > 0 && ad.Alone > 0) ||
			math.Abs(m.KernelGFlops-want) > 1e-12*want {
			t.Errorf("%s: kernel %v GFlop/s from applications %+v and adjoint %+v (of %d columns in all)", m.Spec.Backend, m.KernelGFlops, ap, ad, m.SolveColumns)
		}
	}
	if !strings.Contains(log.String(), "2:8:2") {
		t.Errorf("no progress line in %q", log.String())
	}
	// The quick path: a single evaluation per backend.
	rep, err = Run(context.Background(), &Options{Rows: rows, Iters: -1, Command: selfCommand,
		Spec: Spec{Sinkhorn: 5, Frames: 4, T: 1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Results {
		if !m.Spec.EvalOnly || m.Evals != 1 || m.Iters != 0 || m.EvalsPerIter != AssumedEvalsPerIter || !(m.T500Hours > 0) || m.MaxRSS <= 0 {
			t.Errorf("eval-only %s: %+v", m.Spec.Backend, m)
		}
	}
}

func TestRunChildError(t *testing.T) {
	rows, _ := ParseRows("2:8:2")
	_, err := Run(context.Background(), &Options{Rows: rows, Backends: []string{"nosuch"}, Iters: 1, Command: selfCommand})
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("Run with an unknown backend: %v, want an error naming it", err)
	}
	if _, err := Run(context.Background(), &Options{}); err == nil {
		t.Error("Run without Command succeeded")
	}
}

// BenchmarkEval times one objective + gradient evaluation of a row (use with
// -cpuprofile for the hot path), at the unit metric.
func BenchmarkEval(b *testing.B) {
	for _, row := range []string{"2:50:20", "3:16:20"} {
		for _, be := range DefaultBackends() {
			b.Run(row+"/"+be, func(b *testing.B) {
				rows, _ := ParseRows(row)
				obj, err := NewObjective(Spec{Row: rows[0], Backend: be}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer obj.Close()
				x := make([]float64, obj.Dim())
				g := make([]float64, obj.Dim())
				b.ResetTimer()
				for range b.N {
					if _, err := obj.Eval(g, x); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSolveColumns times one heat sub-step solve of an N×cols block at
// the unit metric, for the block widths the learner could use: 8 (half a
// block per core), 16 (today's Sinkhorn block) and 32 (the adjoint's two
// chains batched). Compare ns/op per column.
func BenchmarkSolveColumns(b *testing.B) {
	for _, row := range []string{"2:50:20", "3:16:20"} {
		rows, _ := ParseRows(row)
		g, err := kernel.Cube(rows[0].D, rows[0].N)
		if err != nil {
			b.Fatal(err)
		}
		for _, be := range DefaultBackends() {
			for _, cols := range []int{8, 16, 32} {
				b.Run(fmt.Sprintf("%s/%s/cols=%d", row, be, cols), func(b *testing.B) {
					fz, _ := kernel.Backend(be)
					h, err := kernel.NewHeat(g, &kernel.HeatOptions{Backend: fz, Steps: 1})
					if err != nil {
						b.Fatal(err)
					}
					defer h.Close()
					w := make([]float64, g.NumEdges())
					for i := range w {
						w[i] = 1
					}
					if err := h.SetWeights(w); err != nil {
						b.Fatal(err)
					}
					src := make([]float64, g.N()*cols)
					for i := range src {
						src[i] = float64(i%7) + 1
					}
					dst := make([]float64, len(src))
					b.ResetTimer()
					for range b.N {
						if err := h.Apply(dst, src, cols); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
