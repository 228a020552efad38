package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// SumKey is the top-level member of a checked JSON file that holds the
// SHA-256, in lower-case hex, of the file's canonical encoding (that of
// MarshalSorted) without this member.
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
	canon, err := MarshalSorted(v)
	if err != nil {
		return nil, err
	}
	generic, err := decodeGeneric(canon)
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
	sum := sha256.Sum256(canon)
	obj[SumKey] = hex.EncodeToString(sum[:])
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
	canon, err := encodeSorted(obj)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(canon)
	if hex.EncodeToString(sum[:]) != want {
		return ErrChanged
	}
	return json.Unmarshal(raw, v)
}

// WriteChecked writes MarshalChecked's encoding of v to path atomically.
func WriteChecked(path string, v any) error {
	return writeWith(path, v, MarshalChecked)
}

// ReadChecked reads a file written by WriteChecked into v, checking its
// checksum as DecodeChecked does; errors name the file.
func ReadChecked(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := DecodeChecked(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
