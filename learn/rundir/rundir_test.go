package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// writeFiles creates the files of content (name → text) in dir.
func writeFiles(t *testing.T, dir string, content map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range content {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// listing returns every file of dir with its content (nil when dir does
// not exist).
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			m[e.Name()] = "(folder)"
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(raw)
	}
	return m
}

// manifestOf is the text of a manifest for command and outputs.
func manifestOf(t *testing.T, command string, outputs ...string) string {
	t.Helper()
	raw, err := json.Marshal(manifest{Command: command, Outputs: outputs})
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

var (
	demo  = Spec{Command: "demo", Outputs: []string{"out-*.txt", "params.json"}}
	other = Spec{Command: "other", Outputs: []string{"old-*.dat", "params.json"}}
)

// TestCreate checks which folders Create takes, what --force removes, and
// that a refused folder is left exactly as it was.
func TestCreate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before map[string]string // nil: the folder does not exist
		force  bool
		dirs   []string // folders made in it besides the files of before
		err    error
		after  []string // names left after a run that writes out-new.txt
	}{
		{name: "new folder", after: []string{ManifestName, "out-new.txt"}},
		{name: "empty folder", before: map[string]string{}, after: []string{ManifestName, "out-new.txt"}},
		{name: "only a manifest", before: map[string]string{ManifestName: manifestOf(t, "demo", "out-*.txt")},
			after: []string{ManifestName, "out-new.txt"}},
		{name: "previous output without force",
			before: map[string]string{ManifestName: manifestOf(t, "demo", "out-*.txt", "params.json"), "out-1.txt": "old", "params.json": "{}"},
			err:    ErrNotEmpty},
		{name: "previous output with force",
			before: map[string]string{ManifestName: manifestOf(t, "demo", "out-*.txt", "params.json"), "out-1.txt": "old", "params.json": "{}", "notes.txt": "mine"},
			force:  true, after: []string{ManifestName, "notes.txt", "out-new.txt"}},
		{name: "another command's output with force",
			before: map[string]string{ManifestName: manifestOf(t, "other", "old-*.dat", "params.json"), "old-1.dat": "a", "old-2.dat": "b", "params.json": "{}", "notes.txt": "mine"},
			force:  true, after: []string{ManifestName, "notes.txt", "out-new.txt"}},
		{name: "foreign files without force", before: map[string]string{"notes.txt": "mine"}, err: ErrNotEmpty},
		{name: "foreign files with force", before: map[string]string{"notes.txt": "mine"}, force: true,
			after: []string{ManifestName, "notes.txt", "out-new.txt"}},
		{name: "foreign file in the way with force", before: map[string]string{"params.json": "mine"}, force: true, err: ErrForeign},
		{name: "foreign file in the way without force", before: map[string]string{"out-7.txt": "mine"}, err: ErrForeign},
		{name: "unlisted file in the way of a managed folder",
			before: map[string]string{ManifestName: manifestOf(t, "other", "old-*.dat"), "old-1.dat": "a", "params.json": "mine"},
			force:  true, err: ErrForeign},
		{name: "manifest listing what its kind does not write",
			before: map[string]string{ManifestName: manifestOf(t, "other", "*"), "old-1.dat": "a", "notes.txt": "mine"},
			force:  true, err: ErrManifest},
		{name: "manifest of an unknown command",
			before: map[string]string{ManifestName: manifestOf(t, "stranger", "notes.txt"), "notes.txt": "mine"},
			force:  true, err: ErrKind},
		{name: "a folder named like an output", before: map[string]string{}, dirs: []string{"out-1.txt"}, force: true, err: ErrNotRegular},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if tc.before != nil {
				writeFiles(t, dir, tc.before)
			}
			want := maps.Clone(tc.before)
			for _, sub := range tc.dirs {
				if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
					t.Fatal(err)
				}
				want[sub] = "(folder)"
			}
			d, err := Create(dir, demo, Options{Force: tc.force, Kinds: []Spec{other}})
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), dir) {
					t.Fatalf("Create: %v, want %v naming %s", err, tc.err, dir)
				}
				if got := listing(t, dir); !maps.Equal(got, want) {
					t.Errorf("the refused folder changed: %v, was %v", got, tc.before)
				}
				return
			}
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			writeFiles(t, dir, map[string]string{"out-new.txt": "new"})
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(maps.Keys(listing(t, dir)))
			if !slices.Equal(got, tc.after) {
				t.Errorf("folder holds %v, want %v", got, tc.after)
			}
			var m manifest
			if err := json.Unmarshal([]byte(listing(t, dir)[ManifestName]), &m); err != nil || m.Command != "demo" || !slices.Equal(m.Outputs, demo.Outputs) {
				t.Errorf("manifest %+v (%v), want demo's", m, err)
			}
		})
	}
}

// TestCreateErrors checks the folders that cannot be taken at all.
func TestCreateErrors(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	writeFiles(t, tmp, map[string]string{"file": "x"})
	damaged := filepath.Join(tmp, "damaged")
	writeFiles(t, damaged, map[string]string{ManifestName: "{not json"})
	for _, tc := range []struct{ name, dir, msg string }{
		{"empty name", "", "empty"},
		{"a file", file, "not a folder"},
		{"damaged manifest", damaged, "remove it by hand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Create(tc.dir, demo, Options{Force: true})
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				d.Close()
				t.Fatalf("Create(%q): %v, want an error mentioning %q", tc.dir, err, tc.msg)
			}
		})
	}
}

