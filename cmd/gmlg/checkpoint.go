package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
)

// checkpointName is the checkpoint file of a learn run's folder.
const checkpointName = "checkpoint.gob"

// errNoCheckpoint is returned, wrapped, by readCheckpoint for a missing
// file.
var errNoCheckpoint = errors.New("no checkpoint")

// writeCheckpoint writes ck to path atomically, in learn's encoding.
func writeCheckpoint(path string, ck *learn.Checkpoint) error {
	data, err := learn.EncodeCheckpoint(ck)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return rundir.WriteFile(path, data, 0o644)
}

// readCheckpoint reads, decodes and checks the checkpoint file path; a
// missing file gives an error wrapping errNoCheckpoint.
func readCheckpoint(path string) (*learn.Checkpoint, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %s", errNoCheckpoint, path)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return decodeCheckpoint(path, data)
}

// decodeCheckpoint decodes and checks the content data of the checkpoint
// file path, which errors name.
func decodeCheckpoint(path string, data []byte) (*learn.Checkpoint, error) {
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

// saveExactCheckpoint writes the state st of a run of learn.Minimize to
// path, finished for status when done.
func saveExactCheckpoint(path string, st *learn.State, done bool, status string) error {
	return writeCheckpoint(path, &learn.Checkpoint{Done: done, Status: status,
		CoarseToFineCheckpoint: learn.CoarseToFineCheckpoint{Level: learn.ExactLevel, State: st}})
}
