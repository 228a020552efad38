package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn/runlog"
)

// TestMain lets the test binary act as the gmlg command when
// GMLG_TEST_MAIN is set, so that the signal test runs a real process
// without building a separate binary.
func TestMain(m *testing.M) {
	if os.Getenv("GMLG_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// sameFile fails unless the two files are byte-identical.
func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ", a, b)
	}
}

// TestResumeEqualsUninterrupted stops a run at iteration 3 (by max-iter, and
// by a cancellation after iteration 2), resumes both to 6 and requires the
// final metric, loss curve and reconstructions to be bitwise those of an
// uninterrupted 6-iteration run.
func TestResumeEqualsUninterrupted(t *testing.T) {
	data := tinyData(t, "2")
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	mustGmlg(t, learnArgs(data, full, "--max-iter", "6", "--save-every", "2")...)

	// Stopped by --max-iter, then extended.
	split := filepath.Join(tmp, "split")
	mustGmlg(t, learnArgs(data, split, "--max-iter", "3", "--save-every", "2")...)
	mustGmlg(t, "learn", "--resume", split, "--max-iter", "6", "--progress", "none")

	// Interrupted (context cancelled, as by SIGINT) when the progress log
	// reports iteration 2.
	cut := filepath.Join(tmp, "cut")
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &watchedStderr{match: func(line string) bool { return learnIterationLine(line, 2) }, on: cancel}
	code, errs := gmlgWatched(ctx, stderr, learnArgs(data, cut, "--max-iter", "6", "--save-every", "5", "--progress", "log")...)
	cancel()
	if code != 130 || !strings.Contains(errs, "interrupted at iteration 2") || !strings.Contains(errs, resumeCommand("learn", cut)) ||
		!strings.Contains(errs, quoteArg(os.Args[0])+" learn --resume ") {
		t.Fatalf("interrupted run: exit %d, stderr:\n%s", code, errs)
	}
	ck, err := runlog.ReadCheckpoint(filepath.Join(cut, runlog.CheckpointName))
	if err != nil || ck.State.Iter != 2 || ck.Done {
		t.Fatalf("checkpoint after the interruption: %+v, %v", ck, err)
	}
	// --resume refuses changed settings, then continues.
	if code, _, errs := gmlg(t, context.Background(), "learn", "--resume", cut, "--t", "1"); code != 2 || !strings.Contains(errs, "--t") {
		t.Errorf("resume with --t: exit %d, %s", code, errs)
	}
	// The refusal spells each flag as the help does.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", filepath.Join(tmp, "elsewhere")}, "-o cannot be given with --resume"},
		{[]string{"--force", "--lambda-s", "1", "--threads", "1"}, "--force, --lambda-s cannot be given"},
	} {
		code, _, errs := gmlg(t, context.Background(), append([]string{"learn", "--resume", cut}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(errs, "--o") || strings.Contains(errs, "[") {
			t.Errorf("resume with %v: exit %d, %s", tc.args, code, errs)
		}
	}
	mustGmlg(t, "learn", "--resume", cut, "--progress", "none")

	// Interrupted before the first iteration (the context is already
	// cancelled): the state at the starting point is saved and resumable.
	zero := filepath.Join(tmp, "zero")
	done, stop := context.WithCancel(context.Background())
	stop()
	if code, _, errs := gmlg(t, done, learnArgs(data, zero, "--max-iter", "6", "--save-every", "2")...); code != 130 || !strings.Contains(errs, "interrupted at iteration 0") {
		t.Fatalf("run interrupted at once: exit %d, stderr:\n%s", code, errs)
	}
	mustGmlg(t, "learn", "--resume", zero, "--progress", "none")

	for _, dir := range []string{split, cut, zero} {
		for _, f := range []string{"metric.npy", "loss.npy", "rec-01-02.npy", "metric-0006.npy"} {
			sameFile(t, filepath.Join(full, f), filepath.Join(dir, f))
		}
	}
	// The same with CHOLMOD, when this build has it.
	if slices.Contains(kernel.Backends(), "cholmod") {
		fullC, splitC := filepath.Join(tmp, "full-cholmod"), filepath.Join(tmp, "split-cholmod")
		mustGmlg(t, learnArgs(data, fullC, "--max-iter", "5", "--backend", "cholmod")...)
		mustGmlg(t, learnArgs(data, splitC, "--max-iter", "2", "--backend", "cholmod")...)
		mustGmlg(t, "learn", "--resume", splitC, "--max-iter", "5", "--progress", "none")
		sameFile(t, filepath.Join(fullC, "metric.npy"), filepath.Join(splitC, "metric.npy"))
		sameFile(t, filepath.Join(fullC, "loss.npy"), filepath.Join(splitC, "loss.npy"))
	}
	// A finished run resumed without a larger --max-iter takes no step
	// and writes its final outputs again, the same.
	before := readNpy(t, filepath.Join(full, "metric.npy"))
	os.Remove(filepath.Join(full, "metric.npy"))
	if code, _, errs := gmlg(t, context.Background(), "learn", "--resume", full, "--progress", "none"); code != 0 {
		t.Errorf("resume of a finished run: exit %d, %s", code, errs)
	}
	if after := readNpy(t, filepath.Join(full, "metric.npy")); !slices.Equal(before.Data, after.Data) {
		t.Errorf("a finished run resumed wrote another metric")
	}
}

// TestSIGINT sends a real SIGINT to a learning process after its first
// iteration and checks that it saves a checkpoint, prints the resume command
// and exits with status 130, and that the run then resumes to completion.
func TestSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	data := tinyData(t, "1")
	runDir := filepath.Join(t.TempDir(), "run")
	// Many cheap iterations, so that the signal arrives mid-run.
	args := learnArgs(data, runDir, "--max-iter", "100000", "--ftol", "0", "--gtol", "0", "--save-every", "1000")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GMLG_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		raw, _ := os.ReadFile(filepath.Join(runDir, "log.txt"))
		if bytes.Contains(raw, []byte("iter=2 ")) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no iteration logged in 30 s; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130; stderr:\n%s", err, stderr.String())
	}
	// The command names the program as it was run (here the test binary).
	if !strings.Contains(stderr.String(), quoteArg(os.Args[0])+" learn --resume "+quoteArg(runDir)) {
		t.Errorf("no resume command in stderr:\n%s", stderr.String())
	}
	ck, err := runlog.ReadCheckpoint(filepath.Join(runDir, runlog.CheckpointName))
	if err != nil || ck.State.Iter < 2 {
		t.Fatalf("checkpoint: %+v, %v", ck, err)
	}
	mustExist(t, filepath.Join(runDir, "loss.npy"), filepath.Join(runDir, "metric-0001.npy"))
	mustGmlg(t, "learn", "--resume", runDir, "--max-iter", strconvItoa(ck.State.Iter+2), "--progress", "none")
	ck2, err := runlog.ReadCheckpoint(filepath.Join(runDir, runlog.CheckpointName))
	if err != nil || ck2.State.Iter != ck.State.Iter+2 || !ck2.Done {
		t.Errorf("after resuming: %+v, %v", ck2, err)
	}
	if l := readNpy(t, filepath.Join(runDir, "loss.npy")); len(l.Data) != ck.State.Iter+2 {
		t.Errorf("loss.npy has %d entries, want %d", len(l.Data), ck.State.Iter+2)
	}
}

