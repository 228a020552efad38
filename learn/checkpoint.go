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
	"slices"
)

// CheckpointVersion is the layout that EncodeCheckpoint writes and
// DecodeCheckpoint reads; bump it when the meaning of a field changes.
const CheckpointVersion = 1

// checkpointMagic is the first line of an encoded checkpoint.
const checkpointMagic = "gmlg-checkpoint"

// The errors of checkpoints, wrapped by DecodeCheckpoint and Run.
var (
	// ErrCheckpointFormat: data that is no checkpoint of a layout this
	// package reads.
	ErrCheckpointFormat = errors.New("learn: not a checkpoint of a known format")
	// ErrCheckpointRun: a checkpoint of another run (RunSettings.Run).
	ErrCheckpointRun = errors.New("the checkpoint belongs to another run")
	// ErrCheckpointChecksum: a checkpoint damaged or edited since written.
	ErrCheckpointChecksum = errors.New("learn: checkpoint checksum does not match its content")
)

// Checkpoint is the complete state of a run (Run), from which it
// continues as if it had not stopped (see RunSettings.Resume).
type Checkpoint struct {
	Version int    // the layout; EncodeCheckpoint sets CheckpointVersion
	Level   int    // the run's level of State: warm-up, finest, polish
	State   *State // the optimiser's state on that level
	// PolishBest and PolishBestF are, for a run with a polish interrupted
	// on its finest level, the best-scored iterate so far and its exact
	// objective, from which the polish still starts (nil: none yet).
	PolishBest  *State
	PolishBestF float64
	Done        bool   // the run finished
	Status      string // why it finished
	Run         []byte // the run's identity (RunSettings.Run)
}

// Validate checks that c can be resumed from: its Version, Level and
// states (see (*State).Validate).
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
// CheckpointVersion: the line "gmlg-checkpoint", the line of the payload's
// SHA-256 in lower-case hex, and the payload, the gob encoding of c with
// its states packed (packedState). The checksum makes a damaged or edited
// checkpoint an error instead of a resumed run that silently ends
// elsewhere.
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

// seal returns the line magic, the line of the SHA-256 of the gob
// encoding of v and that encoding; size, the encoding's estimated length,
// lets the buffer be allocated once.
func seal(magic string, v any, size int) ([]byte, error) {
	var buf bytes.Buffer
	head := len(magic) + 2 + 2*sha256.Size
	buf.Grow(head + size)
	buf.WriteString(magic + "\n")
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

// checkpointWire is a Checkpoint with its states packed.
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
// changes Y, Rho and the Iter losses. Gob encodes a float64 slice value by
// value, several times slower, and a colour run writes the whole L-BFGS
// history at every iteration (BenchmarkCheckpoint).
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
	for _, v := range slices.Concat([][]float64{p.X, p.G}, p.S, p.Y, [][]float64{p.Rho, p.Losses}) {
		b = appendFloats(b, v)
	}
	return b, nil
}

// GobDecode unpacks a state whose length matches its header.
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
	sumHex, payload, ok := bytes.Cut(rest, []byte{'\n'})
	sum := sha256.Sum256(payload)
	if !ok || string(sumHex) != hex.EncodeToString(sum[:]) {
		return nil, ErrCheckpointChecksum
	}
	var w checkpointWire
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&w); err != nil {
		return nil, fmt.Errorf("decode checkpoint: %w", err)
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

// ErrInconsistentState is the error, wrapped by (*State).Validate, of a
// State whose slices disagree in length: one decoded from a damaged or
// foreign checkpoint, which Minimize must not resume from.
var ErrInconsistentState = errors.New("learn: inconsistent optimiser state")

// Validate checks the invariants that Minimize keeps in every State it
// reports: a point X of at least one parameter, a gradient G of its
// length, as many correction pairs S, Y as curvatures Rho, each pair of
// X's length, and one loss per accepted iteration. It returns nil for a
// consistent state and an error wrapping ErrInconsistentState otherwise,
// naming the first invariant broken; a nil state is inconsistent too.
func (s *State) Validate() error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: no state", ErrInconsistentState)
	case len(s.X) == 0:
		return fmt.Errorf("%w: no point", ErrInconsistentState)
	case len(s.G) != len(s.X):
		return fmt.Errorf("%w: gradient of length %d at a point of %d parameters", ErrInconsistentState, len(s.G), len(s.X))
	case len(s.S) != len(s.Y) || len(s.Rho) != len(s.S):
		return fmt.Errorf("%w: %d steps, %d gradient changes and %d curvatures in the history", ErrInconsistentState, len(s.S), len(s.Y), len(s.Rho))
	case len(s.Losses) != s.Iter:
		return fmt.Errorf("%w: %d losses for %d iterations", ErrInconsistentState, len(s.Losses), s.Iter)
	}
	for k := range s.S {
		if len(s.S[k]) != len(s.X) || len(s.Y[k]) != len(s.X) {
			return fmt.Errorf("%w: correction pair %d of lengths %d and %d for %d parameters", ErrInconsistentState, k, len(s.S[k]), len(s.Y[k]), len(s.X))
		}
	}
	return nil
}
