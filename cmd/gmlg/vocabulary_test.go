package main

import (
	"flag"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestOneVocabulary walks the flags of every command: one name means one
// concept everywhere, with the same default and the same unit (the value's
// name in the help), and no concept keeps an old second name. Three kinds
// of default are the command's own by design, listed in ownDefault: the
// output folder, named after what the command writes; synth's forward
// model, that of the synthetic dataset it makes (which the learn command
// it prints repeats); and bench's model, 0 meaning the paper's setting of
// each row's dimension.
func TestOneVocabulary(t *testing.T) {
	ownDefault := map[[2]string]string{
		{"learn", "o"}: "run", {"synth", "o"}: "synth", {"interp", "o"}: "interp", {"eval", "o"}: "eval",
		{"sunset", "o"}: "sunset", {"transfer", "o"}: "transfer",
		{"synth", "t"}: "0.003", {"synth", "steps"}: "10", {"synth", "frames"}: "5",
		{"bench", "t"}: "0", {"bench", "lambda-s"}: "0",
	}
	type use struct{ cmd, def, unit string }
	uses := map[string][]use{}
	for name, c := range commands {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.setup(fs)
		fs.VisitAll(func(f *flag.Flag) {
			unit, _ := flag.UnquoteUsage(f)
			uses[f.Name] = append(uses[f.Name], use{name, f.DefValue, unit})
		})
	}
	for k, want := range ownDefault {
		if k[1] == "o" {
			ownDefault[[2]string{k[0], "out"}] = want
		}
	}
	// Spellings that named a concept twice: each now has one name.
	for _, old := range []string{"L", "L-ct", "q", "sigma-ct", "sigma-gamma", "quiet"} {
		if u, ok := uses[old]; ok {
			t.Errorf("-%s is a second name of a concept (used by %v)", old, u)
		}
	}
	names := make([]string, 0, len(uses))
	for n := range uses {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var shared []use
		for _, u := range uses[n] {
			if want, own := ownDefault[[2]string{u.cmd, n}]; own {
				if u.def != want {
					t.Errorf("%s --%s: default %q, want %q", u.cmd, n, u.def, want)
				}
				continue
			}
			shared = append(shared, u)
		}
		for _, u := range shared {
			if u.def != shared[0].def || u.unit != shared[0].unit {
				t.Errorf("--%s: %s has default %q in %q, %s has %q in %q", n, shared[0].cmd, shared[0].def, shared[0].unit, u.cmd, u.def, u.unit)
			}
		}
	}
	// The help of every command shows every flag once, spelt as
	// printDefaults spells it.
	for name := range commands {
		_, out, _ := gmlg(t, nil, "help", name)
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") && !slices.Contains([]string{"o", "h"}, strings.Fields(line)[0][1:]) {
				t.Errorf("gmlg help %s: %q is spelt with one dash", name, line)
			}
		}
	}
}
