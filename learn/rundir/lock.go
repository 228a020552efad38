package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// LockName is the lock file a command holds in its folder while it runs.
const LockName = ".gmlg-lock"

// Owner is what a lock file records about the process holding it.
type Owner struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Start   time.Time `json:"start"`
	Command string    `json:"command"`
}

// String describes the owner for messages, e.g. "gmlg learn, process 42 on
// host a, started 2006-01-02 15:04:05".
func (o *Owner) String() string {
	if o == nil || o.PID == 0 {
		return "another gmlg process (its lock file names none)"
	}
	cmd := o.Command
	if cmd == "" {
		cmd = "gmlg"
	}
	return fmt.Sprintf("%s, process %d on host %s, started %s", cmd, o.PID, o.Host, o.Start.Local().Format("2006-01-02 15:04:05"))
}

// self is the Owner record of this process for a command.
func self(command string) Owner {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return Owner{PID: os.Getpid(), Host: host, Start: time.Now().Round(time.Second), Command: command}
}

// lock is a held lock: an open lock file with an exclusive flock on it.
type lock struct {
	f    *os.File
	dir  *folder
	path string
}

// lockAttempts bounds the retries when the lock file is replaced between
// opening it and locking it (a releasing owner removes it).
const lockAttempts = 20

// acquire takes the lock of dir for me (see the package doc); hint ends
// the refusal of a busy folder (e.g. ", or choose another -o"). The lock
// file is reached without following a link: a symbolic link or any entry
// other than a regular file named LockName is an error, and nothing is
// written.
func acquire(dir string, me Owner, notices io.Writer, hint string) (_ *lock, err error) {
	d, err := openFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	dir, path := d.path, d.join(LockName)
	for range lockAttempts {
		f, err := d.open(LockName, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			prev := awaitOwner(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, busyError(dir, prev, hint)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !stillAt(f, d) {
			f.Close() // the owner released and removed it meanwhile
			continue
		}
		l := &lock{f: f, dir: d, path: path}
		prev := readOwner(f)
		if prev != nil && prev.PID != 0 && prev.Host != me.Host {
			f.Close()
			return nil, &Error{Kind: ErrBusy, Owner: prev, msg: fmt.Sprintf(
				"%s is locked by %s; if that run is gone, remove %s by hand", dir, prev, path)}
		}
		if prev != nil && notices != nil {
			fmt.Fprintf(notices, "%s: %s: taking over the lock left by %s, which is no longer running\n", me.Command, dir, prev)
		}
		if err := l.write(me); err != nil {
			d.remove(LockName)
			f.Close()
			return nil, err
		}
		return l, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced; try again", path)
}

// busyError is the refusal of a folder whose lock a live process holds.
func busyError(dir string, prev *Owner, hint string) error {
	wait := "wait for it to finish"
	if prev != nil && prev.PID != 0 {
		wait = fmt.Sprintf("wait for process %d to finish", prev.PID)
	}
	return &Error{Kind: ErrBusy, Owner: prev, msg: fmt.Sprintf("%s is in use by %s; %s%s", dir, prev, wait, hint)}
}

// readOwner returns the owner recorded in a lock file: nil for an empty
// file, an Owner with PID 0 for one that does not parse.
func readOwner(f *os.File) *Owner {
	raw, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	if err != nil || len(strings.TrimSpace(string(raw))) == 0 {
		return nil
	}
	o := new(Owner)
	if json.Unmarshal(raw, o) != nil {
		return &Owner{}
	}
	return o
}

// A refused taker waits up to ownerPolls·ownerInterval for the holder's
// record: the holder locks the file before it writes the record, so a
// taker coming in between finds it empty for the time of one write.
const (
	ownerPolls    = 50
	ownerInterval = 2 * time.Millisecond
)

// awaitOwner reads the owner from the lock file f held by another process,
// waiting while the file is still empty.
func awaitOwner(f *os.File) *Owner {
	prev := readOwner(f)
	for i := 0; prev == nil && i < ownerPolls; i++ {
		time.Sleep(ownerInterval)
		prev = readOwner(f)
	}
	return prev
}

// stillAt reports whether f is the lock file now in d (and not one that
// was removed after f was opened).
func stillAt(f *os.File, d *folder) bool {
	var a, b unix.Stat_t
	if unix.Fstat(int(f.Fd()), &a) != nil || unix.Fstatat(d.fd(), LockName, &b, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

// write replaces the lock file's content with me.
func (l *lock) write(me Owner) error {
	raw, err := json.Marshal(me)
	if err == nil {
		err = l.f.Truncate(0)
	}
	if err == nil {
		_, err = l.f.WriteAt(append(raw, '\n'), 0)
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	return nil
}

// release removes the lock file and drops the lock. The file is removed
// while still locked, so that whoever opened it meanwhile sees (stillAt)
// that it is gone and retries with a new one.
func (l *lock) release() error {
	err := l.dir.remove(LockName)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.dir.close()
	if err != nil {
		return fmt.Errorf("releasing the lock: %w", err)
	}
	return nil
}
