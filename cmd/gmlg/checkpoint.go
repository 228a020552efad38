package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/atomicfile"
	"github.com/gmlg/gmlg/learn"
)

// checkpointName is the checkpoint file of a run folder.
const checkpointName = "checkpoint.gob"

// checkpointMagic identifies the checkpoint format; bump it when the
// layout changes.
const checkpointMagic = "gmlg-checkpoint-1"

// checkpoint is the complete state of a run: resuming from it continues the
// optimisation bit for bit as if it had not stopped.
type checkpoint struct {
	Magic  string
	State  *learn.State
	Done   bool   // the run finished (a convergence test or max-iter)
	Status string // why it finished
}

// writeCheckpoint writes ck atomically (gob encoding, exact for float64).
func writeCheckpoint(path string, ck *checkpoint) error {
	ck.Magic = checkpointMagic
	return gobWriteFile(path, ck)
}

// gobWriteFile writes the gob encoding of v to path atomically.
func gobWriteFile(path string, v any) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}

// readCheckpoint reads and checks a checkpoint.
func readCheckpoint(path string) (*checkpoint, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("no checkpoint: %w", err)
	}
	var ck checkpoint
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&ck); err != nil {
		return nil, fmt.Errorf("checkpoint %s is corrupt: %v", path, err)
	}
	if ck.Magic != checkpointMagic {
		return nil, fmt.Errorf("checkpoint %s: unknown format %q (want %q)", path, ck.Magic, checkpointMagic)
	}
	st := ck.State
	if st == nil || len(st.X) == 0 || len(st.G) != len(st.X) || len(st.S) != len(st.Y) || len(st.Rho) != len(st.S) || len(st.Losses) != st.Iter {
		return nil, fmt.Errorf("checkpoint %s is inconsistent", path)
	}
	for k := range st.S {
		if len(st.S[k]) != len(st.X) || len(st.Y[k]) != len(st.X) {
			return nil, fmt.Errorf("checkpoint %s is inconsistent", path)
		}
	}
	return &ck, nil
}
