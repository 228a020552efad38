package main

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/runlog"
)

// framesNamed writes a positive 6×6 frame under each name into a new
// folder.
func framesNamed(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for k, name := range names {
		a := blob(6, 6)
		a.Data[k%36] += 1
		if err := dataset.WriteNpyFile(filepath.Join(dir, name), a); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLearnFrameOrder checks that learn takes frames in the numeric order
// of their names (array-9 is the tenth frame, array-11 the last pole),
// warns about missing numbers and records them in params.json, and refuses
// two files with the same number.
func TestLearnFrameOrder(t *testing.T) {
	t.Parallel()
	var upTo11 []string
	for k := range 12 {
		upTo11 = append(upTo11, fmt.Sprintf("array-%d.npy", k))
	}
	for _, tc := range []struct {
		name  string
		files []string
		code  int
		order []string // basenames of params.json's files, in order
		gaps  []string // params.json's data.gaps, and warnings on stderr
		err   []string // stderr fragments of a failure
	}{
		{"array-0 to array-11", upTo11, 0, upTo11, nil, nil},
		{"gap", []string{"array-05.npy", "array-00.npy", "array-02.npy", "array-01.npy"}, 0,
			[]string{"array-00.npy", "array-01.npy", "array-02.npy", "array-05.npy"}, []string{"frames 03, 04 missing"}, nil},
		{"two sequences with gaps", []string{"array-0-0.npy", "array-0-1.npy", "array-0-3.npy", "array-1-00.npy", "array-1-01.npy", "array-1-04.npy"}, 0,
			[]string{"array-0-0.npy", "array-0-1.npy", "array-0-3.npy", "array-1-00.npy", "array-1-01.npy", "array-1-04.npy"},
			[]string{"sequence 0: frame 2 missing", "sequence 1: frames 02, 03 missing"}, nil},
		{"duplicate", []string{"array-0.npy", "array-1.npy", "array-01.npy", "array-2.npy"}, 1, nil, nil,
			[]string{"array-01.npy", "array-1.npy", "both frame 1"}},
		{"duplicate sequence spelling", []string{"array-00-00.npy", "array-00-01.npy", "array-0-1.npy", "array-00-02.npy"}, 1, nil, nil,
			[]string{"array-00-01.npy", "array-0-1.npy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := framesNamed(t, tc.files...)
			runDir := filepath.Join(t.TempDir(), "run")
			code, _, errs := gmlg(t, context.Background(), learnArgs(data, runDir, "--max-iter", "1")...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
			for _, w := range tc.err {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, errs)
				}
			}
			if code != 0 {
				return
			}
			var p runlog.Record
			readJSON(t, filepath.Join(runDir, "params.json"), &p)
			var got []string
			for _, f := range p.Data.Files {
				got = append(got, filepath.Base(f.Path))
			}
			if !reflect.DeepEqual(got, tc.order) {
				t.Errorf("params.json files %q, want %q", got, tc.order)
			}
			if !reflect.DeepEqual(p.Data.Gaps, tc.gaps) {
				t.Errorf("params.json gaps %q, want %q", p.Data.Gaps, tc.gaps)
			}
			for _, g := range tc.gaps {
				if !strings.Contains(errs, "warning: "+data+": "+g) {
					t.Errorf("stderr does not warn %q:\n%s", g, errs)
				}
			}
			if len(tc.gaps) == 0 && strings.Contains(errs, "missing") {
				t.Errorf("stderr warns of a gap:\n%s", errs)
			}
		})
	}
}
