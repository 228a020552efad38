package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/gmlg/gmlg/learn"
)

// checkpointName is the checkpoint file of a learn run's folder, which
// learn.Run's observer writes.
const checkpointName = "checkpoint.gob"

// errNoCheckpoint is returned, wrapped, by readCheckpoint for a missing
// file.
var errNoCheckpoint = errors.New("no checkpoint")

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
