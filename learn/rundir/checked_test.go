package rundir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type checkedParams struct {
	Command string    `json:"command"`
	T       float64   `json:"t_heat"`
	Steps   int       `json:"k_heat"`
	NNZ     int       `json:"nnz_l"` // ≥ 1e6: written as an integer
	Files   []FileSum `json:"files"`
}

func TestWriteReadChecked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "params.json")
	in := checkedParams{Command: "learn", T: 3e-3, Steps: 10, NNZ: 4185902, Files: []FileSum{{Path: "a.npy", Bytes: 3, SHA256: "ab"}}}
	if err := WriteChecked(path, in); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out checkedParams
	if err := ReadChecked(path, &out); err != nil {
		t.Fatal(err)
	}
	if out.T != in.T || out.Steps != in.Steps || out.NNZ != in.NNZ || out.Command != in.Command || len(out.Files) != 1 || out.Files[0] != in.Files[0] {
		t.Errorf("read back %+v, wrote %+v", out, in)
	}
	// The layout may change (here: no indentation, other key order); the
	// members and their values may not.
	flat := []byte(strings.Join(strings.Fields(string(raw)), ""))
	for _, tc := range []struct {
		name string
		raw  []byte
		want error // nil: accepted
	}{
		{"as written", raw, nil},
		{"re-indented", flat, nil},
		{"t edited", bytes.Replace(raw, []byte("0.003"), []byte("0.004"), 1), ErrChanged},
		{"same value, other spelling", bytes.Replace(raw, []byte("0.003"), []byte("3e-3"), 1), nil},
		{"value one rounding apart", bytes.Replace(raw, []byte("0.003"), []byte("0.0030000000000000005"), 1), ErrChanged},
		{"member added", bytes.Replace(raw, []byte("{\n"), []byte("{\n  \"T_HEAT\": 1,\n"), 1), ErrChanged},
		{"nested value edited", bytes.Replace(raw, []byte(`"bytes": 3`), []byte(`"bytes": 4`), 1), ErrChanged},
		{"checksum edited", bytes.Replace(raw, []byte("\n  \"sha256\": \""), []byte("\n  \"sha256\": \"0"), 1), ErrChanged},
		{"checksum removed", bytes.Replace(raw, []byte("\n  \"sha256\""), []byte("\n  \"sha257\""), 1), ErrNoSum},
	} {
		var v checkedParams
		err := DecodeChecked(tc.raw, &v)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	// A one-character change anywhere is refused or leaves the values as
	// they were (a change of layout only).
	for i := range raw {
		for _, c := range []byte{' ', '0', '9', '"', 'x'} {
			if raw[i] == c {
				continue
			}
			mod := bytes.Clone(raw)
			mod[i] = c
			var v checkedParams
			if err := DecodeChecked(mod, &v); err == nil && (v.T != in.T || v.Steps != in.Steps || v.Command != in.Command || v.Files[0] != in.Files[0]) {
				t.Fatalf("byte %d set to %q: accepted with other values %+v", i, c, v)
			}
		}
	}
	// Errors name the file and say what happened.
	os.WriteFile(path, bytes.Replace(raw, []byte("0.003"), []byte("0.03"), 1), 0o644)
	if err := ReadChecked(path, &out); err == nil || !strings.Contains(err.Error(), path+": changed or damaged") {
		t.Errorf("edited file: err = %v", err)
	}
}

func TestMarshalCheckedRefuses(t *testing.T) {
	t.Parallel()
	for _, v := range []any{[]int{1}, map[string]int{SumKey: 1}, 3.5} {
		if _, err := MarshalChecked(v); err == nil {
			t.Errorf("MarshalChecked(%v) succeeded", v)
		}
	}
	for _, raw := range []string{"[1]", "null", "{", `{"sha256": 3}`} {
		var v any
		if err := DecodeChecked([]byte(raw), &v); err == nil {
			t.Errorf("DecodeChecked(%s) succeeded", raw)
		}
	}
}
