package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// folderState returns every entry of dir with its content, so that a test
// can tell whether a refused command changed anything.
func folderState(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(raw)
	}
	return m
}

// TestConcurrentWriters runs a second command on a run folder while a
// learn run is writing it (held at its first iteration): the second is
// refused with exit status 1 and a message naming the first's process, and
// the first finishes with its own settings.
func TestConcurrentWriters(t *testing.T) {
	data := tinyData(t, "1")
	pid := "process " + strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		name   string
		setup  bool     // start from a finished 1-iteration run
		first  []string // "RUN" stands for the run folder
		second []string
		iters  int // the first's final iteration count
	}{
		{name: "learn", first: learnArgs(data, "RUN", "--max-iter", "2"), second: learnArgs(data, "RUN", "--max-iter", "1"), iters: 2},
		{name: "learn --force", first: learnArgs(data, "RUN", "--max-iter", "2"), second: learnArgs(data, "RUN", "--max-iter", "1", "--force"), iters: 2},
		{name: "render", first: learnArgs(data, "RUN", "--max-iter", "2"), second: []string{"render", "RUN"}, iters: 2},
		{name: "resume during learn", first: learnArgs(data, "RUN", "--max-iter", "2"),
			second: []string{"learn", "--resume", "RUN", "--max-iter", "4", "--progress", "none"}, iters: 2},
		{name: "two resumes", setup: true, first: []string{"learn", "--resume", "RUN", "--max-iter", "3", "--progress", "none"},
			second: []string{"learn", "--resume", "RUN", "--max-iter", "4", "--progress", "none"}, iters: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runDir := filepath.Join(t.TempDir(), "run")
			subst := func(args []string) []string { return replaceArgs(args, "RUN", runDir) }
			if tc.setup {
				mustGmlg(t, learnArgs(data, runDir, "--max-iter", "1")...)
			}
			// The first command holds the folder, stopped in its first
			// iteration's progress line, while the second one runs.
			reached, release := make(chan struct{}), make(chan struct{})
			stderr := &watchedStderr{match: func(line string) bool { return learnIterationLine(line, 0) },
				on: func() { close(reached); <-release }}
			done := make(chan int)
			go func() {
				code, errs := gmlgWatched(context.Background(), stderr, append(subst(tc.first), "--progress", "log")...)
				if code != 0 {
					t.Errorf("first run: exit %d\n%s", code, errs)
				}
				done <- code
			}()
			<-reached
			code, _, errs := gmlg(t, context.Background(), subst(tc.second)...)
			close(release)
			<-done
			if code != 1 || !strings.Contains(errs, pid) || !strings.Contains(errs, runDir) || !strings.Contains(errs, "wait for") {
				t.Errorf("second command: exit %d, stderr %q; want 1 and a message naming %s and the folder", code, errs, pid)
			}
			var res runlog.Result
			readJSON(t, filepath.Join(runDir, "result.json"), &res)
			var p runlog.Record
			readJSON(t, filepath.Join(runDir, "params.json"), &p)
			loss := readNpy(t, filepath.Join(runDir, "loss.npy"))
			if res.Iterations != tc.iters || p.Optimizer.MaxIter != tc.iters || len(loss.Data) != tc.iters {
				t.Errorf("after both: %d iterations, max-iter %d, %d losses; want the first's %d", res.Iterations, p.Optimizer.MaxIter, len(loss.Data), tc.iters)
			}
			if _, err := os.Stat(filepath.Join(runDir, rundir.LockName)); !os.IsNotExist(err) {
				t.Errorf("the lock outlived the run: %v", err)
			}
		})
	}
}

// deadPID returns the process id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	if syscall.Kill(cmd.Process.Pid, 0) == nil {
		t.Skip("the process id was reused already")
	}
	return cmd.Process.Pid
}

// TestResumeAfterKill resumes a run whose process was killed: its lock
// (naming a dead process) is taken over and the temporary files of its
// interrupted writes are removed, with notices; the user's files stay.
func TestResumeAfterKill(t *testing.T) {
	data := tinyData(t, "1")
	runDir := filepath.Join(t.TempDir(), "run")
	mustGmlg(t, learnArgs(data, runDir, "--max-iter", "1")...)
	host, _ := os.Hostname()
	dead := deadPID(t)
	lock, _ := json.Marshal(rundir.Owner{PID: dead, Host: host, Command: "gmlg learn"})
	files := map[string]string{
		rundir.LockName: string(lock), ".metric-0002.npy.tmp-123": "half", ".x.tmp-123": "mine", ".params.json.tmp-4": "half",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(runDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := gmlg(t, context.Background(), "learn", "--resume", runDir, "--max-iter", "2", "--progress", "none")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errs)
	}
	for _, want := range []string{"taking over", "process " + strconv.Itoa(dead), "removed 2 temporary file(s)", ".metric-0002.npy.tmp-123"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q does not mention %q", errs, want)
		}
	}
	got := folderState(t, runDir)
	for name, want := range map[string]bool{".metric-0002.npy.tmp-123": false, ".params.json.tmp-4": false, rundir.LockName: false,
		".x.tmp-123": true, "metric-0002.npy": true} {
		if _, ok := got[name]; ok != want {
			t.Errorf("%s present = %v after the resume, want %v", name, ok, want)
		}
	}
}

