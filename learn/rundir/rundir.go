package rundir

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Spec is one kind of output folder: the command that writes it and the
// glob patterns (filepath.Match syntax, matched against base names) of
// every file the command writes there.
type Spec struct {
	Command string
	Outputs []string
}

// Options tune Create and Open (see the package doc).
type Options struct {
	// Force lets Create replace the output its folder's manifest lists.
	Force bool
	// Holder is the command recorded in the lock and at the start of
	// notices; empty means "gmlg " and the spec's command.
	Holder string
	// Notices receives a line for each stale lock taken over and each
	// batch of temporary files removed; nil discards them.
	Notices io.Writer
	// Detect names, for Open, the command that wrote a folder that has no
	// manifest ("" when unknown), e.g. from a parameters file it holds.
	Detect func(dir string) string
	// Kinds lists every kind of folder that Create may find in its way,
	// besides its own: a manifest must match one of them.
	Kinds []Spec
	// Inputs lists the files and folders the command reads (CheckInputs).
	Inputs []string
}

// The kinds of refusal, wrapped by *Error (test them with errors.Is).
var (
	ErrBusy     = errors.New("folder in use")
	ErrNotEmpty = errors.New("folder not empty")
	ErrForeign  = errors.New("files not written by gmlg in the way")
	ErrKind     = errors.New("folder of another kind")
	ErrInput    = errors.New("folder overlaps an input")
	ErrManifest = errors.New("manifest lists files its command does not write")
)

// Error is a refusal to take a folder; its message says what to do.
type Error struct {
	Kind  error    // ErrBusy, ErrNotEmpty, ErrForeign, ErrKind, ErrInput or ErrManifest
	Owner *Owner   // with ErrBusy: the lock's owner, nil when it names none
	Files []string // with ErrForeign: the files in the way
	msg   string
}

func (e *Error) Error() string { return e.msg }

// Unwrap returns the kind of refusal.
func (e *Error) Unwrap() error { return e.Kind }

// Dir is a folder held by this process: its lock is taken until Close.
type Dir struct {
	path    string
	command string
	lock    *lock
	fresh   bool // taken by Create: Close removes a manifest left alone
	made    bool // Create made the folder: Close removes it when empty
}

// Command returns the command whose output the folder holds.
func (d *Dir) Command() string { return d.command }

// Create takes the folder path for a new output of spec, making it when it
// does not exist. In order: it takes the folder's lock, removes the
// temporary files of interrupted writes, checks what the folder holds, and
// writes the manifest of spec. A folder that holds anything is refused
// (ErrNotEmpty) unless opt.Force is set; even then no file is replaced
// that the folder's manifest does not list (ErrForeign). Nothing in the
// folder changes when Create refuses.
func Create(path string, spec Spec, opt Options) (*Dir, error) {
	if path == "" {
		return nil, errors.New("empty output folder name")
	}
	if err := CheckInputs(path, opt.Inputs); err != nil {
		return nil, err
	}
	made, err := makeDir(path)
	if err != nil {
		return nil, err
	}
	who := cmp.Or(opt.Holder, "gmlg "+spec.Command)
	l, err := acquire(path, self(who), opt.Notices, ", or choose another -o")
	if err != nil {
		if made {
			os.Remove(path)
		}
		return nil, err
	}
	d := &Dir{path: path, command: spec.Command, lock: l, fresh: true, made: made}
	if err := d.claim(spec, &opt, who); err != nil {
		d.abandon()
		return nil, err
	}
	return d, nil
}

