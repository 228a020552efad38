package learn

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
)

// CheckpointVersion is the layout of the Checkpoint that EncodeCheckpoint
// writes, recorded in its Version field; bump it when the meaning of a
// field changes. DecodeCheckpoint reads this layout only.
const CheckpointVersion = 1

// checkpointMagic is the first line of an encoded checkpoint.
const checkpointMagic = "gmlg-checkpoint"

// ErrCheckpointFormat is the error, wrapped by DecodeCheckpoint, of data
// that is no checkpoint of a layout this package reads.
var ErrCheckpointFormat = errors.New("learn: not a checkpoint of a known format")

// ErrCheckpointRun is the error, wrapped by Run, of a checkpoint that
// another run wrote (its RunSettings.Run differs).
var ErrCheckpointRun = errors.New("the checkpoint belongs to another run")

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
	// coarse levels, then the finest, then the polish.
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
	// Run is the identity of the run that wrote the checkpoint
	// (RunSettings.Run).
	Run []byte
}

// Validate checks that c can be resumed from: its Version is
// CheckpointVersion, its Level not negative, and its states (State, and
// PolishBest when set) consistent (see (*State).Validate).
func (c *Checkpoint) Validate() error {
	switch {
	case c == nil:
		return errors.New("learn: no checkpoint")
	case c.Version != CheckpointVersion:
		return fmt.Errorf("learn: checkpoint version %d, want %d", c.Version, CheckpointVersion)
	case c.Level < 0:
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
// c's fields with its states packed (packedState; exact for every
// float64). The checksum makes a damaged or edited checkpoint an error
// instead of a resumed run that silently ends elsewhere.
func EncodeCheckpoint(c *Checkpoint) ([]byte, error) {
	v := *c
	v.Version = CheckpointVersion
	if err := v.Validate(); err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	w := &checkpointWire{Version: v.Version, Level: v.Level,
		PackedState: (*packedState)(v.State), PackedPolishBest: (*packedState)(v.PolishBest),
		PolishBestF: v.PolishBestF, Done: v.Done, Status: v.Status, Run: v.Run}
	// 1024 bytes leave room for gob's type descriptors and the small fields.
	return seal(checkpointMagic, w, w.PackedState.size()+w.PackedPolishBest.size()+1024)
}

// checkpointWire is the gob payload of a checkpoint: a Checkpoint whose
// states are packed.
type checkpointWire struct {
	Version                       int
	Level                         int
	PackedState, PackedPolishBest *packedState
	PolishBestF                   float64
	Done                          bool
	Status                        string
	Run                           []byte
}

// packedState is a State as a checkpoint stores it: Iter, Evals, the length n
// of X and the number m of correction pairs as four little-endian uint64,
// then as little-endian float64 F, X, G, the m steps S, the m gradient
// changes Y, Rho and the Iter losses. Gob encodes the values of a float64
// slice one by one, several times slower than copying them, and a colour
// run writes the whole L-BFGS history at every iteration
// (BenchmarkCheckpoint). A packed state is consistent by construction (see
// (*State).Validate), except that it may hold no point.
type packedState State

// packedHeader is the number of uint64 before a packed state's values.
const packedHeader = 4

// size is the length of the packed state, 0 for none.
func (p *packedState) size() int {
	if p == nil {
		return 0
	}
	n, m := len(p.X), len(p.S)
	return 8 * (packedHeader + 1 + 2*n + 2*m*n + m + len(p.Losses))
}

// GobEncode packs the state (EncodeCheckpoint has validated it).
func (p *packedState) GobEncode() ([]byte, error) {
	b := make([]byte, 0, p.size())
	n, m := len(p.X), len(p.S)
	for _, v := range [packedHeader]int{p.Iter, p.Evals, n, m} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.F))
	b = appendFloats(b, p.X)
	b = appendFloats(b, p.G)
	for _, v := range p.S {
		b = appendFloats(b, v)
	}
	for _, v := range p.Y {
		b = appendFloats(b, v)
	}
	b = appendFloats(b, p.Rho)
	return appendFloats(b, p.Losses), nil
}

// GobDecode unpacks a state, refusing data whose length does not match
// its header.
func (p *packedState) GobDecode(b []byte) error {
	if len(b) < 8*(packedHeader+1) {
		return fmt.Errorf("%w: packed state of %d bytes", ErrInconsistentState, len(b))
	}
	var h [packedHeader]uint64
	for k := range h {
		h[k] = binary.LittleEndian.Uint64(b[8*k:])
	}
	iter, evals, n, m := h[0], h[1], h[2], h[3]
	// With iter, n, m and m·n at most the number of values after the
	// header (below 2⁶¹), the size they add up to cannot overflow.
	vals := uint64(len(b)/8 - packedHeader - 1)
	bounded := iter <= vals && n <= vals && m <= vals && (n == 0 || m <= vals/n)
	if len(b)%8 != 0 || !bounded || (2+2*m)*n+m+iter != vals {
		return fmt.Errorf("%w: packed state of %d bytes for %d parameters, %d correction pairs and %d iterations",
			ErrInconsistentState, len(b), n, m, iter)
	}
	p.Iter, p.Evals = int(iter), int(evals)
	p.F = math.Float64frombits(binary.LittleEndian.Uint64(b[8*packedHeader:]))
	b = b[8*(packedHeader+1):]
	take := func(k uint64) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		b = b[8*k:]
		return v
	}
	p.X, p.G = take(n), take(n)
	p.S, p.Y = make([][]float64, m), make([][]float64, m)
	for k := range p.S {
		p.S[k] = take(n)
	}
	for k := range p.Y {
		p.Y[k] = take(n)
	}
	p.Rho, p.Losses = take(m), take(iter)
	return nil
}

// appendFloats appends the little-endian bits of v to b.
func appendFloats(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// DecodeCheckpoint decodes and validates data written by EncodeCheckpoint.
// Errors wrap ErrCheckpointFormat for data of another format or layout and
// ErrCheckpointChecksum for a damaged one.
func DecodeCheckpoint(data []byte) (*Checkpoint, error) {
	head, rest, _ := bytes.Cut(data, []byte{'\n'})
	if string(head) != checkpointMagic {
		return nil, ErrCheckpointFormat
	}
	var w checkpointWire
	if err := unseal(rest, &w); err != nil {
		return nil, err
	}
	if w.Version != CheckpointVersion {
		return nil, fmt.Errorf("%w: layout %d, this gmlg reads %d", ErrCheckpointFormat, w.Version, CheckpointVersion)
	}
	c := &Checkpoint{Version: w.Version, Level: w.Level, State: (*State)(w.PackedState),
		PolishBest: (*State)(w.PackedPolishBest), PolishBestF: w.PolishBestF, Done: w.Done, Status: w.Status, Run: w.Run}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// seal returns the line magic, the line of the SHA-256 of the gob
// encoding of v and that encoding. size, an estimate of the encoding's
// length, lets the buffer be allocated once.
func seal(magic string, v any, size int) ([]byte, error) {
	var buf bytes.Buffer
	head := len(magic) + 2 + 2*sha256.Size
	buf.Grow(head + size)
	buf.WriteString(magic)
	buf.WriteByte('\n')
	buf.Write(make([]byte, 2*sha256.Size)) // the checksum, once known
	buf.WriteByte('\n')
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	out := buf.Bytes()
	sum := sha256.Sum256(out[head:])
	hex.Encode(out[len(magic)+1:head-1], sum[:])
	return out, nil
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
