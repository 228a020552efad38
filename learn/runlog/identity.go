package runlog

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gmlg/gmlg/learn/rundir"
)

// Identity is the identity of the learning run r records
// (learn.RunSettings.Run): the canonical encoding of every setting that
// makes its result, and of its data's checksums. What a resumed run may
// change (ResumeFlags: the iteration budget, the threads, how the work is
// done) and what the run adds as it goes (the version, the kernel it
// factorised, the resume count) are left out.
func (r Record) Identity() ([]byte, error) {
	r.Version, r.Resumed, r.Kernel = "", 0, KernelInfo{}
	r.Optimizer.MaxIter = 0
	r.Model.Threads, r.Model.Adjoint, r.Model.Anderson, r.Model.Store = 0, "", 0, false
	return rundir.MarshalSorted(r)
}

// ResumeFlags are the options that a resumed run may be given: they change
// how the run works or how long, not the model it learns (Identity leaves
// them out).
var ResumeFlags = []string{"max-iter", "threads", "progress", "store", "adjoint", "anderson"}

// CheckRun returns nil when the checkpoint's identity got (learn.Checkpoint's
// Run) is want, the identity of the run in dir; else an error naming the
// checkpoint file and the settings that differ.
func CheckRun(path string, got, want []byte) error {
	if string(got) == string(want) {
		return nil
	}
	var a, b map[string]any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil {
		return fmt.Errorf("%s belongs to another run (it records no settings gmlg can read); start the run again with --force", path)
	}
	fa, fb := map[string]string{}, map[string]string{}
	flatten(fa, "", a)
	flatten(fb, "", b)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(union(fa, fb))) {
		if fa[k] != fb[k] {
			diffs = append(diffs, fmt.Sprintf("%s is %s there and %s in params.json", k, orNone(fa[k]), orNone(fb[k])))
		}
	}
	if len(diffs) > 6 {
		diffs = append(diffs[:6], fmt.Sprintf("and %d more", len(diffs)-6))
	}
	return fmt.Errorf("%s belongs to another run: %s; it cannot continue this one", path, strings.Join(diffs, "; "))
}

// flatten sets out[path] to the JSON text of every scalar of v, its path
// the object keys and array indices that lead to it, joined by dots.
func flatten(out map[string]string, path string, v any) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			flatten(out, join(k), e)
		}
	case []any:
		for i, e := range v {
			flatten(out, join(fmt.Sprint(i)), e)
		}
	default:
		raw, _ := json.Marshal(v)
		out[path] = string(raw)
	}
}

// union returns a map holding the keys of a and b.
func union(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// orNone is v, or "absent" for a missing value.
func orNone(v string) string {
	if v == "" {
		return "absent"
	}
	return v
}
