package rundir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLink is the error, wrapped, of a symbolic link where gmlg would write
// or remove a file: gmlg never follows one out of its folder, nor replaces it.
var ErrLink = errors.New("is a symbolic link")

// ErrNotRegular is the error, wrapped, of an entry that is not a regular
// file (a folder, FIFO, device or socket) where gmlg reads or writes one.
var ErrNotRegular = errors.New("is not a regular file")

// entryError names the entry path and what is wrong with it.
func entryError(path string, mode fs.FileMode) error {
	if mode&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s %w; gmlg does not write through links: remove it or choose another folder", path, ErrLink)
	}
	return fmt.Errorf("%s %w (%s)", path, ErrNotRegular, kindOf(mode))
}

// kindOf names the type of an entry for messages.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// folder is an open folder in which files are reached by name, relative
// to it (the *at system calls), never through a symbolic link.
type folder struct {
	f    *os.File
	path string
}

// openFolder opens the folder dir; a path that is not a folder is an
// error naming it.
func openFolder(dir string) (*folder, error) {
	if dir == "" {
		dir = "."
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &folder{f: os.NewFile(uintptr(fd), dir), path: dir}, nil
}

func (d *folder) fd() int      { return int(d.f.Fd()) }
func (d *folder) close() error { return d.f.Close() }

// join is the path of the entry name, for messages.
func (d *folder) join(name string) string { return filepath.Join(d.path, name) }

// lstat returns the mode of the entry name without following a link.
func (d *folder) lstat(name string) (fs.FileMode, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &fs.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	return modeOf(st.Mode), nil
}

// writable checks that name is absent or a regular file: the entries gmlg
// may create, replace or append to.
func (d *folder) writable(name string) error {
	mode, err := d.lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !mode.IsRegular():
		return entryError(d.join(name), mode)
	}
	return nil
}

// open opens the entry name with flag (O_NOFOLLOW and O_NONBLOCK added, so
// that neither a link nor a FIFO is followed or waited on) and checks that
// it is a regular file.
func (d *folder) open(name string, flag int, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(d.fd(), name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, entryError(d.join(name), fs.ModeSymlink)
		}
		// A FIFO without a reader refuses a non-blocking writer (ENXIO):
		// name what is there rather than the error of the call.
		if mode, serr := d.lstat(name); serr == nil && !mode.IsRegular() {
			return nil, entryError(d.join(name), mode)
		}
		return nil, &fs.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.join(name))
	if err := regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// remove removes the entry name if it is a regular file (a missing one is
// not an error); any other entry is left as it is and named in the error.
func (d *folder) remove(name string) error {
	if err := d.writable(name); err != nil {
		return err
	}
	if err := unix.Unlinkat(d.fd(), name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return nil
}

// rename moves the entry from to the name to, replacing a regular file
// there but not any other entry.
func (d *folder) rename(from, to string) error {
	if err := d.writable(to); err != nil {
		return err
	}
	if err := unix.Renameat(d.fd(), from, d.fd(), to); err != nil {
		return &fs.PathError{Op: "rename", Path: d.join(to), Err: err}
	}
	return nil
}

// tempSeq makes the names of temporary files unique within the process;
// the time and process id make them unique across processes.
var tempSeq atomic.Uint64

// createTemp creates a new regular file ".NAME.tmp-XXXX" for the entry
// name, readable and writable by its owner only until it is published.
func (d *folder) createTemp(name string) (*os.File, error) {
	for range 100 {
		suffix := strconv.FormatUint(uint64(time.Now().UnixNano())^uint64(os.Getpid())<<32+tempSeq.Add(1), 36)
		f, err := d.open("."+name+".tmp-"+suffix, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("creating a temporary file for %s: too many names taken", d.join(name))
}

// modeOf converts a stat mode to a FileMode's type bits.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return fs.ModeDevice
}

// regular checks that the open file f is a regular file.
func regular(f *os.File) error {
	st, err := f.Stat()
	return isRegular(f.Name(), st, err)
}

// isRegular is err, or the error naming path when st is not a regular file.
func isRegular(path string, st fs.FileInfo, err error) error {
	if err == nil && !st.Mode().IsRegular() {
		err = entryError(path, st.Mode().Type())
	}
	return err
}

// OpenAppend opens the file at path for appending, creating it when it is
// missing; a link (ErrLink) or other entry that is not a regular file
// (ErrNotRegular) there is an error.
func OpenAppend(path string) (*os.File, error) {
	d, err := openFolder(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.open(filepath.Base(path), unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, 0o644)
}

// OpenInput opens the regular file at path for reading, following links
// (inputs may live anywhere). It opens non-blocking, so that a FIFO or
// device where a file is expected is an error (ErrNotRegular), not a read
// that waits forever.
func OpenInput(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckInput checks that path is a regular file, links followed, without
// opening it (ErrNotRegular naming it otherwise).
func CheckInput(path string) error {
	st, err := os.Stat(path)
	return isRegular(path, st, err)
}

// ReadInput reads the whole file at path as OpenInput opens it.
func ReadInput(path string) ([]byte, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// CheckInputs refuses (ErrInput) the output folder out when it is, lies
// inside or contains one of inputs ("" skipped), with every link resolved.
// Create and Open check Options.Inputs with it; a command that learns its
// inputs from a record in a folder it has opened checks them then.
func CheckInputs(out string, inputs []string) error {
	o, err := resolve(out)
	if err != nil {
		return fmt.Errorf("output folder %s: %w", out, err)
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		i, err := resolve(in)
		if err != nil {
			return fmt.Errorf("input %s: %w", in, err)
		}
		how := ""
		switch {
		case o == i:
			how = "is"
		case within(o, i):
			how = "lies inside"
		case within(i, o):
			how = "contains"
		default:
			continue
		}
		return &Error{Kind: ErrInput, msg: fmt.Sprintf("the output folder %s %s the input %s: gmlg never writes where it reads; choose another -o",
			out, how, in)}
	}
	return nil
}

// resolve returns the absolute path p with every link resolved: those of
// its longest existing prefix, the rest (not yet made) taken as written.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Lstat(cur); serr == nil {
				return "", err // a loop of links, or a folder we may not read
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// within reports whether the path a lies strictly inside the folder b
// (both clean and absolute).
func within(a, b string) bool {
	rel, err := filepath.Rel(b, a)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

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

// Commit flushes, syncs and closes the temporary file and renames it over
// the destination. On failure the temporary file is removed and the
// destination is unchanged; a link or other entry put there meanwhile is
// not replaced.
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

// Write atomically replaces path with whatever fn writes; if fn fails,
// nothing is published and its error is returned. perm 0 means 0o644.
func Write(path string, perm os.FileMode, fn func(w io.Writer) error) error {
	f, err := CreateFile(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort() // removes the temporary file when fn fails or panics; a no-op after Commit
	if err := fn(f); err != nil {
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
