package learn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
)

// checkpointState is a small consistent optimiser state.
func checkpointState() *State {
	return &State{Iter: 2, Evals: 3, X: []float64{1, -2}, G: []float64{0.1, 0.2}, F: 1.5,
		S: [][]float64{{1, 2}}, Y: [][]float64{{3, 4}}, Rho: []float64{0.1}, Losses: []float64{3, 2}}
}

// TestCheckpointRoundTrip encodes checkpoints of both kinds of run and
// decodes them to the same values, with the version set.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, c := range []*Checkpoint{
		{Level: 0, State: checkpointState(), Done: true, Status: "max-iter"},
		{Level: 2, State: checkpointState(), PolishBest: checkpointState(), PolishBestF: 0.25, Run: []byte(`{"model":{"t":0.01}}`)},
		{Version: 99, Level: 0, State: checkpointState()},
	} {
		data, err := EncodeCheckpoint(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeCheckpoint(data)
		if err != nil {
			t.Fatalf("level %d: %v", c.Level, err)
		}
		want := *c
		want.Version = CheckpointVersion
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("level %d: decoded %+v, want %+v", c.Level, got, &want)
		}
	}
}

// TestPackedStateBits round-trips states through the packed layout and
// compares every value bit for bit: signed zeros, subnormals, infinities
// and NaN payloads included, with and without correction pairs.
func TestPackedStateBits(t *testing.T) {
	odd := []float64{math.Copysign(0, -1), 5e-324, math.MaxFloat64, math.Inf(-1),
		math.Float64frombits(0x7ff8_0000_dead_beef)}
	for _, st := range []*State{
		checkpointState(),
		{Iter: 0, Evals: 1, X: odd, G: odd, F: math.NaN()},
		{Iter: 1, Evals: 9, X: odd[:2], G: odd[3:], F: -1, S: [][]float64{odd[:2], odd[1:3]},
			Y: [][]float64{odd[2:4], odd[3:]}, Rho: odd[:2], Losses: odd[4:]},
	} {
		b, err := (*packedState)(st).GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		var got packedState
		if err := got.GobDecode(b); err != nil {
			t.Fatal(err)
		}
		if a, g := stateBits(st), stateBits((*State)(&got)); !reflect.DeepEqual(a, g) {
			t.Errorf("state %+v: decoded bits %v, want %v", st, g, a)
		}
	}
}

// stateBits lists a state's counts and the bits of its values in the
// packed order.
func stateBits(s *State) []uint64 {
	out := []uint64{uint64(s.Iter), uint64(s.Evals), uint64(len(s.X)), uint64(len(s.S)), math.Float64bits(s.F)}
	for _, v := range append(append([][]float64{s.X, s.G}, append(s.S, s.Y...)...), s.Rho, s.Losses) {
		out = append(out, uint64(len(v)))
		for _, x := range v {
			out = append(out, math.Float64bits(x))
		}
	}
	return out
}

// TestPackedStateRefused checks that packed states whose length does not
// match their header are refused, also where the header's counts would
// overflow the size computed from them.
func TestPackedStateRefused(t *testing.T) {
	good, err := (*packedState)(checkpointState()).GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	header := func(iter, n, m uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b, iter)
		binary.LittleEndian.PutUint64(b[16:], n)
		binary.LittleEndian.PutUint64(b[24:], m)
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"header only", good[:8*packedHeader]},
		{"one value short", good[:len(good)-8]},
		{"one value more", append(bytes.Clone(good), good[:8]...)},
		{"odd length", good[:len(good)-1]},
		{"more parameters", header(2, 3, 1)},
		{"more pairs", header(2, 2, 2)},
		{"more iterations", header(3, 2, 1)},
		// (2+2·9)·2⁶³ + 9 + 2 wraps to the 11 values of the good state.
		{"wrapping size", header(2, 1<<63, 9)},
		{"huge pairs", header(2, 2, 1<<63)},
	} {
		var p packedState
		if err := p.GobDecode(tc.data); !errors.Is(err, ErrInconsistentState) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, ErrInconsistentState)
		}
	}
}

