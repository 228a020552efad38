package rundir

import (
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

// ManifestName is the file naming the command that owns a folder and the
// files it writes there.
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
func internal(name string) bool {
	return name == LockName || name == ManifestName
}

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
