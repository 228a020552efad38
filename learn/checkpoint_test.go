package learn

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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
		{Level: ExactLevel, State: checkpointState(), Done: true, Status: "max-iter"},
		{Level: 2, State: checkpointState(), PolishBest: checkpointState(), PolishBestF: 0.25},
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

// TestCheckpointLegacy decodes checkpoint files written by the command
// line tool before CheckpointVersion 3 (a learn run, and a colour run in
// fast and exact mode) into the checkpoints they held.
func TestCheckpointLegacy(t *testing.T) {
	exact := func(done bool, status string) *Checkpoint {
		return &Checkpoint{Version: CheckpointVersion, Done: done, Status: status,
			Level: ExactLevel, State: checkpointState()}
	}
	for _, tc := range []struct {
		file string
		want *Checkpoint
	}{
		{"checkpoint-learn-2.gob", exact(true, "max-iter")},
		{"checkpoint-colorlearn-exact-2.gob", exact(false, "")},
		{"checkpoint-colorlearn-2.gob", &Checkpoint{Version: CheckpointVersion,
			Level: 1, State: checkpointState(), PolishBest: checkpointState(), PolishBestF: 2.5}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeCheckpoint(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: decoded %+v, want %+v", tc.file, got, tc.want)
		}
	}
}

// TestCheckpointLayout3 decodes a checkpoint in layout 3, whose level,
// state and polish start were nested in a struct field, into the same
// checkpoint in the current layout.
func TestCheckpointLayout3(t *testing.T) {
	old := struct {
		Version                int
		CoarseToFineCheckpoint levelFields
		Done                   bool
		Status                 string
	}{3, levelFields{Level: 2, State: checkpointState(), PolishBest: checkpointState(), PolishBestF: 0.5}, true, "done"}
	data, err := seal(checkpointMagic, &old)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Checkpoint{Version: CheckpointVersion, Level: 2, State: checkpointState(), PolishBest: checkpointState(),
		PolishBestF: 0.5, Done: true, Status: "done"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}

// TestCheckpointRefused checks that damaged, foreign and inconsistent
// checkpoints are refused with the matching error.
func TestCheckpointRefused(t *testing.T) {
	good, err := EncodeCheckpoint(&Checkpoint{Level: 1, State: checkpointState()})
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := os.ReadFile(filepath.Join("testdata", "checkpoint-learn-2.gob"))
	if err != nil {
		t.Fatal(err)
	}
	inconsistent := checkpointState()
	inconsistent.G = inconsistent.G[:1]
	bad, err := seal(checkpointMagic, &Checkpoint{Version: CheckpointVersion, State: inconsistent})
	if err != nil {
		t.Fatal(err)
	}
	oldVersion, err := seal(checkpointMagic, &Checkpoint{Version: 2, State: checkpointState()})
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
		{"legacy payload bit flipped", flip(legacy), ErrCheckpointChecksum},
		{"truncated", good[:len(good)/2], ErrCheckpointChecksum},
		{"inconsistent state", bad, ErrInconsistentState},
		{"other version", oldVersion, nil},
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
		return &Checkpoint{Version: CheckpointVersion, Level: ExactLevel, State: checkpointState()}
	}
	for _, tc := range []struct {
		name  string
		edit  func(c *Checkpoint)
		valid bool
	}{
		{"consistent", func(*Checkpoint) {}, true},
		{"polish start", func(c *Checkpoint) { c.Level, c.PolishBest = 1, checkpointState() }, true},
		{"no version", func(c *Checkpoint) { c.Version = 0 }, false},
		{"level below exact", func(c *Checkpoint) { c.Level = ExactLevel - 1 }, false},
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