// makeDir makes the folder path unless it exists, and says whether it did.
func makeDir(path string) (bool, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(path, 0o755); err != nil {
			return false, fmt.Errorf("creating the output folder: %w", err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("output folder: %w", err)
	case !st.IsDir():
		return false, fmt.Errorf("output %s exists and is not a folder; choose another -o", path)
	}
	return false, nil
}

// claim makes the locked folder d spec's: see Create.
func (d *Dir) claim(spec Spec, opt *Options, who string) error {
	dir := d.lock.dir
	old, err := readManifest(dir)
	if err != nil {
		return err
	}
	var prev []string // the previous output's patterns, checked by the code's spec
	if old != nil {
		kinds := append([]Spec{spec}, opt.Kinds...)
		i := slices.IndexFunc(kinds, func(s Spec) bool { return s.Command == old.Command })
		if i < 0 {
			return &Error{Kind: ErrKind, msg: fmt.Sprintf("%s holds the output of gmlg %s, which %s does not know; move it away or choose another -o",
				d.path, old.Command, who)}
		}
		if err := old.check(dir, kinds[i]); err != nil {
			return err
		}
		prev = old.Outputs
	}
	if err := removeTemporaries(dir, union(prev, spec.Outputs), opt.Notices, who); err != nil {
		return err
	}
	stale, clash, others, err := plan(dir, prev, spec.Outputs)
	if err != nil {
		return err
	}
	switch {
	case len(clash) > 0:
		return foreignError(d.path, clash)
	case len(stale)+others > 0 && !opt.Force:
		return notEmptyError(d.path, old)
	}
	for _, name := range stale {
		if err := dir.remove(name); err != nil {
			return fmt.Errorf("--force: removing the previous output: %w", err)
		}
	}
	return writeManifest(dir, &manifest{Command: spec.Command, Outputs: spec.Outputs})
}

// notEmptyError refuses a folder that holds files, without --force.
func notEmptyError(dir string, old *manifest) error {
	msg := fmt.Sprintf("%s is not empty and was not written by gmlg; choose another -o, or pass --force to write beside its files (gmlg never removes or replaces them)", dir)
	if old != nil {
		msg = fmt.Sprintf("%s already holds the output of gmlg %s; pass --force to replace it (all of that output's files are removed, no other file) or choose another -o", dir, old.Command)
	}
	return &Error{Kind: ErrNotEmpty, msg: msg}
}

// foreignError refuses a folder where the new output would replace files
// that gmlg did not write.
func foreignError(dir string, names []string) error {
	list := names
	if len(list) > 5 {
		list = append(slices.Clone(list[:5]), fmt.Sprintf("and %d more", len(names)-5))
	}
	return &Error{Kind: ErrForeign, Files: names, msg: fmt.Sprintf(
		"%s holds files that gmlg did not write and this command would overwrite (%s); --force never replaces files gmlg did not write: move them away or choose another -o",
		dir, strings.Join(list, ", "))}
}

// Open takes an existing folder to continue or redraw the output it holds,
// which must be that of one of the commands of accept (by its manifest, or
// without one by opt.Detect; ErrKind otherwise). It takes the folder's
// lock, removes the temporary files of interrupted writes, and writes a
// manifest when the folder had none. opt.Force is ignored.
func Open(path string, accept []Spec, opt Options) (*Dir, error) {
	if len(accept) == 0 {
		return nil, errors.New("rundir.Open: no accepted kind of folder")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", path)
	}
	if err := CheckInputs(path, opt.Inputs); err != nil {
		return nil, err
	}
	who := cmp.Or(opt.Holder, "gmlg "+accept[0].Command)
	l, err := acquire(path, self(who), opt.Notices, "")
	if err != nil {
		return nil, err
	}
	d := &Dir{path: path, lock: l}
	if err := d.adopt(accept, &opt, who); err != nil {
		d.abandon()
		return nil, err
	}
	return d, nil
}

// adopt checks the kind of the locked folder d: see Open.
func (d *Dir) adopt(accept []Spec, opt *Options, who string) error {
	dir := d.lock.dir
	old, err := readManifest(dir)
	if err != nil {
		return err
	}
	kind := ""
	if old != nil {
		kind = old.Command
	} else if opt.Detect != nil {
		kind = opt.Detect(d.path)
	}
	i := slices.IndexFunc(accept, func(s Spec) bool { return s.Command == kind })
	if i < 0 {
		return kindError(d.path, kind, who, accept)
	}
	d.command = kind
	if old != nil {
		if err := old.check(dir, accept[i]); err != nil {
			return err
		}
	}
	if err := removeTemporaries(dir, accept[i].Outputs, opt.Notices, who); err != nil {
		return err
	}
	if old != nil {
		return nil
	}
	return writeManifest(dir, &manifest{Command: kind, Outputs: accept[i].Outputs})
}

// kindError refuses a folder that holds another command's output.
func kindError(dir, kind, who string, accept []Spec) error {
	var names []string
	for _, s := range accept {
		names = append(names, "gmlg "+s.Command)
	}
	want := strings.Join(names, ", ")
	if k := len(names); k > 1 {
		want = strings.Join(names[:k-1], ", ") + " or " + names[k-1]
	}
	if kind == "" {
		return &Error{Kind: ErrKind, msg: fmt.Sprintf("%s is not a run folder of %s (it has no %s, so gmlg did not write it)", dir, want, ManifestName)}
	}
	return &Error{Kind: ErrKind, msg: fmt.Sprintf("%s holds the output of gmlg %s; %s works on the folders of %s", dir, kind, who, want)}
}

// abandon releases the lock and removes the folder when Create made it
// (which fails, as it should, unless the folder is empty).
func (d *Dir) abandon() error {
	err := d.lock.release()
	d.lock = nil
	if d.made {
		os.Remove(d.path)
	}
	return err
}

// Close releases the folder. A folder taken by Create in which the command
// wrote nothing loses its manifest again (and is removed when Create made
// it), so that a command that failed early leaves no trace. Close is safe
// to call more than once (defer it).
func (d *Dir) Close() error {
	if d == nil || d.lock == nil {
		return nil
	}
	var err error
	if d.fresh && onlyInternal(d.path) {
		if rerr := d.lock.dir.remove(ManifestName); rerr != nil {
			err = fmt.Errorf("removing the manifest: %w", rerr)
		}
	}
	if rerr := d.abandon(); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", d.path, err)
	}
	return nil
}

