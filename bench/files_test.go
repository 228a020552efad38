package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpdateMarkdownAndJSONFile checks that UpdateMarkdown puts the table
// between the markers of an existing document, keeping its notes, creates
// a missing one, and that ReadJSONFile reads back a saved report.
func TestUpdateMarkdownAndJSONFile(t *testing.T) {
	dir := t.TempDir()
	rep := &Report{Results: []*Measurement{fakeMeasurement("2:50:20", "go", 0.08, 0.2, 65e6)}, Machine: Machine{CPU: "Test CPU"}}
	doc := filepath.Join(dir, "BENCH.md")
	if err := os.WriteFile(doc, []byte("# notes\n"+BeginMarker+"\nold\n"+EndMarker+"\ntail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateMarkdown(doc, rep, "gmlg bench -quick"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	if !strings.HasPrefix(s, "# notes\n") || !strings.HasSuffix(s, EndMarker+"\ntail\n") || strings.Contains(s, "old") || !strings.Contains(s, "gmlg bench -quick") {
		t.Errorf("updated document:\n%s", s)
	}
	fresh := filepath.Join(dir, "new.md")
	if err := UpdateMarkdown(fresh, rep, "gmlg bench"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(fresh); err != nil || !strings.HasPrefix(string(b), BeginMarker) {
		t.Errorf("new document: %q, %v", b, err)
	}
	bad := filepath.Join(dir, "bad.md")
	if err := os.WriteFile(bad, []byte(EndMarker+"\n"+BeginMarker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateMarkdown(bad, rep, "gmlg bench"); err == nil {
		t.Error("UpdateMarkdown accepted markers in the wrong order")
	}

	js := filepath.Join(dir, "rep.json")
	f, err := os.Create(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := ReadJSONFile(js)
	if err != nil || back.Machine.CPU != "Test CPU" || len(back.Results) != 1 {
		t.Errorf("ReadJSONFile = %+v, %v", back, err)
	}
	if _, err := ReadJSONFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("ReadJSONFile of a missing file succeeded")
	}
}
