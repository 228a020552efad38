package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/learn/rundir"
)

// TestResumeRetiredOptions resumes runs whose params.json records an
// option that gmlg no longer has (written as such a run's would be): the
// run continues to its new iteration count, and stderr names the option
// once; a run without it gets no note.
func TestResumeRetiredOptions(t *testing.T) {
	data := tinyData(t, "1")
	frames := filepath.Join(t.TempDir(), "frames")
	colorTestFrames(t, frames, 4)
	color := []string{"colorlearn", "-mode", "fast", "--bins", "4", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
		"-coarse", "0", "--progress=none", "--max-iter", "1"}
	for _, tc := range []struct {
		name   string
		start  []string // the first part, writing into OUT
		member []string // the params.json member set before resuming (nil: none)
		value  any
		resume []string // the resumed part, on OUT
		flag   string   // the option the note names ("" for no note)
	}{
		{"learn --uncorrected", learnArgs(data, "OUT", "--mode", "fast", "--max-iter", "1"), []string{"model", "uncorrected"}, true,
			[]string{"learn", "--resume", "OUT", "--max-iter", "2", "--progress", "none"}, "--uncorrected"},
		{"learn without retired options", learnArgs(data, "OUT", "--mode", "fast", "--max-iter", "1"), nil, nil,
			[]string{"learn", "--resume", "OUT", "--max-iter", "2", "--progress", "none"}, ""},
		{"colorlearn --uncorrected", append(color, "-o", "OUT", frames), []string{"uncorrected"}, true,
			[]string{"colorlearn", "--resume", "OUT", "--max-iter", "2"}, "--uncorrected"},
		{"colorlearn --exact-every", append(color, "-o", "OUT", frames), []string{"exact_every"}, 1.0,
			[]string{"colorlearn", "--resume", "OUT", "--max-iter", "2"}, "--exact-every"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			subst := func(args []string) []string { return replaceArgs(args, "OUT", out) }
			mustGmlg(t, subst(tc.start)...)
			if tc.member != nil {
				setParamsMember(t, filepath.Join(out, "params.json"), tc.member, tc.value)
			}
			code, _, errs := gmlg(t, context.Background(), subst(tc.resume)...)
			if code != 0 {
				t.Fatalf("resume: exit %d, stderr:\n%s", code, errs)
			}
			notes := strings.Count(errs, "which gmlg no longer has")
			switch {
			case tc.flag == "" && notes != 0:
				t.Errorf("stderr %q: want no note", errs)
			case tc.flag != "" && (notes != 1 || !strings.Contains(errs, "started with "+tc.flag+",")):
				t.Errorf("stderr %q: want one note naming %s", errs, tc.flag)
			}
		})
	}
}

// replaceArgs returns args with every old in them replaced by new.
func replaceArgs(args []string, old, new string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, old, new)
	}
	return out
}

// TestResumeWithoutAdjoint resumes fast runs whose params.json has no
// adjoint member, as those written before the adjoint solver was an
// option: they continue with the solver they used, fixed-point, which the
// rewritten params.json records.
func TestResumeWithoutAdjoint(t *testing.T) {
	data := tinyData(t, "1")
	frames := filepath.Join(t.TempDir(), "frames")
	colorTestFrames(t, frames, 4)
	for _, tc := range []struct {
		name   string
		start  []string
		member []string
		resume []string
	}{
		{"learn", learnArgs(data, "OUT", "--mode", "fast", "--max-iter", "1"), []string{"model", "adjoint"},
			[]string{"learn", "--resume", "OUT", "--max-iter", "2", "--progress", "none"}},
		{"colorlearn", []string{"colorlearn", "-mode", "fast", "--bins", "4", "-t", "1e-2", "-steps", "3", "--sinkhorn-iters", "10", "-lambda-s", "0.01",
			"-coarse", "0", "--progress=none", "--max-iter", "1", "-o", "OUT", frames}, []string{"adjoint"},
			[]string{"colorlearn", "--resume", "OUT", "--max-iter", "2", "--progress=none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			mustGmlg(t, replaceArgs(tc.start, "OUT", out)...)
			params := filepath.Join(out, "params.json")
			if got := paramsMember(t, params, tc.member); got != "gmres" {
				t.Fatalf("new run records adjoint %v, want the default gmres", got)
			}
			setParamsMember(t, params, tc.member, nil)
			mustGmlg(t, replaceArgs(tc.resume, "OUT", out)...)
			if got := paramsMember(t, params, tc.member); got != "fixed-point" {
				t.Errorf("resumed run records adjoint %v, want fixed-point", got)
			}
		})
	}
}

// paramsMember returns the member at path (nested objects) of the
// params.json file, nil when absent.
func paramsMember(t *testing.T, file string, path []string) any {
	t.Helper()
	var top map[string]any
	if err := rundir.ReadChecked(file, &top); err != nil {
		t.Fatal(err)
	}
	var v any = top
	for _, name := range path {
		m, _ := v.(map[string]any)
		v = m[name]
	}
	return v
}

// setParamsMember sets the member at path (nested objects) of the
// params.json file to v (nil: removes it) and seals the file again, as
// gmlg would have written it.
func setParamsMember(t *testing.T, file string, path []string, v any) {
	t.Helper()
	var top map[string]any
	if err := rundir.ReadChecked(file, &top); err != nil {
		t.Fatal(err)
	}
	delete(top, rundir.SumKey)
	obj := top
	for _, name := range path[:len(path)-1] {
		obj = obj[name].(map[string]any)
	}
	if key := path[len(path)-1]; v == nil {
		delete(obj, key)
	} else {
		obj[key] = v
	}
	if err := rundir.WriteChecked(file, top); err != nil {
		t.Fatal(err)
	}
}
