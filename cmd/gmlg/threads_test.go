package main

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

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
		var p runlog.Record
		readJSON(t, filepath.Join(dir, "params.json"), &p)
		if p.Kernel.Threads != tc.want {
			t.Errorf("learn --threads %s: params.json kernel.threads = %d, want %d", tc.threads, p.Kernel.Threads, tc.want)
		}

		runtime.GOMAXPROCS(sentinel)
		dir = filepath.Join(t.TempDir(), "colour")
		if code, msg := colorTestRun(t, "colorlearn", "--bins", "3", "--t", "1e-2", "--steps", "2", "--sinkhorn-iters", "5",
			"--max-iter", "1", "--lambda-s", "0.01", "--progress", "none", "--threads", tc.threads, "-o", dir, colours); code != 0 {
			t.Fatalf("colorlearn --threads %s: exit %d: %s", tc.threads, code, msg)
		}
		var c runlog.Record
		if err := runlog.ReadRecord(dir, &c); err != nil {
			t.Fatal(err)
		}
		if c.Kernel.Threads != tc.want {
			t.Errorf("colorlearn --threads %s: params.json kernel.threads = %d, want %d", tc.threads, c.Kernel.Threads, tc.want)
		}
	}
}
