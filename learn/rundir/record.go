package rundir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
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

// Checksum returns the SHA-256 of the files' sha256sum lines
// "<sha256>  <base name>\n", in the given order, and the per-file sums,
// all as lower-case hex.
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
	f, err := OpenInput(path)
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
// Numbers keep their exact text; NaN and infinities fail, as in
// encoding/json.
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
func WriteJSON(path string, v any) error { return writeWith(path, v, MarshalSorted) }

// writeWith writes marshal's encoding of v to path atomically.
func writeWith(path string, v any, marshal func(any) ([]byte, error)) error {
	b, err := marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFile(path, b, 0)
}

// SumKey is the top-level member of a checked JSON file that holds the
// SHA-256, in lower-case hex, of the file's canonical encoding without
// this member: that of MarshalSorted with every number written as the
// shortest text of its float64 value, so that only values count, not
// their spelling (1e-05 and 0.00001 are the same value).
const SumKey = "sha256"

// ErrChanged reports a checked JSON file whose content does not match its
// checksum: it was edited or damaged after it was written.
var ErrChanged = errors.New("changed or damaged since gmlg wrote it (its sha256 does not match its content)")

// ErrNoSum reports a JSON file without the checksum member, which gmlg
// did not write.
var ErrNoSum = errors.New("no sha256 checksum, so gmlg cannot tell whether it was changed since it was written")

// MarshalChecked encodes v, a JSON object without a SumKey member, as
// MarshalSorted does, adding SumKey.
func MarshalChecked(v any) ([]byte, error) {
	raw, err := MarshalSorted(v)
	if err != nil {
		return nil, err
	}
	generic, err := decodeGeneric(raw)
	if err != nil {
		return nil, fmt.Errorf("rundir: marshal: %w", err)
	}
	obj, ok := generic.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("rundir: marshal: a checked file holds a JSON object, not %T", v)
	}
	if _, taken := obj[SumKey]; taken {
		return nil, fmt.Errorf("rundir: marshal: %T already has a %q member", v, SumKey)
	}
	sum, err := checksumOf(obj)
	if err != nil {
		return nil, err
	}
	obj[SumKey] = sum
	return encodeSorted(obj)
}

// DecodeChecked checks raw's SumKey member against the rest of raw, in
// canonical form (ErrNoSum, ErrChanged), and then decodes raw into v as
// json.Unmarshal does.
func DecodeChecked(raw []byte, v any) error {
	generic, err := decodeGeneric(raw)
	if err != nil {
		return err
	}
	obj, ok := generic.(map[string]any)
	if !ok {
		return fmt.Errorf("not a JSON object")
	}
	want, ok := obj[SumKey].(string)
	if !ok {
		return ErrNoSum
	}
	delete(obj, SumKey)
	sum, err := checksumOf(obj)
	if err != nil {
		return err
	}
	if sum != want {
		return ErrChanged
	}
	return json.Unmarshal(raw, v)
}

// checksumOf is the SHA-256, in lower-case hex, of the canonical encoding
// of obj (see SumKey); obj is left as it was.
func checksumOf(obj map[string]any) (string, error) {
	canon, err := encodeSorted(canonicalNumbers(obj))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalNumbers returns a copy of the value v made by decodeGeneric
// with every number written as the shortest text of its float64 value
// (1e+06 for 1000000, which an integer field would not decode: so the
// copy is only hashed, never written).
func canonicalNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = canonicalNumbers(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = canonicalNumbers(e)
		}
		return c
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return v
}

// WriteChecked writes MarshalChecked's encoding of v to path atomically.
func WriteChecked(path string, v any) error { return writeWith(path, v, MarshalChecked) }

// ReadChecked reads the regular file path, written by WriteChecked, into v
// as DecodeChecked does; errors name the file.
func ReadChecked(path string, v any) error {
	raw, err := ReadInput(path)
	if err != nil {
		return err
	}
	if err := DecodeChecked(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
