package rundir

import (
	"encoding/json"
	"fmt"
	"io"
)

// Retired is a member of a params.json file that records an option the
// program no longer has. A run that recorded one still resumes: such
// options chose how the work was done, not the model, so the resumed run
// goes on without it after saying so.
type Retired struct {
	Member []string // the member's path from the top object, e.g. {"model", "uncorrected"}
	Flag   string   // the option as the user spelt it, e.g. "--uncorrected"
	Now    string   // what the resumed run does instead
}

// NoteRetired writes to w one line per option of retired that the
// params.json file at path records with a value other than false, 0, ""
// or null. The file is expected to have been read and checked before; an
// unreadable one is an error here too.
func NoteRetired(w io.Writer, path string, retired []Retired) error {
	raw, err := ReadInput(path)
	if err != nil {
		return err
	}
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, r := range retired {
		if v := member(top, r.Member); v != nil && v != false && v != 0.0 && v != "" {
			fmt.Fprintf(w, "note: the run was started with %s, which gmlg no longer has; it continues without it (%s)\n", r.Flag, r.Now)
		}
	}
	return nil
}

// member returns the member of obj at path (nested objects), or nil.
func member(obj map[string]any, path []string) any {
	var v any = obj
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[name]
	}
	return v
}
