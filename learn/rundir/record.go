package rundir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
)

// Version returns the version of the running binary: the main module's
// version ("(devel)" when built from a source tree), followed by the VCS
// revision and a "+dirty" mark when the build recorded them, and the Go
// version, e.g. "v0.1.0 (rev 1a2b3c4d5e6f, go1.26.0)".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (" + runtime.Version() + ")"
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		return fmt.Sprintf("%s (rev %s%s, %s)", v, rev, dirty, bi.GoVersion)
	}
	return fmt.Sprintf("%s (%s)", v, bi.GoVersion)
}

// FileSum is the checksum of one input file.
type FileSum struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Checksum hashes the files in the given order. It returns the combined
// digest (SHA-256 of the sha256sum-style lines "<sha256>  <base name>\n")
// and the per-file sums, all as lower-case hex. Errors name the file.
func Checksum(paths []string) (string, []FileSum, error) {
	all := sha256.New()
	sums := make([]FileSum, 0, len(paths))
	for _, p := range paths {
		s, err := sumFile(p)
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(all, "%s  %s\n", s.SHA256, filepath.Base(p))
		sums = append(sums, s)
	}
	return hex.EncodeToString(all.Sum(nil)), sums, nil
}

func sumFile(path string) (FileSum, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileSum{}, fmt.Errorf("rundir: checksum: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileSum{}, fmt.Errorf("rundir: checksum %s: %w", path, err)
	}
	return FileSum{Path: path, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// MarshalSorted encodes v as JSON indented by two spaces, with the keys of
// every object sorted (struct fields included), and a final newline.
// Numbers keep their exact text. Like encoding/json it fails on NaN and
// infinite floats; the error names the problem.
func MarshalSorted(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("rundir: marshal: %w", err)
	}
	generic, err := decodeGeneric(raw)
	if err != nil {
		return nil, fmt.Errorf("rundir: marshal: %w", err)
	}
	return encodeSorted(generic)
}

// decodeGeneric decodes one JSON value into interface values: every object
// becomes a map, which encoding/json writes with sorted keys, and UseNumber
// keeps each number's text.
func decodeGeneric(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return generic, nil
}

// encodeSorted writes a value made of interface values (decodeGeneric's)
// indented by two spaces, without HTML escaping, with a final newline.
func encodeSorted(generic any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, fmt.Errorf("rundir: marshal: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteJSON writes v to path as MarshalSorted does, atomically.
func WriteJSON(path string, v any) error {
	return writeWith(path, v, MarshalSorted)
}

// writeWith writes marshal's encoding of v to path atomically.
func writeWith(path string, v any, marshal func(any) ([]byte, error)) error {
	b, err := marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFile(path, b, 0)
}
