package rundir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrClosed is returned by Write and Commit on a File that has already been
// committed or aborted.
var ErrClosed = errors.New("rundir: file already committed or aborted")

// File is a pending atomic write. Bytes written to it go to a temporary file
// next to the destination; Commit publishes them under the destination name
// and Abort discards them. A File is not safe for concurrent use.
type File struct {
	path string // destination
	tmp  *os.File
	buf  *bufio.Writer
	perm os.FileMode
	err  error // first write error, reported again by Commit
	done bool
}

// CreateFile starts an atomic write of path. The file gets permission bits perm
// (0 means 0o644) once committed. The destination directory must exist.
func CreateFile(path string, perm os.FileMode) (*File, error) {
	if perm == 0 {
		perm = 0o644
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("rundir: create %s: %w", path, err)
	}
	return &File{path: path, tmp: tmp, buf: bufio.NewWriterSize(tmp, 64<<10), perm: perm}, nil
}

// Name returns the destination path.
func (f *File) Name() string { return f.path }

// Write writes p to the temporary file. After the first error every later
// Write and Commit fails with that error.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, ErrClosed
	}
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.buf.Write(p)
	if err != nil {
		f.err = fmt.Errorf("rundir: write %s: %w", f.path, err)
		return n, f.err
	}
	return n, nil
}

// Commit flushes, syncs and closes the temporary file and renames it over the
// destination. On failure the temporary file is removed and the destination is
// unchanged.
func (f *File) Commit() error {
	if f.done {
		return ErrClosed
	}
	if f.err != nil {
		f.discard()
		return f.err
	}
	f.done = true
	tmpName := f.tmp.Name()
	fail := func(op string, err error) error {
		f.tmp.Close()
		os.Remove(tmpName)
		return fmt.Errorf("rundir: %s %s: %w", op, f.path, err)
	}
	if err := f.buf.Flush(); err != nil {
		return fail("write", err)
	}
	if err := f.tmp.Chmod(f.perm); err != nil {
		return fail("chmod", err)
	}
	if err := f.tmp.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := f.tmp.Close(); err != nil {
		os.Remove(tmpName)
		return fmt.Errorf("rundir: close %s: %w", f.path, err)
	}
	if err := os.Rename(tmpName, f.path); err != nil {
		os.Remove(tmpName)
		return fmt.Errorf("rundir: rename %s: %w", f.path, err)
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// Abort discards the temporary file and leaves the destination unchanged.
// It is a no-op after Commit or a previous Abort, so it can be deferred.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	return f.discard()
}

func (f *File) discard() error {
	f.done = true
	name := f.tmp.Name()
	f.tmp.Close()
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("rundir: abort %s: %w", f.path, err)
	}
	return nil
}

// syncDir makes a completed rename durable. Errors are ignored: some file
// systems do not support syncing directories, and the rename has happened.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// Write atomically replaces path with whatever fn writes. If fn returns an
// error, nothing is published and that error is returned (wrapped with the
// path). perm 0 means 0o644.
func Write(path string, perm os.FileMode, fn func(w io.Writer) error) error {
	f, err := CreateFile(path, perm)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		if f.err != nil && errors.Is(err, f.err) {
			return err
		}
		return fmt.Errorf("rundir: write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFile atomically replaces path with data. perm 0 means 0o644.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
