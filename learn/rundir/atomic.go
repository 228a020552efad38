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
	path string  // destination
	dir  *folder // the destination's folder
	name string  // the destination's name in dir
	tmp  *os.File
	buf  *bufio.Writer
	perm os.FileMode
	err  error // first write error, reported again by Commit
	done bool
}

// CreateFile starts an atomic write of path, in an existing folder, with
// permission bits perm (0 means 0o644). A symbolic link there (ErrLink) or
// an entry that is not a regular file (ErrNotRegular) is an error, and
// nothing is written.
func CreateFile(path string, perm os.FileMode) (*File, error) {
	if perm == 0 {
		perm = 0o644
	}
	dir, err := openFolder(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("rundir: create %s: %w", path, err)
	}
	name := filepath.Base(path)
	if err := dir.writable(name); err != nil {
		dir.close()
		return nil, err
	}
	tmp, err := dir.createTemp(name)
	if err != nil {
		dir.close()
		return nil, fmt.Errorf("rundir: create %s: %w", path, err)
	}
	return &File{path: path, dir: dir, name: name, tmp: tmp, buf: bufio.NewWriterSize(tmp, 64<<10), perm: perm}, nil
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
// unchanged; a link or other entry that took the destination's place
// meanwhile is not replaced.
func (f *File) Commit() error {
	if f.done {
		return ErrClosed
	}
	if f.err != nil {
		f.discard()
		return f.err
	}
	f.done = true
	defer f.dir.close()
	tmpName := filepath.Base(f.tmp.Name())
	op, err := "write", f.buf.Flush()
	if err == nil {
		op, err = "chmod", f.tmp.Chmod(f.perm)
	}
	if err == nil {
		op, err = "sync", f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil && cerr != nil {
		op, err = "close", cerr
	}
	if err != nil {
		f.dir.remove(tmpName)
		return fmt.Errorf("rundir: %s %s: %w", op, f.path, err)
	}
	if err := f.dir.rename(tmpName, f.name); err != nil {
		f.dir.remove(tmpName)
		return err
	}
	// Errors are ignored: some file systems do not support syncing
	// folders, and the rename has happened.
	f.dir.f.Sync()
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
	defer f.dir.close()
	f.tmp.Close()
	if err := f.dir.remove(filepath.Base(f.tmp.Name())); err != nil {
		return fmt.Errorf("rundir: abort %s: %w", f.path, err)
	}
	return nil
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
