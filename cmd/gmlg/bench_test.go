package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/bench"
)

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-rows", "9"},
		{"bench", "-rows", "2:50"},
		{"bench", "-rows", "colour:1"},
		{"bench", "-rows", "colour:100000"},
		{"bench", "-iters", "-1"},
		{"bench", "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("gmlg %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), code, errb.String())
		}
	}
}

// TestBenchColourRow runs a colour row at 4³ bins for at most two
// iterations, its child being this test binary as gmlg learn (TestMain),
// and one whose folder is missing, which is skipped with a note.
func TestBenchColourRow(t *testing.T) {
	t.Setenv("GMLG_TEST_MAIN", "1")
	t.Setenv("GMLG_DATA", t.TempDir())
	dir := t.TempDir()
	js, md := filepath.Join(dir, "rep.json"), filepath.Join(dir, "bench.md")
	args := []string{"bench", "-rows", "colour:4,colour:4:seldovia2", "-iters", "2", "-threads", "1", "-json", js, "-markdown", md}
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("gmlg %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	rep, err := bench.ReadJSONFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Colour) != 2 || len(rep.Results) != 0 || rep.Roofline.Threads != 0 {
		t.Fatalf("report: %d colour rows, %d measurements, roofline %+v; want 2, 0 and none", len(rep.Colour), len(rep.Results), rep.Roofline)
	}
	c, skip := rep.Colour[0], rep.Colour[1]
	if !(c.F > 0) || !(c.FExact > 0) || !(c.Seconds > 0) || c.Iterations < 1 || c.Iterations > 2 || c.Evaluations < c.Iterations || c.MaxRSS <= 0 || c.Threads != 1 {
		t.Errorf("colour:4: %+v", c)
	}
	if !strings.HasPrefix(skip.Status, "skipped: no folder ") || skip.Seconds != 0 {
		t.Errorf("colour:4:seldovia2 without its folder: %+v", skip)
	}
	b, err := os.ReadFile(md)
	if err != nil || !strings.Contains(string(b), "### Time to a colour metric") || !strings.Contains(string(b), "| colour:4:seldovia2 |") {
		t.Errorf("markdown (%v):\n%s", err, b)
	}
}
