package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// FuzzCheckpoint feeds the checkpoint decoder arbitrary files, both as
// they are and sealed with a valid checksum under each layout's first line
// (so that the gob payload behind it is decoded too): it must never panic,
// and whatever it accepts must encode, decode and encode again to the same
// bytes.
func FuzzCheckpoint(f *testing.F) {
	learnCk, err := learn.EncodeCheckpoint(&learn.Checkpoint{Done: true, Status: "converged",
		Level: 0, State: testState()})
	if err != nil {
		f.Fatal(err)
	}
	colorCk, err := learn.EncodeCheckpoint(&learn.Checkpoint{
		Level: 2, State: testState(), PolishBest: testState(), PolishBestF: 1})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{learnCk, colorCk, learnCk[:len(learnCk)/2], nil, []byte(firstLine(learnCk) + "\n")} {
		f.Add(seed)
	}
	// The first line of a checkpoint, and another.
	heads := []string{firstLine(learnCk), "gmlg-checkpoint-0"}
	f.Fuzz(func(t *testing.T, data []byte) {
		files := [][]byte{data}
		for _, head := range heads {
			files = append(files, sealRaw(head, afterHeader(data)))
		}
		for _, file := range files {
			roundTrip(t, file)
		}
	})
}

// roundTrip decodes file; whatever is accepted must encode, decode and
// encode again to the same bytes.
func roundTrip(t *testing.T, file []byte) {
	t.Helper()
	const path = "fuzz/checkpoint.gob" // only named in errors
	ck, err := runlog.DecodeCheckpointFile(path, file)
	if err != nil {
		return
	}
	again, err := learn.EncodeCheckpoint(ck)
	if err != nil {
		t.Fatalf("encoding an accepted checkpoint: %v", err)
	}
	ck2, err := runlog.DecodeCheckpointFile(path, again)
	if err != nil {
		t.Fatalf("decoding an accepted checkpoint again: %v", err)
	}
	third, err := learn.EncodeCheckpoint(ck2)
	if err != nil {
		t.Fatal(err)
	}
	// Comparing encodings, unlike reflect.DeepEqual, holds for NaN values.
	if !bytes.Equal(again, third) {
		t.Fatalf("an accepted checkpoint does not round-trip:\n%+v\n%+v", ck, ck2)
	}
}

// firstLine is data up to its first newline.
func firstLine(data []byte) string {
	head, _, _ := bytes.Cut(data, []byte{'\n'})
	return string(head)
}

// afterHeader is data without the two header lines of a sealed file, or
// all of data when it has none: the payload a seed carries.
func afterHeader(data []byte) []byte {
	if _, rest, ok := bytes.Cut(data, []byte{'\n'}); ok {
		if _, payload, ok := bytes.Cut(rest, []byte{'\n'}); ok {
			return payload
		}
	}
	return data
}

// sealRaw seals payload under the first line head as learn's encoding
// does, whatever it holds.
func sealRaw(head string, payload []byte) []byte {
	sum := sha256.Sum256(payload)
	return append([]byte(head+"\n"+hex.EncodeToString(sum[:])+"\n"), payload...)
}

// FuzzParams feeds the params.json reader of learning runs (resume, eval
// --run, interp --run, sunset --run) arbitrary files, both as they are and, when they hold a JSON object, rewritten with
// a valid checksum (so that the decoding behind the check runs too): they
// must never panic, and whatever they accept must write and read back to
// the same parameters.
func FuzzParams(f *testing.F) {
	learnSeed, err := rundir.MarshalChecked(runlog.Record{Command: "learn", Model: runlog.DefaultModel(), Optimizer: runlog.Optimizer{MaxIter: 5}})
	if err != nil {
		f.Fatal(err)
	}
	colorSeed, err := rundir.MarshalChecked(runlog.Record{Command: "learn", Data: runlog.Data{Kind: runlog.Colour, Bins: 4},
		Model: runlog.DefaultModel(), Optimizer: runlog.Optimizer{MaxIter: 5}})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(learnSeed), string(colorSeed), `{"command": "learn", "sha256": ""}`, "[]", "", `{"t": 1e999}`} {
		f.Add([]byte(seed))
	}
	// One folder for every input of this process: a new one per input
	// would cost more than the reading being fuzzed.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, raw []byte) {
		path := filepath.Join(dir, "params.json")
		for _, file := range [][]byte{raw, resealJSON(raw)} {
			if file == nil {
				continue
			}
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			if p, err := readRunParams(dir); err == nil {
				sameParams(t, path, p, func() (any, error) { return readRunParams(dir) })
			}
		}
	})
}

// resealJSON returns raw's JSON object written again with a valid checksum
// (any "sha256" member dropped first), or nil when raw holds no object.
func resealJSON(raw []byte) []byte {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil
	}
	delete(obj, rundir.SumKey)
	out, err := rundir.MarshalChecked(obj)
	if err != nil {
		return nil
	}
	return out
}

// sameParams writes the accepted parameters p to path, reads them back
// with read and fails unless what it returns encodes as p does.
func sameParams(t *testing.T, path string, p any, read func() (any, error)) {
	t.Helper()
	want, err := rundir.MarshalChecked(p)
	if err != nil {
		t.Fatalf("encoding accepted parameters: %v", err)
	}
	if err := rundir.WriteChecked(path, p); err != nil {
		t.Fatal(err)
	}
	p2, err := read()
	if err != nil {
		t.Fatalf("reading back accepted parameters: %v", err)
	}
	got, err := rundir.MarshalChecked(p2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("accepted parameters do not round-trip:\n%s\n%s", want, got)
	}
}
