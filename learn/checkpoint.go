package learn

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
)

// CheckpointVersion is the layout of the Checkpoint that EncodeCheckpoint
// writes, recorded in its Version field; bump it when the meaning of a
// field changes.
const CheckpointVersion = 3

// ExactLevel is the Level of the checkpoint of a run of Minimize on the
// exact objective, which has no coarse-to-fine levels.
const ExactLevel = -1

// checkpointMagic is the first line of an encoded checkpoint.
const checkpointMagic = "gmlg-checkpoint"

// The first lines of the two layouts before CheckpointVersion 3, which
// DecodeCheckpoint still reads: a run of Minimize (legacyExact) and a
// colour run of either mode (legacyColor).
const (
	legacyExactMagic = "gmlg-checkpoint-2"
	legacyColorMagic = "gmlg-colorlearn-checkpoint-2"
)

// ErrCheckpointFormat is the error, wrapped by DecodeCheckpoint, of data
// that is no checkpoint of a layout this package reads.
var ErrCheckpointFormat = errors.New("learn: not a checkpoint of a known format")

// ErrCheckpointChecksum is the error, wrapped by DecodeCheckpoint, of a
// checkpoint whose content does not match its SHA-256: it was damaged or
// edited after it was written.
var ErrCheckpointChecksum = errors.New("learn: checkpoint checksum does not match its content")

// Checkpoint is the complete state of a run, from which it continues bit
// for bit as if it had not stopped (a coarse-to-fine level restarts its
// Sinkhorn warm start cold; see CoarseToFineSettings.Resume).
type Checkpoint struct {
	// Version is the checkpoint's layout; EncodeCheckpoint sets it to
	// CheckpointVersion, whatever it holds.
	Version int
	// CoarseToFineCheckpoint holds the optimiser's state; Level is
	// ExactLevel for a run of Minimize on the exact objective.
	CoarseToFineCheckpoint
	// Done reports that the run finished, Status why.
	Done   bool
	Status string
}

// Validate checks that c can be resumed from: its Version is
// CheckpointVersion, its Level at least ExactLevel, and its states (State,
// and PolishBest when set) consistent (see (*State).Validate).
func (c *Checkpoint) Validate() error {
	switch {
	case c == nil:
		return errors.New("learn: no checkpoint")
	case c.Version != CheckpointVersion:
		return fmt.Errorf("learn: checkpoint version %d, want %d", c.Version, CheckpointVersion)
	case c.Level < ExactLevel:
		return fmt.Errorf("learn: checkpoint of level %d", c.Level)
	}
	if err := c.State.Validate(); err != nil {
		return fmt.Errorf("checkpoint state: %w", err)
	}
	if c.PolishBest != nil {
		if err := c.PolishBest.Validate(); err != nil {
			return fmt.Errorf("checkpoint polish start: %w", err)
		}
	}
	return nil
}

// EncodeCheckpoint returns the encoding of c, with its Version set to
// CheckpointVersion: the line "gmlg-checkpoint", the line of the SHA-256
// of the payload in lower-case hex, and the payload, the gob encoding of
// c (exact for every float64). The checksum makes a damaged or edited
// checkpoint an error instead of a resumed run that silently ends
// elsewhere.
func EncodeCheckpoint(c *Checkpoint) ([]byte, error) {
	v := *c
	v.Version = CheckpointVersion
	if err := v.Validate(); err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	return seal(checkpointMagic, &v)
}

// DecodeCheckpoint decodes and validates data written by EncodeCheckpoint
// or in one of the earlier layouts, which it converts. Errors wrap
// ErrCheckpointFormat for data of no known layout and
// ErrCheckpointChecksum for a damaged one.
func DecodeCheckpoint(data []byte) (*Checkpoint, error) {
	head, rest, _ := bytes.Cut(data, []byte{'\n'})
	var c *Checkpoint
	var err error
	switch string(head) {
	case checkpointMagic:
		c = new(Checkpoint)
		err = unseal(rest, c)
	case legacyExactMagic:
		c, err = decodeLegacyExact(rest)
	case legacyColorMagic:
		c, err = decodeLegacyColor(rest)
	default:
		return nil, ErrCheckpointFormat
	}
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeLegacyExact converts the checksum line and payload rest of a
// checkpoint of Minimize in the layout before version 3.
func decodeLegacyExact(rest []byte) (*Checkpoint, error) {
	var old struct {
		State  *State
		Done   bool
		Status string
	}
	if err := unseal(rest, &old); err != nil {
		return nil, err
	}
	return &Checkpoint{Version: CheckpointVersion, Done: old.Done, Status: old.Status,
		CoarseToFineCheckpoint: CoarseToFineCheckpoint{Level: ExactLevel, State: old.State}}, nil
}

// decodeLegacyColor converts the checksum line and payload rest of a
// colour run's checkpoint in the layout before version 3, whose fields
// were those of CoarseToFineCheckpoint (Level ExactLevel in exact mode).
func decodeLegacyColor(rest []byte) (*Checkpoint, error) {
	c := &Checkpoint{Version: CheckpointVersion}
	if err := unseal(rest, &c.CoarseToFineCheckpoint); err != nil {
		return nil, err
	}
	return c, nil
}

// seal returns the line magic, the line of the SHA-256 of the gob
// encoding of v and that encoding.
func seal(magic string, v any) ([]byte, error) {
	var payload bytes.Buffer
	if err := gob.NewEncoder(&payload).Encode(v); err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	sum := sha256.Sum256(payload.Bytes())
	out := make([]byte, 0, len(magic)+2+2*len(sum)+payload.Len())
	out = append(out, magic...)
	out = append(out, '\n')
	out = hex.AppendEncode(out, sum[:])
	out = append(out, '\n')
	return append(out, payload.Bytes()...), nil
}

// unseal checks the checksum line that begins rest against the payload
// after it and decodes that payload into v.
func unseal(rest []byte, v any) error {
	sumHex, payload, ok := bytes.Cut(rest, []byte{'\n'})
	sum := sha256.Sum256(payload)
	if !ok || string(sumHex) != hex.EncodeToString(sum[:]) {
		return ErrCheckpointChecksum
	}
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(v); err != nil {
		return fmt.Errorf("decode checkpoint: %w", err)
	}
	return nil
}
