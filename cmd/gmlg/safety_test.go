package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// outside is what lies outside every folder the commands of
// TestRunFolderSafety write: a file with known content and the path a
// dangling link points to. No command may change the one or create the
// other.
type outside struct {
	file, missing string
}

const outsideText = "precious, not gmlg's"

func newOutside(t *testing.T) outside {
	t.Helper()
	dir := t.TempDir()
	o := outside{file: filepath.Join(dir, "precious"), missing: filepath.Join(dir, "created")}
	if err := os.WriteFile(o.file, []byte(outsideText), 0o644); err != nil {
		t.Fatal(err)
	}
	return o
}

func (o outside) check(t *testing.T) {
	t.Helper()
	if raw, err := os.ReadFile(o.file); err != nil || string(raw) != outsideText {
		t.Errorf("the file outside the folder changed: %q, %v", raw, err)
	}
	if _, err := os.Lstat(o.missing); err == nil {
		t.Errorf("%s was created outside the folder", o.missing)
	}
}

// copyRun copies the run folder src (its regular files) into a new folder.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// replaceWith replaces the file dir/name by a symbolic link to target.
func replaceWith(t *testing.T, dir, name, target string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// fifoAt replaces the file at path by a FIFO (skipping the test where
// FIFOs cannot be made) and returns path.
func fifoAt(t *testing.T, path string) string {
	t.Helper()
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

// gmlgBounded runs gmlg in-process, failing the test if it has not
// returned within a minute (a read that blocks on a FIFO).
func gmlgBounded(t *testing.T, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.out + r.err
	case <-time.After(time.Minute):
		t.Fatalf("gmlg %s did not return within a minute (blocked?)", strings.Join(args, " "))
		return 0, ""
	}
}

// TestRunFolderSafety runs every reproducer of a command writing outside
// its folder, removing its own input, trusting what it finds on disk or
// blocking on it, and the smaller robustness cases: each must give the
// exit status and message expected, change nothing outside its folder (a
// file and a dangling link's target, compared byte for byte) and never
// crash.
func TestRunFolderSafety(t *testing.T) {
	data := tinyData(t, "1")
	run := filepath.Join(t.TempDir(), "run")
	mustGmlg(t, learnArgs(data, run, "--max-iter", "2")...)
	other := filepath.Join(t.TempDir(), "other")
	mustGmlg(t, learnArgs(data, other, "--max-iter", "2", "--lambda-s", "0.5", "--loss", "l1")...)
	graph := filepath.Join(t.TempDir(), "graph")
	mustGmlg(t, append([]string{"synth", "--graph", "geometric", "--n", "8", "-o", graph}, tinyModel...)...)
	colour := colourFrames(t, 8)
	colourRun := filepath.Join(t.TempDir(), "colour")
	mustGmlg(t, "colorlearn", "--bins", "4", "-t", "1e-2", "--steps", "3", "--sinkhorn-iters", "10", "--lambda-s", "0.01",
		"--mode", "fast", "--coarse", "0", "--max-iter", "2", "--progress", "none", "-o", colourRun, colour)

	for _, tc := range []struct {
		name string
		// args sets up the case in a fresh folder tmp and returns the
		// command; out is what lies outside.
		args func(t *testing.T, tmp string, out outside) []string
		code int
		want []string
	}{
		{"lock is a link", func(t *testing.T, tmp string, out outside) []string {
			dir := filepath.Join(tmp, "z")
			os.Mkdir(dir, 0o755)
			replaceWith(t, dir, rundir.LockName, out.file)
			return learnArgs(data, dir, "--max-iter", "1")
		}, 1, []string{rundir.LockName, "symbolic link"}},
		{"lock is a dangling link", func(t *testing.T, tmp string, out outside) []string {
			dir := filepath.Join(tmp, "z")
			os.Mkdir(dir, 0o755)
			replaceWith(t, dir, rundir.LockName, out.missing)
			return []string{"synth", "-o", dir, "--n", "8", "--frames", "4"}
		}, 1, []string{rundir.LockName, "symbolic link"}},
		{"log.txt is a link on resume", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			replaceWith(t, dir, "log.txt", out.file)
			return []string{"learn", "--resume", dir, "--max-iter", "3", "--progress", "none"}
		}, 1, []string{"log.txt", "symbolic link"}},
		{"iterations.tsv is a dangling link on resume", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, colourRun)
			replaceWith(t, dir, runlog.IterationsName, out.missing)
			return []string{"colorlearn", "--resume", dir, "--max-iter", "3", "--progress", "none"}
		}, 1, []string{runlog.IterationsName, "symbolic link"}},
		{"an output is a link", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			replaceWith(t, dir, "metric.npy", out.file)
			return []string{"learn", "--resume", dir, "--max-iter", "3", "--progress", "none"}
		}, 1, []string{"metric.npy", "symbolic link"}},
		{"a previous output is a link under --force", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			replaceWith(t, dir, "loss.png", out.file)
			return []string{"synth", "-o", dir, "--force", "--n", "8", "--frames", "4"}
		}, 1, []string{"loss.png", "symbolic link"}},
		{"learn into its data folder", func(t *testing.T, tmp string, out outside) []string {
			return learnArgs(data, data, "--force")
		}, 2, []string{"output folder " + data + " is the input " + data}},
		{"interp into its run", func(t *testing.T, tmp string, out outside) []string {
			return []string{"interp", "--run", run, "-o", run, "--force", data}
		}, 2, []string{run, "is the input"}},
		{"eval inside its data folder", func(t *testing.T, tmp string, out outside) []string {
			return []string{"eval", data, "-o", filepath.Join(data, "e")}
		}, 2, []string{"lies inside the input " + data}},
		{"colorlearn into a folder holding its images", func(t *testing.T, tmp string, out outside) []string {
			return []string{"colorlearn", "-o", filepath.Dir(colour), colour}
		}, 2, []string{"contains the input " + colour}},
		{"a manifest naming every file", func(t *testing.T, tmp string, out outside) []string {
			dir := filepath.Join(tmp, "f")
			os.Mkdir(dir, 0o755)
			os.WriteFile(filepath.Join(dir, rundir.ManifestName), []byte(`{"command":"learn","outputs":["*"]}`), 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
			return learnArgs(data, dir, "--force", "--max-iter", "1")
		}, 1, []string{rundir.ManifestName, `"*"`}},
		{"checkpoint of another run", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			raw, err := os.ReadFile(filepath.Join(other, runlog.CheckpointName))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, runlog.CheckpointName), raw, 0o644)
			return []string{"learn", "--resume", dir, "--max-iter", "4", "--progress", "none"}
		}, 1, []string{"belongs to another run", "model.lambda_s is 0.5 there and 0.01 in params.json", "model.loss"}},
		{"bench row too large", func(t *testing.T, tmp string, out outside) []string {
			return []string{"bench", "--rows", "2:99999:1"}
		}, 2, []string{"2:99999:1", "at most"}},
		{"edges.npy is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, graph)
			fifoAt(t, filepath.Join(dir, "edges.npy"))
			return learnArgs(dir, filepath.Join(tmp, "r"))
		}, 1, []string{"edges.npy", "FIFO"}},
		{"coords.npy is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, graph)
			fifoAt(t, filepath.Join(dir, "coords.npy"))
			return learnArgs(dir, filepath.Join(tmp, "r"))
		}, 1, []string{"coords.npy", "FIFO"}},
		{"--metric-file is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			return []string{"eval", data, "--metric-file", fifoAt(t, filepath.Join(tmp, "m.npy")), "-o", filepath.Join(tmp, "e")}
		}, 1, []string{"m.npy", "FIFO"}},
		{"--init is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			return learnArgs(data, filepath.Join(tmp, "r"), "--init", fifoAt(t, filepath.Join(tmp, "m.npy")))
		}, 1, []string{"m.npy", "FIFO"}},
		{"checkpoint.gob is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			fifoAt(t, filepath.Join(dir, runlog.CheckpointName))
			return []string{"learn", "--resume", dir, "--max-iter", "3", "--progress", "none"}
		}, 1, []string{runlog.CheckpointName, "FIFO"}},
		{"params.json is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			fifoAt(t, filepath.Join(dir, "params.json"))
			return []string{"render", dir}
		}, 1, []string{"params.json", "FIFO"}},
		{"the manifest is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			fifoAt(t, filepath.Join(dir, rundir.ManifestName))
			return learnArgs(data, dir, "--force")
		}, 1, []string{rundir.ManifestName, "FIFO"}},
		{"an image is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, colour)
			fifoAt(t, filepath.Join(dir, "im-01.png"))
			return []string{"colorlearn", "-o", filepath.Join(tmp, "c"), "--progress", "none", dir}
		}, 1, []string{"im-01.png", "FIFO"}},
		{"an interp source is a FIFO", func(t *testing.T, tmp string, out outside) []string {
			return []string{"interp", fifoAt(t, filepath.Join(tmp, "a.npy")), filepath.Join(data, "array-00.npy"), "-o", filepath.Join(tmp, "i")}
		}, 1, []string{"a.npy", "FIFO"}},
		{"a folder named like a frame", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, data)
			os.Remove(filepath.Join(dir, "array-00.npy"))
			os.Mkdir(filepath.Join(dir, "array-00.npy"), 0o755)
			return learnArgs(dir, filepath.Join(tmp, "r"))
		}, 1, []string{"array-00.npy", "not a regular file (a folder)"}},
		{"a FIFO named like a frame", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, data)
			fifoAt(t, filepath.Join(dir, "array-00.npy"))
			return learnArgs(dir, filepath.Join(tmp, "r"))
		}, 1, []string{"array-00.npy", "FIFO"}},
		{"coordinates not finite", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, graph)
			filledMetric(t, filepath.Join(dir, "coords.npy"), 100, 2, 0.5, 7, 1/zero())
			return learnArgs(dir, filepath.Join(tmp, "r"))
		}, 1, []string{"coords.npy", "+Inf", "finite"}},
		{"resume before the first checkpoint", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			os.Remove(filepath.Join(dir, runlog.CheckpointName))
			return []string{"learn", "--resume", dir, "--max-iter", "2", "--progress", "none"}
		}, 0, []string{"no checkpoint yet", "starting it again"}},
		{"params.json spelt otherwise", func(t *testing.T, tmp string, out outside) []string {
			dir := copyRun(t, run)
			path := filepath.Join(dir, "params.json")
			raw, _ := os.ReadFile(path)
			re := regexp.MustCompile(`"lambda_s": 0\.01`)
			if !re.Match(raw) {
				t.Fatalf("params.json has no λ_s of 0.01:\n%s", raw)
			}
			os.WriteFile(path, re.ReplaceAll(raw, []byte(`"lambda_s": 1e-02`)), 0o644)
			return []string{"render", dir}
		}, 0, []string{"redrew"}},
		{"render an interpolation on a graph", func(t *testing.T, tmp string, out outside) []string {
			dir := filepath.Join(tmp, "i")
			mustGmlg(t, append([]string{"interp", graph, "-o", dir}, tinyModel...)...)
			return []string{"render", dir}
		}, 0, []string{"redrew 1 picture"}},
		{"learn --threads -1", func(t *testing.T, tmp string, out outside) []string {
			return learnArgs(data, filepath.Join(tmp, "r"), "--threads", "-1")
		}, 2, []string{"--threads -1: must be ≥ 0"}},
		{"colorlearn --threads -1", func(t *testing.T, tmp string, out outside) []string {
			return []string{"colorlearn", "--threads", "-1", colour}
		}, 2, []string{"--threads -1: must be ≥ 0"}},
		{"resume --threads -1", func(t *testing.T, tmp string, out outside) []string {
			return []string{"learn", "--resume", run, "--threads", "-1"}
		}, 2, []string{"--threads -1: must be ≥ 0"}},
		{"colorlearn first step fails, quietly", func(t *testing.T, tmp string, out outside) []string {
			return []string{"colorlearn", "--bins", "4", "-t", "1e-2", "--steps", "3", "--sinkhorn-iters", "10", "--lambda-s", "1e9",
				"--max-iter", "2", "--progress", "none", "-o", filepath.Join(tmp, "c"), colour}
		}, 1, []string{"nothing was learned", "--lambda-s"}},
		{"synth's next command on a grid", nextCommand("--n", "8"), 0, []string{"F = "}},
		{"synth's next command on a geometric graph", nextCommand("--graph", "geometric", "--n", "8"), 0, []string{"F = "}},
		{"synth's next command on a sphere", nextCommand("--graph", "sphere", "--n", "8"), 0, []string{"F = "}},
		{"a failed command leaves no folder", func(t *testing.T, tmp string, out outside) []string {
			return []string{"eval", data, "--metric-file", fifoAt(t, filepath.Join(tmp, "m.npy")), "-o", filepath.Join(tmp, "new")}
		}, 1, []string{"FIFO"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			out := newOutside(t)
			args := tc.args(t, tmp, out)
			code, all := gmlgBounded(t, args...)
			t.Logf("gmlg %s: exit %d\n%s", strings.Join(args, " "), code, all)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output does not mention %q", w)
				}
			}
			checkNoCrash(t, all)
			out.check(t)
			if _, err := os.Stat(filepath.Join(tmp, "new")); err == nil {
				t.Errorf("the failed command left the folder it made")
			}
		})
	}
}

// nextCommand runs synth with the given options in a folder of tmp and
// returns the learn command it prints as "next:", to be run from tmp (it
// writes ./run), with a few iterations only.
func nextCommand(synth ...string) func(t *testing.T, tmp string, out outside) []string {
	return func(t *testing.T, tmp string, out outside) []string {
		dir := filepath.Join(tmp, "g")
		said := mustGmlg(t, append([]string{"synth", "-o", dir}, synth...)...)
		_, next, ok := strings.Cut(said, "next: ")
		if !ok {
			t.Fatalf("synth printed no next command:\n%s", said)
		}
		args := strings.Fields(strings.TrimSpace(strings.SplitN(next, "\n", 2)[0]))
		t.Chdir(tmp)
		return append(args[1:], "--max-iter", "5", "--progress", "none")
	}
}

// zero is 0, for a division the compiler may not fold.
func zero() float64 { return 0 }
