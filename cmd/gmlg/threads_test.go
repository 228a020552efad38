package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/runlog"
)

// TestThreadsGOMAXPROCS checks that --threads sets Go's GOMAXPROCS when a
// command runs (0 keeps it) and that building the kernel options does not.
// It does not run in parallel: it reads and restores the process-wide
// setting.
func TestThreadsGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const sentinel = 3
	for _, tc := range []struct {
		threads string
		want    int
	}{
		{"1", 1},
		{"2", 2},
		{"0", sentinel},
	} {
		runtime.GOMAXPROCS(sentinel)
		out := filepath.Join(t.TempDir(), "synth")
		code, _, stderr := gmlg(t, context.Background(), "synth", "--n", "4", "--frames", "3", "--sequences", "1",
			"--t", "1e-2", "--steps", "5", "--sinkhorn-iters", "10", "--backend", "go", "--threads", tc.threads, "-o", out)
		if code != 0 {
			t.Fatalf("synth --threads %s: status %d, stderr:\n%s", tc.threads, code, stderr)
		}
		if got := runtime.GOMAXPROCS(0); got != tc.want {
			t.Errorf("synth --threads %s: GOMAXPROCS = %d, want %d", tc.threads, got, tc.want)
		}
	}

	runtime.GOMAXPROCS(sentinel)
	m := runlog.DefaultModel()
	m.Threads = 1
	if opt := m.HeatOptions(); opt.Threads != 1 || !opt.Serial {
		t.Errorf("heatOptions with --threads 1: Threads %d, Serial %v; want 1, true", opt.Threads, opt.Serial)
	}
	if got := runtime.GOMAXPROCS(0); got != sentinel {
		t.Errorf("heatOptions changed GOMAXPROCS to %d", got)
	}
}

// TestThreadsRecorded checks that learn and colorlearn record in
// params.json the threads their evaluations ran on: --threads when given,
// every core (GOMAXPROCS as the process found it) when 0.
func TestThreadsRecorded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const sentinel = 3
	data := tinyData(t, "1")
	colours := filepath.Join(t.TempDir(), "colours")
	colorTestFrames(t, colours, 3)
	for _, tc := range []struct {
		threads string
		want    int
	}{{"1", 1}, {"0", sentinel}} {
		runtime.GOMAXPROCS(sentinel)
		dir := filepath.Join(t.TempDir(), "learn")
		mustGmlg(t, learnArgs(data, dir, "--max-iter", "1", "--threads", tc.threads)...)
		var p runlog.LearnRun
		readJSON(t, filepath.Join(dir, "params.json"), &p)
		if p.Kernel.Threads != tc.want {
			t.Errorf("learn --threads %s: params.json kernel.threads = %d, want %d", tc.threads, p.Kernel.Threads, tc.want)
		}

		runtime.GOMAXPROCS(sentinel)
		dir = filepath.Join(t.TempDir(), "colour")
		if code, msg := colorTestRun(t, "colorlearn", "--bins", "3", "--t", "1e-2", "--steps", "2", "--sinkhorn-iters", "5",
			"--max-iter", "1", "--progress", "none", "--threads", tc.threads, "-o", dir, colours); code != 0 {
			t.Fatalf("colorlearn --threads %s: exit %d: %s", tc.threads, code, msg)
		}
		c, err := runlog.ReadColourRun(filepath.Join(dir, "params.json"))
		if err != nil {
			t.Fatal(err)
		}
		if c.Threads != tc.want {
			t.Errorf("colorlearn --threads %s: params.json threads = %d, want %d", tc.threads, c.Threads, tc.want)
		}
	}
}

// TestManyThreadsHint checks when a run is told of the pure-Go backend:
// CHOLMOD by default on manyThreads threads or more, and only then.
func TestManyThreadsHint(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		backend string
		chosen  bool
		threads int
		want    bool
	}{
		{"cholmod", false, manyThreads, true},
		{"cholmod", false, 2 * manyThreads, true},
		{"cholmod", false, manyThreads - 1, false},
		{"cholmod", true, manyThreads, false},
		{"go", false, manyThreads, false},
	} {
		runtime.GOMAXPROCS(tc.threads)
		got := manyThreadsHint(tc.backend, tc.chosen)
		if (got != "") != tc.want || (tc.want && !strings.Contains(got, fmt.Sprintf("2 of the %d threads", tc.threads))) {
			t.Errorf("%s, chosen %v, %d threads: hint %q, want one: %v", tc.backend, tc.chosen, tc.threads, got, tc.want)
		}
	}
}

// TestManyThreadsHintShown checks that learn and colorlearn print the hint
// on the default backend with many threads, and not with --backend given
// (--progress log: with none they print nothing).
func TestManyThreadsHintShown(t *testing.T) {
	if kernel.DefaultBackend().Name() != "cholmod" {
		t.Skip("the default backend is not CHOLMOD in this build")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const hint = "--backend go solves on up to all of them"
	data := tinyData(t, "1")
	colours := filepath.Join(t.TempDir(), "colours")
	colorTestFrames(t, colours, 3)
	threads := strconv.Itoa(manyThreads)
	for _, tc := range []struct {
		learn, colour []string // the --backend options
		want          bool
	}{
		{[]string{"--backend", "auto"}, nil, true},
		{[]string{"--backend", "cholmod"}, []string{"--backend", "cholmod"}, false},
	} {
		dir := filepath.Join(t.TempDir(), "learn")
		code, _, stderr := gmlg(t, context.Background(), learnArgs(data, dir, append(tc.learn, "--max-iter", "1", "--threads", threads, "--progress", "log")...)...)
		if code != 0 {
			t.Fatalf("learn: exit %d: %s", code, stderr)
		}
		if strings.Contains(stderr, hint) != tc.want {
			t.Errorf("learn %v --threads %s: hint shown %v, stderr:\n%s", tc.learn, threads, !tc.want, stderr)
		}
		dir = filepath.Join(t.TempDir(), "colour")
		args := append([]string{"colorlearn", "--bins", "3", "--t", "1e-2", "--steps", "2", "--sinkhorn-iters", "5",
			"--max-iter", "1", "--progress", "log", "--threads", threads, "-o", dir}, tc.colour...)
		code, msg := colorTestRun(t, append(args, colours)...)
		if code != 0 {
			t.Fatalf("colorlearn: exit %d: %s", code, msg)
		}
		if strings.Contains(msg, hint) != tc.want {
			t.Errorf("colorlearn %v --threads %s: hint shown %v, stderr:\n%s", tc.colour, threads, !tc.want, msg)
		}
	}
}
