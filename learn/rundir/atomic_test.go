package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leftovers lists the temporary files left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	for _, content := range []string{"first", "second, longer content", ""} {
		if err := WriteFile(path, []byte(content), 0); err != nil {
			t.Fatal(err)
		}
		if got := readString(t, path); got != content {
			t.Fatalf("content = %q, want %q", got, content)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("perm = %v, want 0644", st.Mode().Perm())
	}
	if err := WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("perm = %v, want 0600", st.Mode().Perm())
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestFailedWriteKeepsOldFile(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name string
		run  func(path string) error
	}{
		{"callback error after partial write", func(path string) error {
			return Write(path, 0, func(w io.Writer) error {
				if _, err := io.WriteString(w, "partial new cont"); err != nil {
					return err
				}
				return boom
			})
		}},
		{"abort", func(path string) error {
			f, err := CreateFile(path, 0)
			if err != nil {
				return err
			}
			fmt.Fprint(f, "discarded")
			if err := f.Abort(); err != nil {
				return err
			}
			if _, err := f.Write([]byte("x")); !errors.Is(err, ErrClosed) {
				return fmt.Errorf("write after abort: err = %v, want ErrClosed", err)
			}
			return boom
		}},
		{"large partial write then error", func(path string) error {
			return Write(path, 0, func(w io.Writer) error {
				big := make([]byte, 1<<20) // larger than the internal buffer: reaches the disk
				if _, err := w.Write(big); err != nil {
					return err
				}
				return boom
			})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "keep.txt")
			if err := os.WriteFile(path, []byte("old content"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := tc.run(path)
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
			if got := readString(t, path); got != "old content" {
				t.Errorf("old file changed to %q", got)
			}
			if l := leftovers(t, dir); len(l) != 0 {
				t.Errorf("temporary files left: %v", l)
			}
		})
	}
}

func TestCommitFailureKeepsDestination(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A non-empty directory cannot be replaced by a rename.
	dest := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(dest, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(dest, []byte("data"), 0)
	if err == nil {
		t.Fatal("no error replacing a non-empty directory")
	}
	if !strings.Contains(err.Error(), dest) {
		t.Errorf("error %q does not name %s", err, dest)
	}
	if st, err := os.Stat(filepath.Join(dest, "child")); err != nil || !st.IsDir() {
		t.Errorf("destination directory damaged: %v", err)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestCreateFileInMissingDirectory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "f.txt")
	_, err := CreateFile(path, 0)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want an error naming %s", err, path)
	}
}

func TestCommitTwice(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.txt")
	f, err := CreateFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() != path {
		t.Errorf("Name() = %q, want %q", f.Name(), path)
	}
	fmt.Fprint(f, "hello")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Commit: err = %v, want ErrClosed", err)
	}
	if err := f.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	if got := readString(t, path); got != "hello" {
		t.Errorf("content = %q", got)
	}
}
