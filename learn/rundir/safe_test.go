package rundir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// canary is a file outside the folder under test, with the link target of
// a dangling link beside it: nothing gmlg does in the folder may change
// the one or create the other.
type canary struct {
	file, missing string
}

const canaryText = "precious"

func newCanary(t *testing.T) canary {
	t.Helper()
	dir := t.TempDir()
	c := canary{file: filepath.Join(dir, "precious"), missing: filepath.Join(dir, "created")}
	if err := os.WriteFile(c.file, []byte(canaryText), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// check fails the test if the canary changed or the dangling target exists.
func (c canary) check(t *testing.T) {
	t.Helper()
	if raw, err := os.ReadFile(c.file); err != nil || string(raw) != canaryText {
		t.Errorf("the file outside the folder changed: %q, %v", raw, err)
	}
	if _, err := os.Lstat(c.missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created outside the folder through a dangling link: %v", err)
	}
}

// TestLinksNotFollowed puts a symbolic link, to a file outside the folder
// or dangling, where each writer of the package would write, and checks
// that each refuses with an error naming the link, leaves the link, and
// changes nothing outside.
func TestLinksNotFollowed(t *testing.T) {
	managed := map[string]string{ManifestName: manifestOf(t, "demo", demo.Outputs...), "out-1.txt": "old"}
	for _, tc := range []struct {
		name   string
		link   string            // the link's name in the folder
		before map[string]string // the folder's files besides the link
		write  func(dir string) error
	}{
		{"lock of Create", LockName, nil, func(dir string) error {
			d, err := Create(dir, demo, Options{Force: true})
			d.Close()
			return err
		}},
		{"lock of Open", LockName, managed, func(dir string) error {
			d, err := Open(dir, []Spec{demo}, Options{})
			d.Close()
			return err
		}},
		{"previous output removed by force", "out-2.txt", managed, func(dir string) error {
			d, err := Create(dir, demo, Options{Force: true})
			d.Close()
			return err
		}},
		{"manifest", ManifestName, nil, func(dir string) error {
			d, err := Create(dir, demo, Options{Force: true})
			d.Close()
			return err
		}},
		{"atomic write", "out-1.txt", nil, func(dir string) error {
			return WriteFile(filepath.Join(dir, "out-1.txt"), []byte("new"), 0)
		}},
		{"append", "log.txt", nil, func(dir string) error {
			f, err := OpenAppend(filepath.Join(dir, "log.txt"))
			if err == nil {
				f.WriteString("line\n")
				f.Close()
			}
			return err
		}},
	} {
		for _, dangling := range []bool{false, true} {
			name := tc.name + " to a file"
			if dangling {
				name = tc.name + " dangling"
			}
			t.Run(name, func(t *testing.T) {
				c := newCanary(t)
				dir := filepath.Join(t.TempDir(), "out")
				writeFiles(t, dir, tc.before)
				target := c.file
				if dangling {
					target = c.missing
				}
				link := filepath.Join(dir, tc.link)
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				err := tc.write(dir)
				if !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), link) {
					t.Errorf("got %v, want an error naming the link %s", err, link)
				}
				if got, err := os.Readlink(link); err != nil || got != target {
					t.Errorf("the link is now %q (%v), want it left to %s", got, err, target)
				}
				c.check(t)
			})
		}
	}
}

// TestNotRegularRefused puts a FIFO where a writer or the lock would be:
// each refuses at once, naming it, instead of waiting for a reader.
func TestNotRegularRefused(t *testing.T) {
	for _, tc := range []struct {
		name, entry string
		write       func(dir string) error
	}{
		{"lock", LockName, func(dir string) error {
			d, err := Create(dir, demo, Options{Force: true})
			d.Close()
			return err
		}},
		{"append", "log.txt", func(dir string) error {
			f, err := OpenAppend(filepath.Join(dir, "log.txt"))
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"atomic write", "out-1.txt", func(dir string) error {
			return WriteFile(filepath.Join(dir, "out-1.txt"), []byte("new"), 0)
		}},
		{"input", "in.npy", func(dir string) error {
			_, err := ReadInput(filepath.Join(dir, "in.npy"))
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, tc.entry)
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- tc.write(dir) }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "FIFO") {
					t.Errorf("got %v, want an error naming the FIFO %s", err, fifo)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("blocked on the FIFO")
			}
		})
	}
}

// TestReadInput reads a regular file and refuses a folder.
func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if raw, err := ReadInput(path); err != nil || string(raw) != "data" {
		t.Errorf("ReadInput: %q, %v", raw, err)
	}
	f, err := OpenInput(path)
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := io.ReadAll(f); err != nil || string(raw) != "data" {
		t.Errorf("OpenInput: read %q, %v", raw, err)
	}
	f.Close()
	if _, err := ReadInput(dir); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "folder") {
		t.Errorf("ReadInput of a folder: %v, want ErrNotRegular naming a folder", err)
	}
}

