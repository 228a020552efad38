package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoteRetired checks that only the retired options recorded with a
// value other than false, 0, "" or null get a note, nested members
// included.
func TestNoteRetired(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "params.json")
	raw := `{"model": {"uncorrected": true, "old": 0}, "exact_every": 5, "gone": "", "none": null}`
	if err := os.WriteFile(path, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	err := NoteRetired(&w, path, []Retired{
		{Member: []string{"model", "uncorrected"}, Flag: "--uncorrected", Now: "a"},
		{Member: []string{"model", "old"}, Flag: "--old", Now: "b"},
		{Member: []string{"exact_every"}, Flag: "--exact-every", Now: "c"},
		{Member: []string{"gone"}, Flag: "--gone", Now: "d"},
		{Member: []string{"none"}, Flag: "--none", Now: "e"},
		{Member: []string{"missing", "deep"}, Flag: "--missing", Now: "f"},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "--uncorrected") || !strings.Contains(lines[1], "--exact-every") {
		t.Errorf("notes %q, want --uncorrected and --exact-every only", lines)
	}
	if err := NoteRetired(&w, filepath.Join(t.TempDir(), "none.json"), nil); err == nil {
		t.Error("a missing file gave no error")
	}
}
