package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// testState is a small consistent optimiser state.
func testState() *learn.State {
	return &learn.State{Iter: 2, Evals: 3, X: []float64{1, -2}, G: []float64{0.1, 0.2}, F: 1.5,
		S: [][]float64{{1, 2}}, Y: [][]float64{{3, 4}}, Rho: []float64{0.1}, Losses: []float64{3, 2}}
}

// TestCheckpointEveryBitFlip writes a learn and a colorlearn checkpoint and
// flips each byte's bit (byte index mod 8) in turn: every damaged copy must
// be refused with an error naming the file, never read as another state.
func TestCheckpointEveryBitFlip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		write func(path string) error
		read  func(path string) error
	}{
		{"learn",
			func(p string) error {
				return writeCheckpoint(p, &learn.Checkpoint{Level: 0, State: testState(), Done: true, Status: "max-iter"})
			},
			func(p string) error { _, err := runlog.ReadCheckpoint(p); return err }},
		{"colorlearn",
			func(p string) error {
				return writeCheckpoint(p, &learn.Checkpoint{Level: 1, State: testState(), PolishBest: testState(), PolishBestF: 2})
			},
			func(p string) error { _, err := runlog.ReadCheckpointIfAny(p); return err }},
	} {
		path := filepath.Join(dir, tc.name+".gob")
		if err := tc.write(path); err != nil {
			t.Fatal(err)
		}
		if err := tc.read(path); err != nil {
			t.Fatalf("%s: the undamaged checkpoint: %v", tc.name, err)
		}
		good, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range good {
			bad := bytes.Clone(good)
			bad[i] ^= 1 << (i % 8)
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tc.read(path); err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("%s: bit %d of byte %d flipped: err = %v, want an error naming %s", tc.name, i%8, i, err, path)
			}
		}
	}
}

// damage applies change to the file at path and returns the function that
// puts the original back.
func damage(t *testing.T, path string, change func([]byte) []byte) func() {
	t.Helper()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := change(bytes.Clone(good))
	if bytes.Equal(bad, good) {
		t.Fatalf("the change left %s as it was", path)
	}
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// flipMiddleBit inverts one bit in the middle of data.
func flipMiddleBit(data []byte) []byte {
	data[len(data)/2] ^= 0x10
	return data
}

// TestLearnDamagedRunRefused changes one bit of a learn run's checkpoint
// and one value (t) of its params.json: resume and every reader of the run
// (eval --run, interp --run, render) refuse it, naming the file, and accept
// the run again once the file is restored.
func TestLearnDamagedRunRefused(t *testing.T) {
	data := tinyData(t, "1")
	tmp := t.TempDir()
	runDir := filepath.Join(tmp, "run")
	mustGmlg(t, learnArgs(data, runDir, "--max-iter", "2")...)
	ckpt, params := filepath.Join(runDir, runlog.CheckpointName), filepath.Join(runDir, "params.json")
	resume := []string{"learn", "--resume", runDir, "--max-iter", "3", "--progress", "none"}
	readers := [][]string{
		resume,
		{"eval", "--run", runDir, "-o", filepath.Join(tmp, "eval")},
		{"interp", data, "--run", runDir, "--frames", "3", "-o", filepath.Join(tmp, "interp")},
		{"render", runDir},
	}
	editT := func(b []byte) []byte { return bytes.Replace(b, []byte(`"t": 0.01,`), []byte(`"t": 0.02,`), 1) }
	dropSum := func(b []byte) []byte { return bytes.Replace(b, []byte("\n  \"sha256\""), []byte("\n  \"sha512\""), 1) }
	for _, tc := range []struct {
		name    string
		path    string
		change  func([]byte) []byte
		readers [][]string
		want    string
	}{
		{"checkpoint bit flipped", ckpt, flipMiddleBit, readers[:1], ckpt + " was changed or damaged"},
		{"params t edited", params, editT, readers, params + ": changed or damaged"},
		{"params checksum removed", params, dropSum, readers, params + ": no sha256 checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := damage(t, tc.path, tc.change)
			for _, args := range tc.readers {
				code, _, errs := gmlg(t, context.Background(), args...)
				if code != 1 || !strings.Contains(errs, tc.want) {
					t.Errorf("gmlg %s: exit %d, stderr:\n%s\nwant exit 1 and %q", args[0], code, errs, tc.want)
				}
			}
			restore()
		})
	}
	for _, args := range readers {
		mustGmlg(t, args...)
	}
}