// ManifestName is the file naming the command that owns a folder and the
// files it writes there (see the package doc).
const ManifestName = ".gmlg-manifest.json"

// manifest is the content of ManifestName.
type manifest struct {
	Command string   `json:"command"`
	Outputs []string `json:"outputs"`
}

// maxManifest bounds the size of a manifest that readManifest reads.
const maxManifest = 1 << 20

// readManifest reads dir's manifest; a folder without one gives nil.
func readManifest(dir *folder) (*manifest, error) {
	f, err := dir.open(ManifestName, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err == nil && len(raw) > maxManifest {
		err = fmt.Errorf("larger than %d bytes", maxManifest)
	}
	m := new(manifest)
	if err == nil {
		err = json.Unmarshal(raw, m)
	}
	if err == nil && m.Command == "" {
		err = errors.New("no command field")
	}
	if err != nil {
		return nil, fmt.Errorf("%s does not name a gmlg command (%v); remove it by hand (the folder then counts as not written by gmlg)", dir.join(ManifestName), err)
	}
	return m, nil
}

// check refuses a manifest that lists a pattern that spec, the code's own
// list, lacks: the patterns on disk never choose what to remove.
func (m *manifest) check(dir *folder, spec Spec) error {
	for _, p := range m.Outputs {
		if !slices.Contains(spec.Outputs, p) {
			return &Error{Kind: ErrManifest, msg: fmt.Sprintf("%s lists %q, which gmlg %s does not write; remove that manifest by hand (the folder then counts as not written by gmlg)",
				dir.join(ManifestName), p, spec.Command)}
		}
	}
	return nil
}

// writeManifest writes m into dir atomically.
func writeManifest(dir *folder, m *manifest) error {
	if err := WriteJSON(dir.join(ManifestName), m); err != nil {
		return fmt.Errorf("writing the manifest: %w", err)
	}
	return nil
}

// matches reports whether name matches one of the glob patterns.
func matches(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// union returns a's patterns followed by those of b that a lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, p := range b {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// internal reports whether name is one of the package's own files.
func internal(name string) bool { return name == LockName || name == ManifestName }

// temporaryOf returns NAME for a temporary file ".NAME.tmp-XXXX".
func temporaryOf(name string) (string, bool) {
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i < 2 {
		return "", false
	}
	return name[1:i], true
}

// removeTemporaries removes the regular files ".NAME.tmp-*" that killed
// writers left in dir, whose NAME is the manifest or matches patterns
// (a user's own files of that shape stay), and reports them to notices.
// The lock must be held, so that no writer of dir is alive.
func removeTemporaries(dir *folder, patterns []string, notices io.Writer, who string) error {
	entries, err := os.ReadDir(dir.path)
	if err != nil {
		return fmt.Errorf("listing %s: %w", dir.path, err)
	}
	var removed []string
	for _, e := range entries {
		name, ok := temporaryOf(e.Name())
		if !ok || !e.Type().IsRegular() || !(name == ManifestName || matches(patterns, name)) {
			continue
		}
		if err := dir.remove(e.Name()); err != nil {
			return fmt.Errorf("removing a stale temporary file: %w", err)
		}
		removed = append(removed, e.Name())
	}
	if len(removed) > 0 && notices != nil {
		fmt.Fprintf(notices, "%s: %s: removed %d temporary file(s) left by an interrupted write: %s\n",
			who, dir.path, len(removed), strings.Join(removed, ", "))
	}
	return nil
}

// plan sorts the entries of dir for a new output with the given patterns
// over a previous output whose files match prev (nil without one): stale
// are the previous output's files, clash the other entries the new output
// would overwrite, and others counts the rest. An entry that matches
// either list and is not a regular file is an error: gmlg neither writes
// through it nor removes it.
func plan(dir *folder, prev, patterns []string) (stale, clash []string, others int, err error) {
	entries, err := os.ReadDir(dir.path)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("listing %s: %w", dir.path, err)
	}
	for _, e := range entries {
		name := e.Name()
		ours, prevs := matches(patterns, name), matches(prev, name)
		switch {
		case internal(name):
		case (ours || prevs) && !e.Type().IsRegular():
			return nil, nil, 0, entryError(dir.join(name), e.Type())
		case prevs:
			stale = append(stale, name)
		case ours:
			clash = append(clash, name)
		default:
			others++
		}
	}
	return stale, clash, others, nil
}

// onlyInternal reports whether dir holds nothing but the package's files.
func onlyInternal(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !internal(e.Name()) {
			return false
		}
	}
	return true
}