// TestInputsNeverOutputs checks that Create and Open refuse an output
// folder that is an input, lies inside one or contains one, links
// resolved, and take one that does not overlap.
func TestInputsNeverOutputs(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	writeFiles(t, data, map[string]string{"array-00.npy": "frame"})
	frame := filepath.Join(data, "array-00.npy")
	alias := filepath.Join(tmp, "alias")
	if err := os.Symlink(data, alias); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, out string
		inputs    []string
		how       string // "" when the folder is taken
	}{
		{"the data folder", data, []string{data}, "is"},
		{"the data folder through a link", alias, []string{data}, "is"},
		{"an input given through a link", data, []string{alias}, "is"},
		{"inside the data folder", filepath.Join(data, "run"), []string{data}, "lies inside"},
		{"inside, not made yet", filepath.Join(alias, "a", "b"), []string{data}, "lies inside"},
		{"holding an input file", data, []string{frame}, "contains"},
		{"holding the data folder", tmp, []string{data}, "contains"},
		{"beside it", filepath.Join(tmp, "run"), []string{data, frame}, ""},
		{"a prefix of the name only", data + "-run", []string{data}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := listing(t, data)
			d, err := Create(tc.out, demo, Options{Force: true, Inputs: tc.inputs})
			if tc.how == "" {
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				d.Close()
				return
			}
			d.Close()
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.out) || !strings.Contains(err.Error(), " "+tc.how+" ") {
				t.Errorf("Create: %v, want ErrInput saying the output %s the input", err, tc.how)
			}
			if got := listing(t, data); len(got) != len(before) {
				t.Errorf("the data folder changed: %v", got)
			}
			if _, err := os.Stat(filepath.Join(data, "run")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused output folder was made: %v", err)
			}
		})
	}
	if _, err := Open(data, []Spec{demo}, Options{Inputs: []string{frame}}); !errors.Is(err, ErrInput) {
		t.Errorf("Open of a folder holding an input: %v, want ErrInput", err)
	}
}

// FuzzFolder fills a folder with entries chosen by the input (files,
// links to a file outside or dangling, FIFOs, folders and manifests of
// any patterns, under output-like and other names), then takes it with
// Create (with or without Force) or Open and writes and appends outputs
// into it. Whatever happens, nothing may panic, nothing outside the
// folder may change, and no entry that is not a regular file named by the
// folder's own kind may be removed or changed.
func FuzzFolder(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 2, 2})
	f.Add([]byte{5, 3, 1, 0, 1, 6})
	f.Add([]byte{5, 7, 3, 1, 4, 8, 2, 9})
	names := []string{"out-1.txt", "params.json", LockName, ManifestName, ".out-2.txt.tmp-9", "notes.txt", "old-1.dat",
		"out-new.txt", "out-log.txt", ".notes.txt.tmp-1"}
	patterns := []string{"*", "out-*.txt", "old-*.dat", "params.json", "notes.txt", "*.txt"}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 40 {
			in = in[:40]
		}
		tmp := t.TempDir()
		canary := filepath.Join(tmp, "precious")
		missing := filepath.Join(tmp, "created")
		os.WriteFile(canary, []byte(canaryText), 0o644)
		dir := filepath.Join(tmp, "out")
		os.Mkdir(dir, 0o755)
		keep := map[string]string{} // user entries that must stay as they are
		for i := 0; i+1 < len(in); i += 2 {
			name := names[int(in[i+1])%len(names)]
			path := filepath.Join(dir, name)
			if _, err := os.Lstat(path); err == nil {
				continue
			}
			switch in[i] % 6 {
			case 0:
				os.WriteFile(path, []byte("user "+name), 0o644)
				if name == "notes.txt" || name == ".notes.txt.tmp-1" {
					keep[name] = "user " + name
				}
			case 1:
				os.Symlink(canary, path)
				keep[name] = "->" + canary
			case 2:
				os.Symlink(missing, path)
				keep[name] = "->" + missing
			case 3:
				syscall.Mkfifo(path, 0o644)
				keep[name] = "fifo"
			case 4:
				os.Mkdir(path, 0o755)
				keep[name] = "folder"
			case 5:
				var list []string
				for k := range int(in[i+1]) % 3 {
					list = append(list, patterns[(int(in[i])+k)%len(patterns)])
				}
				cmd := []string{"demo", "other", "stranger"}[int(in[i])%3]
				if _, err := os.Lstat(filepath.Join(dir, ManifestName)); err != nil {
					os.WriteFile(filepath.Join(dir, ManifestName), []byte(manifestOf(t, cmd, list...)), 0o644)
				}
			}
		}
		var d *Dir
		var err error
		switch mode := len(in) % 3; mode {
		case 0, 1:
			d, err = Create(dir, demo, Options{Force: mode == 1, Kinds: []Spec{other}})
		default:
			d, err = Open(dir, []Spec{demo}, Options{})
		}
		if err == nil {
			WriteFile(filepath.Join(dir, "out-new.txt"), []byte("new"), 0)
			if f, err := OpenAppend(filepath.Join(dir, "out-log.txt")); err == nil {
				f.WriteString("line\n")
				f.Close()
			}
			d.Close()
		}
		if raw, err := os.ReadFile(canary); err != nil || string(raw) != canaryText {
			t.Fatalf("the file outside changed: %q, %v", raw, err)
		}
		if _, err := os.Lstat(missing); err == nil {
			t.Fatal("a file was created outside the folder")
		}
		for name, want := range keep {
			path := filepath.Join(dir, name)
			st, err := os.Lstat(path)
			if err != nil {
				t.Fatalf("%s (%s) was removed", name, want)
			}
			switch {
			case strings.HasPrefix(want, "->"):
				if got, _ := os.Readlink(path); "->"+got != want {
					t.Fatalf("the link %s now points to %s", name, got)
				}
			case want == "fifo" && st.Mode()&os.ModeNamedPipe == 0, want == "folder" && !st.IsDir():
				t.Fatalf("%s is no longer a %s", name, want)
			case st.Mode().IsRegular():
				if raw, _ := os.ReadFile(path); string(raw) != want {
					t.Fatalf("%s now holds %q", name, raw)
				}
			}
		}
	})
}