// TestFolderRules checks what each command does with a folder that already
// holds something: refused without --force and left unchanged; with
// --force the previous gmlg output is replaced as a whole (whatever
// command wrote it) and other files stay, unless the new output would
// overwrite one of them.
func TestFolderRules(t *testing.T) {
	tmp := t.TempDir()
	images := colorTestFrames(t, filepath.Join(tmp, "images"), 3)
	data := tinyData(t, "1")
	color := []string{"--bins", "4", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01", "-save-every", "1", "--progress=none"}
	cmds := map[string][]string{
		"transfer2":   {"transfer", "--bins", "4", "--transfer-iters", "10", "--progress=none", "-o", "OUT", images[0], images[1], images[2]},
		"transfer1":   {"transfer", "--bins", "4", "--transfer-iters", "10", "--progress=none", "-o", "OUT", images[0], images[1]},
		"sunset":      {"sunset", "-method", "linear", "--bins", "4", "-prolong", "0", "-frames", "2", "--transfer-iters", "10", "--progress=none", "-o", "OUT", images[0], images[2]},
		"colorlearn2": append(append([]string{"colorlearn"}, color...), "--max-iter", "2", "-o", "OUT", filepath.Dir(images[0])),
		"colorlearn1": append(append([]string{"colorlearn"}, color...), "--max-iter", "1", "-o", "OUT", filepath.Dir(images[0])),
		"colorfast": append(append([]string{"colorlearn"}, color...), "-mode", "fast", "-coarse", "1", "-coarse-iters", "1", "--max-iter", "1",
			"-polish", "1", "-polish-every", "1", "-o", "OUT", filepath.Dir(images[0])),
		"synth":  append([]string{"synth", "-o", "OUT", "--n", "8", "--frames", "3", "--sequences", "1"}, tinyModel...),
		"learn":  learnArgs(data, "OUT", "--max-iter", "2"),
		"eval":   append([]string{"eval", data, "-o", "OUT"}, tinyModel...),
		"interp": append([]string{"interp", data, "-o", "OUT", "--frames", "3", "--method", "linear"}, tinyModel...),
	}
	type step struct {
		cmd   string
		force bool
		code  int
		msg   string // in stderr
	}
	for _, tc := range []struct {
		name      string
		files     map[string]string // the folder's files before the steps (nil: no folder)
		steps     []step
		unchanged bool     // the last step (refused) left the folder as it was
		gone      []string // files absent at the end
		kept      []string // files present at the end
		command   string   // the command the manifest names at the end
	}{
		{name: "transfer twice", steps: []step{{cmd: "transfer2"}, {cmd: "transfer1", code: 1, msg: "--force"}}, unchanged: true, command: "transfer"},
		{name: "transfer --force over its own output", steps: []step{{cmd: "transfer2"}, {cmd: "transfer1", force: true}},
			gone: []string{"transfer-01.png", "lut-01.cube"}, kept: []string{"transfer-00.png", "lut-00.cube", "transfers.png"}, command: "transfer"},
		{name: "transfer into a synth dataset", steps: []step{{cmd: "synth"}, {cmd: "transfer1", code: 1, msg: "gmlg synth"}}, unchanged: true, command: "synth"},
		{name: "transfer --force over a synth dataset", steps: []step{{cmd: "synth"}, {cmd: "transfer1", force: true}},
			gone: []string{"array-00.npy", "a-metric.npy", "a-metric.png", "frames.png"}, kept: []string{"params.json", "transfer-00.png"}, command: "transfer"},
		{name: "sunset into a learn run", steps: []step{{cmd: "learn"}, {cmd: "sunset", code: 1, msg: "--force"}}, unchanged: true, command: "learn"},
		{name: "sunset --force over a transfer output", steps: []step{{cmd: "transfer2"}, {cmd: "sunset", force: true}},
			gone: []string{"transfer-00.png", "transfers.png"}, kept: []string{"frame-01.png", "lut-01.cube", "frames.png"}, command: "sunset"},
		{name: "sunset into foreign files", files: map[string]string{"notes.txt": "mine"}, steps: []step{{cmd: "sunset", code: 1, msg: "not written by gmlg"}},
			unchanged: true},
		{name: "sunset --force beside foreign files", files: map[string]string{"notes.txt": "mine", "frame.png": "mine"}, steps: []step{{cmd: "sunset", force: true}},
			kept: []string{"notes.txt", "frame.png", "frame-00.png"}, command: "sunset"},
		{name: "sunset --force over a foreign file", files: map[string]string{"frames.png": "mine"}, steps: []step{{cmd: "sunset", force: true, code: 1, msg: "move them away"}},
			unchanged: true},
		{name: "colorlearn twice", steps: []step{{cmd: "colorlearn2"}, {cmd: "colorlearn1", code: 1, msg: "--force"}}, unchanged: true, command: "learn"},
		{name: "colorlearn --force over its own run", files: map[string]string{"notes.txt": "mine"}, steps: []step{{cmd: "colorlearn2", force: true}, {cmd: "colorlearn1", force: true}},
			gone: []string{"metric-0002.npy", "metric-0002.png"}, kept: []string{"notes.txt", "metric-0001.npy", "checkpoint.gob"}, command: "learn"},
		{name: "colorlearn fast mode --force over an exact run", steps: []step{{cmd: "colorlearn2"}, {cmd: "colorfast", force: true}},
			gone: []string{"metric-0002.npy", "metric-0002.png"}, kept: []string{"iterations.tsv", "linesearch.tsv", "result.json"}, command: "learn"},
		{name: "colorlearn --force over a foreign params.json", files: map[string]string{"params.json": "mine"},
			steps: []step{{cmd: "colorlearn1", force: true, code: 1, msg: "params.json"}}, unchanged: true},
		{name: "interp --force over a learn run", steps: []step{{cmd: "learn"}, {cmd: "interp", force: true}},
			gone: []string{"checkpoint.gob", "metric.npy", "metric-0001.npy", "log.txt", "result.json", "rec-00.npy"}, kept: []string{"interp-00.npy", "params.json"}, command: "interp"},
		{name: "eval twice", steps: []step{{cmd: "eval"}, {cmd: "eval", code: 1, msg: "--force"}}, unchanged: true, command: "eval"},
		{name: "synth --force over a learn run", steps: []step{{cmd: "learn"}, {cmd: "synth", force: true}},
			gone: []string{"checkpoint.gob", "metric.npy", "loss.npy", "log.txt", "recs.png"}, kept: []string{"array-00.npy", "params.json"}, command: "synth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if tc.files != nil {
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, text := range tc.files {
					if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			var before map[string]string
			for _, s := range tc.steps {
				before = nil
				if _, err := os.Stat(out); err == nil {
					before = folderState(t, out)
				}
				args := make([]string, 0, len(cmds[s.cmd])+1)
				for _, a := range cmds[s.cmd] {
					args = append(args, strings.ReplaceAll(a, "OUT", out))
				}
				if s.force {
					args = append(args, "--force")
				}
				code, _, errs := gmlg(t, context.Background(), args...)
				if code != s.code || !strings.Contains(errs, s.msg) || (s.code != 0 && !strings.Contains(errs, out)) {
					t.Fatalf("%s (force %v): exit %d, stderr %q; want %d and a message naming the folder and %q", s.cmd, s.force, code, errs, s.code, s.msg)
				}
			}
			after := folderState(t, out)
			if tc.unchanged && !maps.Equal(before, after) {
				t.Errorf("the refused command changed the folder: %v, was %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
			}
			for _, name := range tc.gone {
				if _, ok := after[name]; ok {
					t.Errorf("%s of the previous output survived", name)
				}
			}
			for _, name := range tc.kept {
				if _, ok := after[name]; !ok {
					t.Errorf("%s is missing", name)
				}
			}
			if tc.command != "" {
				checkManifest(t, after, tc.files, tc.command)
			}
		})
	}
}

// checkManifest checks that the folder state names command in its
// manifest and that the manifest's patterns cover every file there except
// the user's own (foreign) and the package's.
func checkManifest(t *testing.T, state, foreign map[string]string, command string) {
	t.Helper()
	var m struct {
		Command string
		Outputs []string
	}
	if err := json.Unmarshal([]byte(state[rundir.ManifestName]), &m); err != nil || m.Command != command {
		t.Fatalf("manifest names %q (%v), want %q", m.Command, err, command)
	}
	for name := range state {
		if _, mine := foreign[name]; mine || name == rundir.ManifestName {
			continue
		}
		if !slices.ContainsFunc(m.Outputs, func(p string) bool { ok, _ := filepath.Match(p, name); return ok }) {
			t.Errorf("%s wrote %s, which its manifest's patterns %v miss", command, name, m.Outputs)
		}
	}
}

// TestFolderKinds checks that resume and render only take folders of the
// kind they work on.
func TestFolderKinds(t *testing.T) {
	data := tinyData(t, "1")
	evalDir := filepath.Join(t.TempDir(), "eval")
	mustGmlg(t, append([]string{"eval", data, "-o", evalDir}, tinyModel...)...)
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"learn --resume on a synth dataset", []string{"learn", "--resume", data}, "holds the output of gmlg synth"},
		{"learn --resume on a missing folder", []string{"learn", "--resume", filepath.Join(evalDir, "nope")}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := gmlg(t, context.Background(), tc.args...)
			if code != 1 || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errs, tc.msg)
			}
		})
	}
}

// replaceArgs returns args with every old in them replaced by new.
func replaceArgs(args []string, old, new string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, old, new)
	}
	return out
}
