package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestMarshalSorted(t *testing.T) {
	t.Parallel()
	type inner struct {
		Zeta  int     `json:"zeta"`
		Alpha float64 `json:"alpha"`
	}
	v := struct {
		Z     string         `json:"z"`
		A     inner          `json:"a"`
		M     map[string]any `json:"m"`
		Big   int64          `json:"big"`
		Small float64        `json:"small"`
	}{"<html>", inner{3, 0.1}, map[string]any{"b": 1, "a": []int{2, 1}}, 1<<62 + 1, 3e-3}
	got, err := MarshalSorted(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "a": {
    "alpha": 0.1,
    "zeta": 3
  },
  "big": 4611686018427387905,
  "m": {
    "a": [
      2,
      1
    ],
    "b": 1
  },
  "small": 0.003,
  "z": "<html>"
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := MarshalSorted(map[string]float64{"x": math.NaN()}); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN: err = %v", err)
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "params.json")
	if err := WriteJSON(path, map[string]int{"b": 2, "a": 1}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "{\n  \"a\": 1,\n  \"b\": 2\n}\n" {
		t.Errorf("file = %q", b)
	}
	// A failing marshal leaves the old file alone.
	if err := WriteJSON(path, math.Inf(1)); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Inf: err = %v", err)
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Error("old file changed")
	}
}

func TestChecksum(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.npy")
	b := filepath.Join(dir, "b.npy")
	os.WriteFile(a, []byte("abc"), 0o644)
	os.WriteFile(b, nil, 0o644)
	all, sums, err := Checksum([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	// Known SHA-256 digests of "abc" and of the empty string.
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if len(sums) != 2 || sums[0].SHA256 != abc || sums[0].Bytes != 3 || sums[1].SHA256 != empty || sums[1].Path != b {
		t.Fatalf("sums = %+v", sums)
	}
	h := sha256.Sum256([]byte(abc + "  a.npy\n" + empty + "  b.npy\n"))
	if all != hex.EncodeToString(h[:]) {
		t.Errorf("combined = %s", all)
	}
	// The same files elsewhere give the same combined digest; order matters.
	dir2 := t.TempDir()
	os.WriteFile(filepath.Join(dir2, "a.npy"), []byte("abc"), 0o644)
	os.WriteFile(filepath.Join(dir2, "b.npy"), nil, 0o644)
	all2, _, _ := Checksum([]string{filepath.Join(dir2, "a.npy"), filepath.Join(dir2, "b.npy")})
	rev, _, _ := Checksum([]string{b, a})
	if all2 != all || rev == all {
		t.Error("combined digest depends on the folder or ignores the order")
	}
	missing := filepath.Join(dir, "missing.npy")
	if _, _, err := Checksum([]string{a, missing}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing: err = %v", err)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	if v := Version(); v == "" || !strings.Contains(v, "go") {
		t.Errorf("Version() = %q", v)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	if got := versionOf(bi); got != "v0.3.1 (rev 0123456789ab+dirty, go1.26.0)" {
		t.Errorf("versionOf = %q", got)
	}
	if got := versionOf(&debug.BuildInfo{GoVersion: "go1.26.0"}); got != "(devel) (go1.26.0)" {
		t.Errorf("versionOf = %q", got)
	}
}
