package main

import "path/filepath"

// modelSource says where the settings of a barycenter model come from:
// "flags" when any of the named flags was given on the command line, else
// the run's params.json, else "defaults". interp, sunset and eval print it
// so that a metric is never silently rendered under another model than the
// one it was learned with.
func modelSource(run string, set map[string]bool, names ...string) string {
	for _, n := range names {
		if set[n] {
			return "flags"
		}
	}
	if run != "" {
		return "from " + filepath.Join(run, "params.json")
	}
	return "defaults"
}