// TestForce checks that an existing run folder is never overwritten
// without --force, and that --force removes only gmlg's own files.
func TestForce(t *testing.T) {
	data := tinyData(t, "1")
	runDir := filepath.Join(t.TempDir(), "run")
	mustGmlg(t, learnArgs(data, runDir, "--max-iter", "2")...)
	before, _ := os.ReadFile(filepath.Join(runDir, "metric.npy"))
	code, _, errs := gmlg(t, context.Background(), learnArgs(data, runDir, "--max-iter", "1")...)
	if code != 1 || !strings.Contains(errs, "--force") || !strings.Contains(errs, runDir) {
		t.Fatalf("second run into %s: exit %d, %s", runDir, code, errs)
	}
	after, _ := os.ReadFile(filepath.Join(runDir, "metric.npy"))
	if !bytes.Equal(before, after) {
		t.Fatal("the refused run changed metric.npy")
	}
	notes := filepath.Join(runDir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	mustGmlg(t, learnArgs(data, runDir, "--max-iter", "1", "--force")...)
	if _, err := os.Stat(filepath.Join(runDir, "metric-0002.npy")); err == nil {
		t.Error("--force kept metric-0002.npy of the old run")
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("--force removed a file that is not gmlg's: %v", err)
	}
	// synth and interp protect their folders too.
	if code, _, errs := gmlg(t, context.Background(), "synth", "-o", data, "--n", "8"); code != 1 || !strings.Contains(errs, "--force") {
		t.Errorf("synth into an existing folder: exit %d, %s", code, errs)
	}
}