// TestCloseLeavesNoTrace checks that a command that wrote nothing leaves
// the folder as it found it.
func TestCloseLeavesNoTrace(t *testing.T) {
	tmp := t.TempDir()
	made := filepath.Join(tmp, "made")
	d, err := Create(made, demo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l := listing(t, made); len(l) != 2 || l[LockName] == "" || l[ManifestName] == "" {
		t.Errorf("while held the folder holds %v, want the lock and the manifest", l)
	}
	d.Close()
	if _, err := os.Stat(made); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder Create made is still there: %v", err)
	}
	existing := filepath.Join(tmp, "existing")
	writeFiles(t, existing, nil)
	d, err = Create(existing, demo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if l := listing(t, existing); l == nil || len(l) != 0 {
		t.Errorf("the existing folder holds %v, want nothing", l)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestOpen checks that Open accepts only folders of the accepted kinds.
func TestOpen(t *testing.T) {
	learn := Spec{Command: "learn", Outputs: []string{"metric*.npy", "params.json", "log.txt"}}
	synth := Spec{Command: "synth", Outputs: []string{"array-*.npy", "params.json"}}
	detect := func(dir string) string {
		raw, _ := os.ReadFile(filepath.Join(dir, "params.json"))
		var p struct{ Command string }
		json.Unmarshal(raw, &p)
		return p.Command
	}
	for _, tc := range []struct {
		name     string
		before   map[string]string
		detect   bool
		err      error
		kind     string
		manifest []string // the outputs the manifest lists afterwards
	}{
		{name: "learn run", before: map[string]string{ManifestName: manifestOf(t, "learn", "metric*.npy", "params.json", "log.txt")},
			kind: "learn", manifest: learn.Outputs},
		{name: "manifest listing fewer patterns", before: map[string]string{ManifestName: manifestOf(t, "learn", "params.json")},
			kind: "learn", manifest: []string{"params.json"}},
		{name: "manifest listing a pattern its kind lacks", before: map[string]string{ManifestName: manifestOf(t, "learn", "params.json", "*")},
			err: ErrManifest},
		{name: "synth folder", before: map[string]string{ManifestName: manifestOf(t, "synth", synth.Outputs...)}, err: ErrKind},
		{name: "detected learn run", before: map[string]string{"params.json": `{"command": "learn"}`}, detect: true,
			kind: "learn", manifest: learn.Outputs},
		{name: "detected other", before: map[string]string{"params.json": `{"command": "eval"}`}, detect: true, err: ErrKind},
		{name: "no manifest", before: map[string]string{"params.json": `{"command": "learn"}`}, err: ErrKind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			writeFiles(t, dir, tc.before)
			opt := Options{Holder: "gmlg learn --resume"}
			if tc.detect {
				opt.Detect = detect
			}
			d, err := Open(dir, []Spec{learn}, opt)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "gmlg learn") {

					t.Fatalf("Open: %v, want %v naming the folder and the accepted kind", err, tc.err)
				}
				if got := listing(t, dir); !maps.Equal(got, tc.before) {
					t.Errorf("the refused folder changed: %v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if d.Command() != tc.kind {
				t.Errorf("Command() = %q, want %q", d.Command(), tc.kind)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			var m manifest
			if err := json.Unmarshal([]byte(listing(t, dir)[ManifestName]), &m); err != nil || m.Command != tc.kind || !slices.Equal(m.Outputs, tc.manifest) {
				t.Errorf("manifest after Open: %+v (%v), want %s with %v", m, err, tc.kind, tc.manifest)
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "nope"), []Spec{learn}, Options{}); err == nil {
		t.Error("Open of a missing folder succeeded")
	}
}

// TestTemporaries checks that the temporary files of killed writers are
// removed, with a notice, and that other dot files stay.
func TestTemporaries(t *testing.T) {
	stale := []string{".out-1.txt.tmp-123", ".params.json.tmp-9", "." + ManifestName + ".tmp-77"}
	kept := []string{".notes.txt.tmp-5", ".x.tmp"}
	for _, tc := range []struct {
		name string
		take func(dir string, opt Options) (*Dir, error)
	}{
		{"create", func(dir string, opt Options) (*Dir, error) { opt.Force = true; return Create(dir, demo, opt) }},
		{"open", func(dir string, opt Options) (*Dir, error) { return Open(dir, []Spec{demo}, opt) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{ManifestName: manifestOf(t, "demo", demo.Outputs...)}
			for _, n := range append(slices.Clone(stale), kept...) {
				files[n] = "partial"
			}
			writeFiles(t, dir, files)
			var notes bytes.Buffer
			d, err := tc.take(dir, Options{Notices: &notes})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			got := listing(t, dir)
			for _, n := range stale {
				if _, ok := got[n]; ok {
					t.Errorf("%s was not removed", n)
				}
				if !strings.Contains(notes.String(), n) {
					t.Errorf("the notice %q does not name %s", notes.String(), n)
				}
			}
			for _, n := range kept {
				if _, ok := got[n]; !ok {
					t.Errorf("%s, not a temporary of an output, was removed", n)
				}
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
	pid := cmd.Process.Pid
	if syscall.Kill(pid, 0) == nil {
		t.Skipf("process id %d was reused already", pid)
	}
	return pid
}

// holdLock writes owner into dir's lock file and holds a flock on it, as a
// live gmlg process would; the returned function lets it go.
func holdLock(t *testing.T, dir string, owner Owner) func() {
	t.Helper()
	raw, _ := json.Marshal(owner)
	writeFiles(t, dir, map[string]string{LockName: string(raw)})
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// TestLock checks live, stale and foreign locks, for Create and Open.
func TestLock(t *testing.T) {
	host, _ := os.Hostname()
	me := self("gmlg test")
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.Local)
	for _, tc := range []struct {
		name  string
		owner Owner
		held  bool     // another open file holds the flock
		err   error    // nil: taken
		msg   []string // in the error or, when taken, in the notice
	}{
		{name: "live", owner: Owner{PID: me.PID, Host: host, Start: start, Command: "gmlg learn"}, held: true, err: ErrBusy,
			msg: []string{"process " + strconv.Itoa(me.PID), "host " + host, "2030-01-02 03:04:05", "gmlg learn", "wait for process"}},
		{name: "stale", owner: Owner{PID: deadPID(t), Host: host, Start: start, Command: "gmlg learn"},
			msg: []string{"taking over", "no longer running", "2030-01-02 03:04:05"}},
		{name: "other host", owner: Owner{PID: 4242, Host: host + "-elsewhere", Start: start}, err: ErrBusy,
			msg: []string{"process 4242", host + "-elsewhere", "remove", "by hand"}},
		{name: "names nobody", msg: []string{"taking over"}},
	} {
		for _, open := range []bool{false, true} {
			t.Run(tc.name+"/open="+strconv.FormatBool(open), func(t *testing.T) {
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{ManifestName: manifestOf(t, "demo", demo.Outputs...)})
				if tc.held {
					defer holdLock(t, dir, tc.owner)()
				} else {
					raw, _ := json.Marshal(tc.owner)
					writeFiles(t, dir, map[string]string{LockName: string(raw)})
				}
				before := listing(t, dir)
				var notes bytes.Buffer
				opt := Options{Notices: &notes, Holder: "gmlg test"}
				var d *Dir
				var err error
				if open {
					d, err = Open(dir, []Spec{demo}, opt)
				} else {
					d, err = Create(dir, demo, opt)
				}
				text := notes.String()
				if err != nil {
					text = err.Error()
				}
				for _, s := range tc.msg {
					if !strings.Contains(text, s) {
						t.Errorf("%q does not mention %q", text, s)
					}
				}
				if tc.err != nil {
					if !errors.Is(err, tc.err) {
						t.Fatalf("err = %v, want %v", err, tc.err)
					}
					if got := listing(t, dir); !maps.Equal(got, before) {
						t.Errorf("the refused folder changed: %v", got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				var now Owner
				if err := json.Unmarshal([]byte(listing(t, dir)[LockName]), &now); err != nil || now.PID != me.PID || now.Command != "gmlg test" {
					t.Errorf("the lock names %+v (%v), want this process", now, err)
				}
				d.Close()
				if _, err := os.Stat(filepath.Join(dir, LockName)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Close left the lock file: %v", err)
				}
			})
		}
	}
}

// TestConcurrentCreate starts many Creates of one new folder at once: one
// takes it, every other is refused while it holds it, naming this process.
func TestConcurrentCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	const n = 8
	var wg sync.WaitGroup
	dirs := make([]*Dir, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { dirs[i], errs[i] = Create(dir, demo, Options{}) })
	}
	wg.Wait()
	taken := 0
	for i := range n {
		switch {
		case errs[i] == nil:
			taken++
			defer dirs[i].Close()
		case errors.Is(errs[i], ErrBusy):
			var e *Error
			if !errors.As(errs[i], &e) || e.Owner == nil || e.Owner.PID != os.Getpid() {
				t.Errorf("refusal %v does not name this process", errs[i])
			}
		default:
			t.Errorf("Create: %v, want success or ErrBusy", errs[i])
		}
	}
	if taken != 1 {
		t.Errorf("%d Creates took the folder, want 1", taken)
	}
}

// TestReleaseRace takes and releases one folder from many goroutines: at
// no time may two of them hold it.
func TestReleaseRace(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{ManifestName: manifestOf(t, "demo", demo.Outputs...)})
	var mu sync.Mutex
	holders, most := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				d, err := Open(dir, []Spec{demo}, Options{})
				if err != nil {
					if !errors.Is(err, ErrBusy) {
						t.Error(err)
					}
					continue
				}
				mu.Lock()
				holders++
				most = max(most, holders)
				mu.Unlock()
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				holders--
				mu.Unlock()
				d.Close()
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d holders at once, want 1", most)
	}
}