// TestColorDamagedRunRefused does the same for a colorlearn run: a flipped
// bit in checkpoint.gob or an edited t_heat in params.json stops --resume
// and sunset -run with an error naming the file.
func TestColorDamagedRunRefused(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	files := colorTestFrames(t, data, 4)
	runDir := filepath.Join(tmp, "run")
	if code, msg := colorTestRun(t, "colorlearn", "--bins", "4", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
		"--max-iter", "2", "--progress=none", "-o", runDir, data); code != 0 {
		t.Fatalf("colorlearn: exit %d: %s", code, msg)
	}
	ckpt, params := filepath.Join(runDir, runlog.CheckpointName), filepath.Join(runDir, runlog.ParamsName)
	resume := []string{"colorlearn", "--resume", runDir, "--max-iter", "3", "--progress=none"}
	// Each sunset writes a folder of its own.
	sunset := func(name string) []string {
		return []string{"sunset", "--run", runDir, "--metric-file", ckpt, "-frames", "2", "--transfer-iters", "5", "--progress=none", "-o", filepath.Join(tmp, name), files[0], files[3]}
	}
	editT := func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"t": 0.01,`), []byte(`"t": 0.02,`), 1)
	}
	for _, tc := range []struct {
		name   string
		path   string
		change func([]byte) []byte
		want   string
	}{
		{"checkpoint bit flipped", ckpt, flipMiddleBit, ckpt + " was changed or damaged"},
		{"params t edited", params, editT, params + ": changed or damaged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := damage(t, tc.path, tc.change)
			defer restore()
			for _, args := range [][]string{resume, sunset(tc.name)} {
				if code, msg := colorTestRun(t, args...); code != 1 || !strings.Contains(msg, tc.want) {
					t.Errorf("gmlg %s: exit %d, stderr:\n%s\nwant exit 1 and %q", args[0], code, msg, tc.want)
				}
			}
		})
	}
	for _, args := range [][]string{sunset("restored"), resume} {
		if code, msg := colorTestRun(t, args...); code != 0 {
			t.Errorf("gmlg %s on the restored run: exit %d: %s", args[0], code, msg)
		}
	}
}

// colorInterruptAt runs colorlearn with args (--progress=none left out: it
// watches the log lines), stopping it as Ctrl-C would when the line of
// iteration iter on the data's own grid appears, and checks the exit
// status and that the message gives the command that resumes out.
func colorInterruptAt(t *testing.T, iter int, out string, args ...string) {
	t.Helper()
	args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--progress=none" })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &watchedStderr{on: cancel, match: func(l string) bool { return learnIterationLine(l, iter) }}
	code, msg := gmlgWatched(ctx, stderr, args...)
	want := quoteArg(os.Args[0]) + " learn --resume " + quoteArg(out)
	if code != 130 || !strings.Contains(msg, want) {
		t.Fatalf("interrupted colorlearn: exit %d, stderr:\n%s\nwant 130 and %q", code, msg, want)
	}
}

// TestColorLearnResumeAlone interrupts colorlearn runs of both modes and
// continues them with --resume RUN_DIR alone: the run's own settings,
// iteration count included, take them to the end of an uninterrupted run
// (bit for bit in exact mode; in fast mode the Sinkhorn warm start
// restarts cold, so close to it).
func TestColorLearnResumeAlone(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	colorTestFrames(t, data, 4)
	for _, tc := range []struct {
		mode string
		args []string
	}{
		{"exact", []string{"--bins", "4", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01", "--max-iter", "4", "-save-every", "3"}},
		{"fast", []string{"-mode", "fast", "--bins", "6", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
			"-coarse", "1", "-coarse-iters", "2", "--max-iter", "4", "-save-every", "3"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			full, cut := filepath.Join(tmp, tc.mode+"-full"), filepath.Join(tmp, tc.mode+" cut")
			args := append([]string{"colorlearn", "--progress=none"}, tc.args...)
			if code, msg := colorTestRun(t, append(args, "-o", full, data)...); code != 0 {
				t.Fatalf("uninterrupted run: exit %d: %s", code, msg)
			}
			colorInterruptAt(t, 2, cut, append(args, "-o", cut, data)...)
			if code, msg := colorTestRun(t, "colorlearn", "--resume", cut); code != 0 {
				t.Fatalf("colorlearn --resume alone: exit %d: %s", code, msg)
			}
			if tc.mode == "exact" {
				for _, f := range []string{"metric.npy", "loss.npy", "metric-0004.npy"} {
					sameFile(t, filepath.Join(full, f), filepath.Join(cut, f))
				}
				return
			}
			res, res2 := colorTestResult(t, full), colorTestResult(t, cut)
			if n := len(res2.Levels); n != 1 || res2.Levels[0].Iter != 4 {
				t.Fatalf("resumed result.json levels %+v, want the fine level alone, to the run's 4 iterations", res2.Levels)
			}
			if d := math.Abs(res2.F-res.F) / res.F; d > 1e-2 {
				t.Errorf("resumed run ends at F = %.8g, uninterrupted at %.8g", res2.F, res.F)
			}
		})
	}
}

// writeCheckpoint writes ck to path atomically, in learn's encoding.
func writeCheckpoint(path string, ck *learn.Checkpoint) error {
	data, err := learn.EncodeCheckpoint(ck)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return rundir.WriteFile(path, data, 0o644)
}
