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
// field changes. DecodeCheckpoint converts the layouts before it.
const CheckpointVersion = 4

// ExactLevel is the Level that the checkpoints of single-level runs
// recorded before CheckpointVersion 4; Run resumes it as its finest level.
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

// Checkpoint is the complete state of a run (Run), from which it
// continues bit for bit as if it had not stopped (a fast-mode level
// restarts its Sinkhorn warm start cold; see RunSettings.Resume).
type Checkpoint struct {
	// Version is the checkpoint's layout; EncodeCheckpoint sets it to
	// CheckpointVersion, whatever it holds.
	Version int
	// Level is the index of the run's level that State belongs to: the
	// coarse levels, then the finest, then the polish (ExactLevel in
	// older checkpoints: the finest).
	Level int
	// State is the optimiser's state on that level.
	State *State
	// PolishBest and PolishBestF are, for a run with a polish interrupted
	// on its finest level, the best-scored iterate so far
	// (PolishScore.State) and its exact objective: the resumed level keeps
	// them as its best score, so that the polish still starts there (nil:
	// the resumed level scores afresh).
	PolishBest  *State
	PolishBestF float64
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
		c, err = decodeCurrent(rest)
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

// levelFields are the fields of a checkpoint that locate the run's state,
// nested in layout 3 and in the colour layout before it.
type levelFields struct {
	Level       int
	State       *State
	PolishBest  *State
	PolishBestF float64
}

// decodeCurrent decodes the checksum line and payload rest of a
// checkpoint of layout 3 or later: gob matches fields by name, so the
// flat fields of layout 4 and the nested ones of layout 3 decode into one
// value.
func decodeCurrent(rest []byte) (*Checkpoint, error) {
	var w struct {
		Version                int
		Level                  int
		State, PolishBest      *State
		PolishBestF            float64
		Done                   bool
		Status                 string
		CoarseToFineCheckpoint *levelFields // layout 3
	}
	if err := unseal(rest, &w); err != nil {
		return nil, err
	}
	c := &Checkpoint{Version: w.Version, Level: w.Level, State: w.State, PolishBest: w.PolishBest,
		PolishBestF: w.PolishBestF, Done: w.Done, Status: w.Status}
	if l := w.CoarseToFineCheckpoint; w.Version == 3 && l != nil {
		c = withLevel(&Checkpoint{Done: w.Done, Status: w.Status}, l)
	}
	return c, nil
}

// withLevel returns c with the fields of l and the current version.
func withLevel(c *Checkpoint, l *levelFields) *Checkpoint {
	c.Version, c.Level, c.State, c.PolishBest, c.PolishBestF = CheckpointVersion, l.Level, l.State, l.PolishBest, l.PolishBestF
	return c
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
	return withLevel(&Checkpoint{Done: old.Done, Status: old.Status}, &levelFields{Level: ExactLevel, State: old.State}), nil
}

// decodeLegacyColor converts the checksum line and payload rest of a
// colour run's checkpoint in the layout before version 3, whose fields
// were those of levelFields (Level ExactLevel in exact mode).
func decodeLegacyColor(rest []byte) (*Checkpoint, error) {
	var l levelFields
	if err := unseal(rest, &l); err != nil {
		return nil, err
	}
	return withLevel(&Checkpoint{}, &l), nil
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
