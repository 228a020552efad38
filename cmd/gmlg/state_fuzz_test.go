package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/runinfo"
)

// FuzzCheckpoint feeds the checkpoint decoders of learn and colorlearn
// arbitrary files, both as they are and sealed with a valid checksum (so
// that the gob payload behind it is decoded too): they must never panic,
// and whatever they accept must encode, decode and encode again to the
// same bytes.
func FuzzCheckpoint(f *testing.F) {
	learnCk, err := sealGob(checkpointMagic, &checkpoint{State: testState(), Done: true, Status: "converged"})
	if err != nil {
		f.Fatal(err)
	}
	colorCk, err := sealGob(colorCheckpointMagic, &colorFastCheckpoint{Level: 2, State: testState(), PolishBest: testState(), PolishBestF: 1})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{learnCk, colorCk, learnCk[:len(learnCk)/2], nil, []byte(checkpointMagic + "\n")} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, checkpointMagic, decodeCheckpoint)
		roundTrip(t, data, colorCheckpointMagic, colorDecodeCheckpoint)
	})
}

// roundTrip decodes data, as it is and sealed under magic around its
// payload, with decode; whatever decode accepts must encode, decode and
// encode again to the same bytes.
func roundTrip[T any](t *testing.T, data []byte, magic string, decode func(path string, data []byte) (T, error)) {
	t.Helper()
	const path = "fuzz/checkpoint.gob" // only named in errors
	for _, file := range [][]byte{data, sealRaw(magic, afterHeader(data))} {
		ck, err := decode(path, file)
		if err != nil {
			continue
		}
		again, err := sealGob(magic, ck)
		if err != nil {
			t.Fatalf("encoding an accepted checkpoint: %v", err)
		}
		ck2, err := decode(path, again)
		if err != nil {
			t.Fatalf("decoding an accepted checkpoint again: %v", err)
		}
		sameSealed(t, magic, ck, ck2)
	}
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

// sealRaw seals payload under magic as sealGob does, whatever it holds.
func sealRaw(magic string, payload []byte) []byte {
	sum := sha256.Sum256(payload)
	return append([]byte(magic+"\n"+hex.EncodeToString(sum[:])+"\n"), payload...)
}

// sameSealed fails unless a and b seal to the same bytes (a comparison
// that, unlike reflect.DeepEqual, holds for NaN values).
func sameSealed(t *testing.T, magic string, a, b any) {
	t.Helper()
	x, err := sealGob(magic, a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := sealGob(magic, b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Fatalf("an accepted checkpoint does not round-trip:\n%+v\n%+v", a, b)
	}
}

// FuzzParams feeds the params.json readers of learn runs (resume, eval
// --run, interp --run) and colorlearn runs (resume, sunset -run) arbitrary
// files, both as they are and, when they hold a JSON object, rewritten with
// a valid checksum (so that the decoding behind the check runs too): they
// must never panic, and whatever they accept must write and read back to
// the same parameters.
func FuzzParams(f *testing.F) {
	learnSeed, err := runinfo.MarshalChecked(learnParams{Command: "learn", Model: defaultModel(), Optimizer: optParams{MaxIter: 5}})
	if err != nil {
		f.Fatal(err)
	}
	colorSeed, err := runinfo.MarshalChecked(colorLearnParams{Command: "colorlearn", Bins: 4, THeat: 1e-2, Loss: "l2", Files: []string{"a.png"}})
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
			if p, err := colorReadParams(path); err == nil {
				sameParams(t, path, p, func() (any, error) { return colorReadParams(path) })
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
	delete(obj, runinfo.SumKey)
	out, err := runinfo.MarshalChecked(obj)
	if err != nil {
		return nil
	}
	return out
}

// sameParams writes the accepted parameters p to path, reads them back
// with read and fails unless what it returns encodes as p does.
func sameParams(t *testing.T, path string, p any, read func() (any, error)) {
	t.Helper()
	want, err := runinfo.MarshalChecked(p)
	if err != nil {
		t.Fatalf("encoding accepted parameters: %v", err)
	}
	if err := runinfo.WriteChecked(path, p); err != nil {
		t.Fatal(err)
	}
	p2, err := read()
	if err != nil {
		t.Fatalf("reading back accepted parameters: %v", err)
	}
	got, err := runinfo.MarshalChecked(p2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("accepted parameters do not round-trip:\n%s\n%s", want, got)
	}
}