// TestCheckpointRefused checks that damaged, foreign and inconsistent
// checkpoints are refused with the matching error.
func TestCheckpointRefused(t *testing.T) {
	good, err := EncodeCheckpoint(&Checkpoint{Level: 1, State: checkpointState()})
	if err != nil {
		t.Fatal(err)
	}
	inconsistent := checkpointState()
	inconsistent.G = inconsistent.G[:1]
	bad, err := seal(checkpointMagic, &checkpointWire{Version: CheckpointVersion, PackedState: (*packedState)(inconsistent)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	oldVersion, err := seal(checkpointMagic, &checkpointWire{Version: CheckpointVersion + 1, PackedState: (*packedState)(checkpointState())}, 0)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(data []byte) []byte {
		data = bytes.Clone(data)
		data[len(data)-3] ^= 1
		return data
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error // nil: any error
	}{
		{"empty", nil, ErrCheckpointFormat},
		{"foreign", []byte("P6\n2 2\n255\n"), ErrCheckpointFormat},
		{"payload bit flipped", flip(good), ErrCheckpointChecksum},
		{"truncated", good[:len(good)/2], ErrCheckpointChecksum},
		{"inconsistent state", bad, ErrInconsistentState},
		{"other version", oldVersion, ErrCheckpointFormat},
	} {
		_, err := DecodeCheckpoint(tc.data)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestCheckpointValidate lists the invariants Validate checks.
func TestCheckpointValidate(t *testing.T) {
	ok := func() *Checkpoint {
		return &Checkpoint{Version: CheckpointVersion, Level: 0, State: checkpointState()}
	}
	for _, tc := range []struct {
		name  string
		edit  func(c *Checkpoint)
		valid bool
	}{
		{"consistent", func(*Checkpoint) {}, true},
		{"polish start", func(c *Checkpoint) { c.Level, c.PolishBest = 1, checkpointState() }, true},
		{"no version", func(c *Checkpoint) { c.Version = 0 }, false},
		{"negative level", func(c *Checkpoint) { c.Level = -1 }, false},
		{"no state", func(c *Checkpoint) { c.State = nil }, false},
		{"inconsistent polish start", func(c *Checkpoint) { c.PolishBest = &State{X: []float64{1}} }, false},
	} {
		c := ok()
		tc.edit(c)
		if err := c.Validate(); (err == nil) != tc.valid {
			t.Errorf("%s: Validate() = %v, want valid %v", tc.name, err, tc.valid)
		}
	}
	if err := (*Checkpoint)(nil).Validate(); err == nil {
		t.Error("a nil checkpoint validates")
	}
}

// BenchmarkCheckpoint encodes the checkpoint of a 32³ colour metric with a
// full L-BFGS history (3·32³ parameters, the default History of 20
// correction pairs), in the
// current layout and, for comparison, as layout 4's plain gob structs.
func BenchmarkCheckpoint(b *testing.B) {
	const n, m = 3 * 32 * 32 * 32, 20
	vec := func(seed float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Sin(seed + float64(i))
		}
		return v
	}
	st := &State{Iter: m, Evals: m + 3, X: vec(0), G: vec(1), F: 1, Losses: make([]float64, m)}
	for k := range m {
		st.S, st.Y, st.Rho = append(st.S, vec(float64(2+k))), append(st.Y, vec(float64(-1-k))), append(st.Rho, 1)
	}
	ck := &Checkpoint{Level: 1, State: st}
	b.Run("packed", func(b *testing.B) {
		b.SetBytes(int64(8 * (2 + 2*m) * n))
		b.ResetTimer()
		for range b.N {
			if _, err := EncodeCheckpoint(ck); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("layout4", func(b *testing.B) {
		b.SetBytes(int64(8 * (2 + 2*m) * n))
		old := *ck
		old.Version = 4
		b.ResetTimer()
		for range b.N {
			if _, err := seal(checkpointMagic, &old, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
