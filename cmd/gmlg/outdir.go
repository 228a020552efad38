package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// outFlag declares -o and --out (the same option) with the given default.
func outFlag(fs *flag.FlagSet, dst *string, def, what string) {
	*dst = def
	fs.StringVar(dst, "o", def, what+" (same as --out)")
	fs.StringVar(dst, "out", def, what)
}

// prepareOutDir creates the output folder dir. An existing non-empty folder
// is an error unless force is set; then the files it holds whose names
// match one of the glob patterns are removed (and nothing else, so that
// --force pointed at the wrong folder cannot wipe unrelated files).
func prepareOutDir(dir string, force bool, patterns []string) error {
	if dir == "" {
		return usagef("-o/--out: empty output folder name")
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating the output folder: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("output folder: %w", err)
	case !st.IsDir():
		return fmt.Errorf("output %s exists and is not a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if !force {
		return fmt.Errorf("output folder %s already exists and is not empty; pass --force to overwrite it or choose another -o", dir)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		for _, p := range patterns {
			if ok, _ := filepath.Match(p, e.Name()); ok {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
					return fmt.Errorf("--force: %w", err)
				}
				break
			}
		}
	}
	return nil
}

// quoteArg quotes a path for a shell command line when it needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
