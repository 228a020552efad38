package runlog

import (
	"errors"
	"fmt"
	"os"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
)

// Observers is a learn.Observer that passes every report to each of its
// members in order. Iteration and Checkpoint call every member and return
// the first error.
type Observers []learn.Observer

// each calls f with every member and returns the first error.
func (os Observers) each(f func(learn.Observer) error) error {
	var first error
	for _, o := range os {
		if err := f(o); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (os Observers) LevelStart(level int, dims []int, obj *learn.Objective) {
	os.each(func(o learn.Observer) error { o.LevelStart(level, dims, obj); return nil })
}
func (os Observers) Iteration(p *learn.Progress) error {
	return os.each(func(o learn.Observer) error { return o.Iteration(p) })
}
func (os Observers) Trial(t learn.Trial) {
	os.each(func(o learn.Observer) error { o.Trial(t); return nil })
}
func (os Observers) Scored(s learn.PolishScore) {
	os.each(func(o learn.Observer) error { o.Scored(s); return nil })
}
func (os Observers) LevelDone(r learn.LevelReport) {
	os.each(func(o learn.Observer) error { o.LevelDone(r); return nil })
}
func (os Observers) Checkpoint(data []byte) error {
	return os.each(func(o learn.Observer) error { return o.Checkpoint(data) })
}

// CheckpointName is the name of the checkpoint file in a run's folder.
const CheckpointName = "checkpoint.gob"

// CheckpointFile is the observer that writes each checkpoint of a run to
// the file it names, atomically (a crash leaves the previous one whole).
type CheckpointFile string

func (CheckpointFile) LevelStart(int, []int, *learn.Objective) {}
func (CheckpointFile) Iteration(*learn.Progress) error         { return nil }
func (CheckpointFile) Trial(learn.Trial)                       {}
func (CheckpointFile) Scored(learn.PolishScore)                {}
func (CheckpointFile) LevelDone(learn.LevelReport)             {}

// Checkpoint writes data to the file.
func (c CheckpointFile) Checkpoint(data []byte) error {
	return rundir.WriteFile(string(c), data, 0o644)
}

// ErrNoCheckpoint is returned, wrapped, by ReadCheckpoint for a missing
// file.
var ErrNoCheckpoint = errors.New("no checkpoint")

// ReadCheckpoint reads, decodes and checks the checkpoint file path
// (DecodeCheckpointFile); a missing file gives an error wrapping
// ErrNoCheckpoint.
func ReadCheckpoint(path string) (*learn.Checkpoint, error) {
	data, err := rundir.ReadInput(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %s", ErrNoCheckpoint, path)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return DecodeCheckpointFile(path, data)
}

// ReadCheckpointIfAny is ReadCheckpoint with a missing file giving
// (nil, nil).
func ReadCheckpointIfAny(path string) (*learn.Checkpoint, error) {
	ck, err := ReadCheckpoint(path)
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, nil
	}
	return ck, err
}

// DecodeCheckpointFile decodes and checks data, the content of the
// checkpoint file path (learn.DecodeCheckpoint); a damaged or foreign
// file gives an error that names it and says what is wrong with it.
func DecodeCheckpointFile(path string, data []byte) (*learn.Checkpoint, error) {
	ck, err := learn.DecodeCheckpoint(data)
	switch {
	case errors.Is(err, learn.ErrCheckpointFormat):
		return nil, fmt.Errorf("%s is not a checkpoint of this version of gmlg or is damaged; start the run again", path)
	case errors.Is(err, learn.ErrCheckpointChecksum):
		return nil, fmt.Errorf("%s was changed or damaged since gmlg wrote it (its SHA-256 does not match its content)", path)
	case err != nil:
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return ck, nil
}
