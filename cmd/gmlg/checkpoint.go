package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/atomicfile"
	"github.com/gmlg/gmlg/learn"
)

// checkpointName is the checkpoint file of a run folder.
const checkpointName = "checkpoint.gob"

// checkpointMagic is the first line of a learn checkpoint; it names the
// payload's layout, so bump it when that changes. (Format 1 was a bare gob
// stream without a checksum.)
const checkpointMagic = "gmlg-checkpoint-2"

// checkpoint is the complete state of a run: resuming from it continues the
// optimisation bit for bit as if it had not stopped.
type checkpoint struct {
	State  *learn.State
	Done   bool   // the run finished (a convergence test or max-iter)
	Status string // why it finished
}

// errNoCheckpoint is returned, wrapped, by readCheckpointFile for a
// missing file.
var errNoCheckpoint = errors.New("no checkpoint")

// sealGob returns the sealed encoding of v under magic: the line magic, the
// line of the SHA-256 of the payload in lower-case hex, and the payload,
// the gob encoding of v. The checksum makes a damaged or edited checkpoint
// an error instead of a resumed run that silently ends elsewhere; every
// byte of the file is covered, the first two lines by exact comparison.
func sealGob(magic string, v any) ([]byte, error) {
	var payload bytes.Buffer
	if err := gob.NewEncoder(&payload).Encode(v); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	sum := sha256.Sum256(payload.Bytes())
	out := make([]byte, 0, len(magic)+2+2*len(sum)+payload.Len())
	out = append(out, magic...)
	out = append(out, '\n')
	out = hex.AppendEncode(out, sum[:])
	out = append(out, '\n')
	return append(out, payload.Bytes()...), nil
}

// unsealGob checks data's magic and checksum and decodes its payload into
// v; errors name path.
func unsealGob(path string, data []byte, magic string, v any) error {
	head, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || string(head) != magic {
		return fmt.Errorf("%s is not a checkpoint of this version of gmlg (format %s) or is damaged; start the run again", path, magic)
	}
	sumHex, payload, ok := bytes.Cut(rest, []byte{'\n'})
	sum := sha256.Sum256(payload)
	if !ok || string(sumHex) != hex.EncodeToString(sum[:]) {
		return fmt.Errorf("%s was changed or damaged since gmlg wrote it (its SHA-256 does not match its content)", path)
	}
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(v); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// writeSealed writes v sealed under magic to path atomically.
func writeSealed(path, magic string, v any) error {
	data, err := sealGob(magic, v)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// readCheckpointFile returns the content of the checkpoint file path; a
// missing file gives an error wrapping errNoCheckpoint.
func readCheckpointFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %s", errNoCheckpoint, path)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return data, nil
}

// writeCheckpoint writes ck atomically (gob encoding, exact for float64).
func writeCheckpoint(path string, ck *checkpoint) error {
	return writeSealed(path, checkpointMagic, ck)
}

// readCheckpoint reads and checks a checkpoint.
func readCheckpoint(path string) (*checkpoint, error) {
	data, err := readCheckpointFile(path)
	if err != nil {
		return nil, err
	}
	return decodeCheckpoint(path, data)
}

// decodeCheckpoint decodes and checks the content data of the checkpoint
// file path (named in errors).
func decodeCheckpoint(path string, data []byte) (*checkpoint, error) {
	var ck checkpoint
	if err := unsealGob(path, data, checkpointMagic, &ck); err != nil {
		return nil, err
	}
	if err := ck.State.Validate(); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return &ck, nil
}
