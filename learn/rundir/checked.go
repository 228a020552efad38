package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

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
// therefore did not write (or wrote before it recorded checksums).
var ErrNoSum = errors.New("no sha256 checksum, so gmlg cannot tell whether it was changed since it was written")

// MarshalChecked encodes v as MarshalSorted does, adding the member SumKey
// that holds the SHA-256 of that encoding. v must encode as a JSON object
// without a member of that name.
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

// DecodeChecked verifies that raw's SumKey member matches the rest of raw
// (compared in canonical form, so that only a change of the members or of
// their values counts, not of layout) and then decodes raw into v as
// json.Unmarshal does. It returns ErrNoSum or ErrChanged, wrapped, when
// the check fails.
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
// of obj (see SumKey). It rewrites obj's numbers in place.
func checksumOf(obj map[string]any) (string, error) {
	canon, err := encodeSorted(canonicalNumbers(obj))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalNumbers rewrites, in the value v made by decodeGeneric, every
// number as the shortest text of its float64 value, and returns v.
func canonicalNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = canonicalNumbers(e)
		}
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return v
}

// WriteChecked writes MarshalChecked's encoding of v to path atomically.
func WriteChecked(path string, v any) error {
	return writeWith(path, v, MarshalChecked)
}

// ReadChecked reads a file written by WriteChecked into v, checking its
// checksum as DecodeChecked does; errors name the file. The file must be
// a regular file (ReadInput).
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
