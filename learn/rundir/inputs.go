package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CheckInputs refuses the output folder out when it is one of inputs, lies
// inside one or contains one (ErrInput, naming both), comparing the paths
// with every link resolved; empty inputs are skipped. Create and Open
// check Options.Inputs with it; a command that learns its inputs only
// from a record inside a folder it has opened checks them with it then.
func CheckInputs(out string, inputs []string) error {
	o, err := resolve(out)
	if err != nil {
		return fmt.Errorf("output folder %s: %w", out, err)
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		i, err := resolve(in)
		if err != nil {
			return fmt.Errorf("input %s: %w", in, err)
		}
		how := ""
		switch {
		case o == i:
			how = "is"
		case within(o, i):
			how = "lies inside"
		case within(i, o):
			how = "contains"
		default:
			continue
		}
		return &Error{Kind: ErrInput, msg: fmt.Sprintf("the output folder %s %s the input %s: gmlg never writes where it reads; choose another -o",
			out, how, in)}
	}
	return nil
}

// resolve returns the absolute path p with every link resolved: those of
// its longest existing prefix, the rest (not yet made) taken as written.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Lstat(cur); serr == nil {
				return "", err // a loop of links, or a folder we may not read
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// within reports whether the path a lies strictly inside the folder b
// (both clean and absolute).
func within(a, b string) bool {
	rel, err := filepath.Rel(b, a)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
