package limits

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/synth"
	"github.com/gmlg/gmlg/ot"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1000", 1000},
		{"64G", 64 << 30},
		{"64GB", 64 << 30},
		{"64GiB", 64 << 30},
		{"512m", 512 << 20},
		{"1.5T", 3 << 39},
		{"800K", 800 << 10},
		{" 2 G ", 2 << 30},
		{"", 0},
		{"G", 0},
		{"-1G", 0},
		{"0", 0},
		{"lots", 0},
		{"99999999999T", 0},
	} {
		got, err := ParseBytes(tc.in)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("ParseBytes(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{{512, "512 bytes"}, {1536, "1.5 KiB"}, {14.4e9, "13.4 GiB"}, {3 << 40, "3.0 TiB"}} {
		if got := FormatBytes(tc.in); got != tc.want {
			t.Errorf("FormatBytes(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// wantLimit fails t unless err is an *Error whose message holds every
// fragment (or, with no fragments, unless err is nil).
func wantLimit(t *testing.T, name string, err error, fragments ...string) {
	t.Helper()
	if len(fragments) == 0 {
		if err != nil {
			t.Errorf("%s: unexpected error %v", name, err)
		}
		return
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("%s: error %v (%T), want a *limits.Error", name, err, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not mention %q", name, err, f)
		}
	}
}

func TestFixedLimits(t *testing.T) {
	cpus := runtime.NumCPU()
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"threads at the limit", Threads("--threads", MaxThreadsPerCPU*cpus), nil},
		{"threads above", Threads("--threads", 100000), []string{"--threads 100000: at most", "CPUs here", "pass a smaller --threads"}},
		{"frames at the limit", Count("--frames", MaxFrames, MaxFrames, "frames"), nil},
		{"frames above", Count("--frames", 100000, MaxFrames, "frames"), []string{"--frames 100000: at most 1000 frames"}},
		{"2-D side 4096", Vertices("f.npy", 2, 4096), nil},
		{"2-D side 4097", Vertices("f.npy", 2, 4097), []string{"f.npy", "at most 16777216", "side at most 4096"}},
		{"3-D side 256", Vertices("f.npy", 3, 256), nil},
		{"3-D side 300", Vertices("f.npy", 3, 300), []string{"side at most 256"}},
		{"huge side", Vertices("f.npy", 3, 1<<40), []string{"at most 16777216"}},
	} {
		wantLimit(t, tc.name, tc.err, tc.want...)
	}
}

func TestMemoryBudget(t *testing.T) {
	t.Setenv(MemoryEnv, "1M")
	wantLimit(t, "within", Memory("the thing", 1<<20, ""))
	wantLimit(t, "beyond", Memory("the thing", 3<<20, "use less"),
		"the thing needs about 3.0 MiB", "budget of 1.0 MiB (GMLG_MAX_MEMORY)", "use less", "set GMLG_MAX_MEMORY")

	t.Setenv(MemoryEnv, "a lot")
	if err := Memory("x", 1, ""); err == nil || !strings.Contains(err.Error(), MemoryEnv) {
		t.Errorf("bad %s: err = %v", MemoryEnv, err)
	}

	t.Setenv(MemoryEnv, "")
	b, source, err := Budget()
	if err != nil || (b != 0 && !strings.Contains(source, "physical")) {
		t.Errorf("Budget() = %d, %q, %v", b, source, err)
	}
	if _, statErr := os.Stat("/proc/meminfo"); statErr == nil && b <= 0 {
		t.Errorf("Budget() = %d with /proc/meminfo present", b)
	}
}

// TestObjectiveBytes checks that the estimate grows with what it depends
// on, and its messages.
func TestObjectiveBytes(t *testing.T) {
	in, ends := Frames(5, 2, 1)
	if in != 3 || ends != 5 {
		t.Fatalf("Frames(5, 2, 1) = %d, %d; want 3, 5", in, ends)
	}
	fwd := Objective{Dim: 2, Side: 4, Interior: 1, Endpoints: 2, Forward: true}
	exact := Objective{Dim: 2, Side: 4, Interior: 1, Endpoints: 2, Iterations: 50, Steps: 20}
	stored := exact
	stored.Store = true
	more := exact
	more.Iterations = 100
	fast := exact
	fast.Fast, fast.Anderson = true, 5
	for _, tc := range []struct {
		name         string
		small, large Objective
	}{
		{"exact over forward", fwd, exact},
		{"stored sub-steps", exact, stored},
		{"more iterations", exact, more},
		{"fast over forward", fwd, fast},
	} {
		if !(tc.small.Bytes() < tc.large.Bytes()) {
			t.Errorf("%s: %g is not below %g", tc.name, tc.small.Bytes(), tc.large.Bytes())
		}
	}
	if w := fwd.Where(); w != "the 2-D grid of side 4" {
		t.Errorf("Where() = %q", w)
	}
	t.Setenv(MemoryEnv, "1K")
	wantLimit(t, "check", exact.Check("the objective", "fewer frames"),
		"the objective on the 2-D grid of side 4 (3 frames) needs about", "fewer frames")
}

// TestObjectiveBytesIsReported holds the estimate to what a real
// learn.Objective (Objective.MemoryBytes) or forward ot.Interpolator
// (MemoryBytes, with the frames handed back, the metric and its weights)
// reports, plus the kernel's estimate, on 2-D and 3-D grids and a graph,
// in exact mode (recomputed or stored sub-steps), fast mode and forward
// only.
func TestObjectiveBytesIsReported(t *testing.T) {
	g2, _ := kernel.Cube(2, 5)
	g3, _ := kernel.Cube(3, 3)
	sphere, err := synth.Sphere(4)
	if err != nil {
		t.Fatal(err)
	}
	counts := []int{4, 3}
	for _, sp := range []struct {
		name string
		g    *kernel.Graph
		size Objective
		kind learn.MetricKind
	}{
		{"2-D", g2, Objective{Dim: 2, Side: 5}, learn.VertexMetric},
		{"3-D", g3, Objective{Dim: 3, Side: 3}, learn.VertexMetric},
		{"graph", sphere.G, Objective{Graph: sphere.G}, learn.EdgeMetric},
	} {
		var seqs []learn.Sequence
		var oseqs []ot.Sequence
		for _, k := range counts {
			frames := make([][]float64, k)
			for j := range frames {
				frames[j] = make([]float64, sp.g.N())
				for i := range frames[j] {
					frames[j][i] = 1 / float64(sp.g.N())
				}
			}
			seqs = append(seqs, learn.Sequence{Frames: frames})
			oseqs = append(oseqs, ot.Sequence{Source: frames[0], Target: frames[k-1], Frames: k})
		}
		for _, m := range []struct {
			name string
			set  ot.Settings
			size Objective
		}{
			{"exact", ot.Settings{Iterations: 3}, Objective{Iterations: 3, Steps: 2}},
			{"stored", ot.Settings{Iterations: 3}, Objective{Iterations: 3, Steps: 2, Store: true}},
			{"fast", ot.Settings{Tol: learn.DefaultTol, Gradient: ot.ImplicitGMRES, Anderson: 2}, Objective{Fast: true, Anderson: 2}},
			{"forward", ot.Settings{ForwardOnly: true}, Objective{Forward: true}},
			{"fast forward", ot.Settings{Tol: learn.DefaultTol, ForwardOnly: true}, Objective{Fast: true, Forward: true}},
		} {
			size := m.size
			size.Dim, size.Side, size.Graph = sp.size.Dim, sp.size.Side, sp.size.Graph
			size.Interior, size.Endpoints = Frames(counts...)
			cfg := &learn.Config{Heat: kernel.HeatOptions{Steps: 2}, Sinkhorn: m.set, Metric: sp.kind}
			var reported float64
			if size.Forward {
				h, err := learn.NewKernel(sp.g, nil, cfg)
				if err != nil {
					t.Fatal(err)
				}
				ip, err := ot.NewInterpolator(h, oseqs, &m.set)
				if err != nil {
					t.Fatal(err)
				}
				params, _ := sp.kind.On(sp.g)
				frames := size.Interior + size.Endpoints
				reported = float64(ip.MemoryBytes()) + 8*float64(sp.g.N()*frames+params.NumParams()+sp.g.NumEdges())
				h.Close()
			} else {
				obj, err := learn.NewObjective(sp.g, seqs, cfg)
				if err != nil {
					t.Fatal(err)
				}
				reported = float64(obj.MemoryBytes())
				obj.Close()
			}
			if got, want := size.Bytes(), reported+size.kernelBytes(); got != want {
				t.Errorf("%s %s: estimate %g, want %g reported + %g for the kernel", sp.name, m.name, got, reported, size.kernelBytes())
			}
		}
	}
}
