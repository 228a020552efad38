package main

import (
	"flag"
	"os"
	"sort"
	"strings"
)

// A resumed run (learn --resume RUN_DIR, colorlearn --resume RUN_DIR) takes
// every setting from the run's params.json; the command line may only give
// the settings that cannot change its result, such as a larger iteration
// count, the number of threads or how progress is shown. Both commands
// check this with checkResumeFlags and print resumeCommand when they stop
// early.

// flagName spells a flag as the help text does (printDefaults): -o and -h
// with one dash, every other name with two.
func flagName(name string) string {
	if name == "o" || name == "h" {
		return "-" + name
	}
	return "--" + name
}

// flagList spells the sorted names as flagName does, joined by ", ".
func flagList(names []string) string {
	sort.Strings(names)
	spelled := make([]string, len(names))
	for i, n := range names {
		spelled[i] = flagName(n)
	}
	return strings.Join(spelled, ", ")
}

// checkResumeFlags returns a usage error naming every flag given on fs that
// is not in allowed (the "resume" flag itself is always allowed), or nil.
func checkResumeFlags(fs *flag.FlagSet, allowed []string) error {
	ok := map[string]bool{"resume": true}
	for _, name := range allowed {
		ok[name] = true
	}
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		if !ok[f.Name] {
			bad = append(bad, f.Name)
		}
	})
	if len(bad) == 0 {
		return nil
	}
	return usagef("%s cannot be given with --resume: the run's params.json sets every setting, and only %s may change",
		flagList(bad), flagList(append([]string(nil), allowed...)))
}

// flagsGiven returns the names of the flags given on fs.
func flagsGiven(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// programName is the name the user ran gmlg by (os.Args[0], e.g.
// bin/gmlg), so that a printed command works when pasted; "gmlg" when
// unknown.
func programName() string {
	if len(os.Args) > 0 && os.Args[0] != "" {
		return os.Args[0]
	}
	return "gmlg"
}

// resumeCommand is the shell command that continues the run of command cmd
// in dir, quoted for the shell.
func resumeCommand(cmd, dir string) string {
	return quoteArg(programName()) + " " + cmd + " --resume " + quoteArg(dir)
}
