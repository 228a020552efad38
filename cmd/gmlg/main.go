// Command gmlg learns the ground metric of optimal transport on a grid or a
// graph from sequences of histograms (Ground Metric Learning on Graphs,
// Heitz et al., JMIV 2020), interpolates with a learned metric and
// transfers colours between images.
//
// Usage:
//
//	gmlg COMMAND [options] [args]
//
// "gmlg help" lists the commands (learn, colorlearn, interp, eval, render,
// synth, sunset, transfer, bench, version), "gmlg help COMMAND" (or "gmlg
// COMMAND -h") the options of one with their defaults and units. A first
// run, which learns the metric of a synthetic dataset back:
//
//	gmlg synth -o data
//	gmlg learn data -o run --t 3e-3 --steps 10 --lambda-s 0.01 --skip-endpoints --max-iter 50
//
// README.md describes the commands, the run folder and its safety rules,
// and the library; docs/method.md states the model and the reference's
// conventions, docs/colour.md the colour commands. Exit status 2 is a
// usage error, 1 a failure, 130 an interrupted run (which prints the
// command that continues it). With GMLG_CPUPROFILE=FILE in the
// environment, a command writes a CPU profile of its run to FILE.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/sparsechol"
	"github.com/gmlg/gmlg/learn/rundir"
)

// command is one subcommand. Each lives in its own file and registers itself
// from an init function.
type command struct {
	name    string
	summary string // one line for "gmlg help"
	usage   string // argument synopsis, e.g. "[options] DIR"
	// setup declares the flags on fs and returns the function that runs the
	// command with the remaining positional arguments.
	setup func(fs *flag.FlagSet) func(ctx context.Context, args []string) error
}

var commands = map[string]*command{}

// aliases are the commands that are another command with options: the
// same code, the options given first (those of the command line may
// follow and repeat them).
var aliases = map[string][]string{
	"colorlearn": {"learn", "--preset", "colour"},
}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("gmlg: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// usageError is a usage error: exit status 2, where a failure's is 1.
type usageError struct{ error }

func init() {
	register(&command{
		name:    "version",
		summary: "print the version and the factorisation backends compiled in",
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q (version takes none)", args[0])
				}
				stdout, _ := outputs(ctx)
				fmt.Fprintf(stdout, "gmlg %s (backends: %s; default %s)\n", rundir.Version(),
					strings.Join(kernel.Backends(), ", "), kernel.DefaultBackend().Name())
				p := runtime.GOMAXPROCS(0)
				fmt.Fprintf(stdout, "%d CPUs, %d threads (GOMAXPROCS; --threads sets it); solves on %s kernels, %d-wide, on a team of up to %d workers\n",
					runtime.NumCPU(), p, sparsechol.SolveKernels(), sparsechol.VectorWidth(), p)
				if b := kernel.BLAS(); b.Core != "" {
					fmt.Fprintf(stdout, "factorisations on OpenBLAS's %s kernels\n", b.Core)
					if a := b.Advice(); a != "" {
						fmt.Fprintf(stdout, "note: %s\n", a)
					}
				}
				return nil
			}
		},
	})
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if os.Getenv("GOGC") == "" {
		// The heap is mostly large float64 blocks that live for the whole
		// run (no pointers to scan, so a collection costs little); the
		// default GOGC = 100 let a 32³ colour run's resident set reach
		// twice that live size, 1.7 GB. GOGC still overrides this.
		debug.SetGCPercent(25)
	}
	stopProfile := startProfile(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}

// startProfile writes a CPU profile of the whole invocation to the file
// named by $GMLG_CPUPROFILE, if set (for `go tool pprof`), and returns the
// function that ends it.
func startProfile(stderr io.Writer) func() {
	path := os.Getenv("GMLG_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := rundir.CreateFile(path, 0)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Abort()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "gmlg: GMLG_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Commit(); err != nil {
			fmt.Fprintf(stderr, "gmlg: GMLG_CPUPROFILE: %v\n", err)
		}
	}
}

// run executes one gmlg invocation and returns the process exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if a, ok := aliases[args[0]]; ok {
			args = append(slices.Clone(a), args[1:]...)
		}
	}
	if len(args) > 1 && args[0] == "help" {
		if a, ok := aliases[args[1]]; ok {
			fmt.Fprintf(stdout, "gmlg %s is gmlg %s:\n\n", args[1], strings.Join(a, " "))
			args = []string{"help", a[0]}
		}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fs := newFlagSet(c, stderr)
				c.setup(fs)
				fs.SetOutput(stdout)
				fs.Usage()
				return 0
			}
			fmt.Fprintf(stderr, "gmlg help: unknown command %q\n\n", args[1])
			printHelp(stderr)
			return 2
		}
		printHelp(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "gmlg: unknown command %q\n\n", args[0])
		printHelp(stderr)
		return 2
	}
	fs := newFlagSet(c, stderr)
	runFn := c.setup(fs)
	positional, err := parseInterleaved(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	ctx = context.WithValue(ctx, stdioKey{}, stdio{stdout, stderr})
	if err = runFn(ctx, positional); err == nil {
		return 0
	}
	code, ee, ue := 1, exitError{}, usageError{}
	if errors.As(err, &ee) {
		err, code = ee.error, ee.code
	} else if errors.As(err, &ue) {
		code = 2
	}
	fmt.Fprintf(stderr, "gmlg %s: %v\n", c.name, err)
	return code
}

// parseInterleaved parses options given before, between or after the
// positional arguments ("gmlg learn DIR --max-iter 20"), which the flag
// package alone stops at; everything after "--" is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// fs.Parse consumed a "--" terminator if rest is shorter than what
		// followed the last option; detect it by looking at the raw args.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(c *command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gmlg "+c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: gmlg %s %s\n\n%s\n\noptions:\n", c.name, c.usage, c.summary)
		printDefaults(fs)
	}
	return fs
}

// printDefaults lists every option with its default, like
// flag.PrintDefaults but showing zero defaults too and spelling long
// options with two dashes (both spellings are accepted).
func printDefaults(fs *flag.FlagSet) {
	w := fs.Output()
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		line := "  " + flagName(f.Name)
		if typ != "" {
			line += " " + typ
		}
		def := f.DefValue
		if typ == "string" || strings.HasSuffix(typ, "string") || def == "" {
			def = fmt.Sprintf("%q", def)
		}
		fmt.Fprintf(w, "%s\n    \t%s (default %s)\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"), def)
	})
}

// flagName spells a flag as the help text does (printDefaults): -o and -h
// with one dash, every other name with two.
func flagName(name string) string {
	if name == "o" || name == "h" {
		return "-" + name
	}
	return "--" + name
}

// flagList spells the names, sorted, as flagName does, joined by ", ".
func flagList(names []string) string {
	var spelled []string
	for _, n := range slices.Sorted(slices.Values(names)) {
		spelled = append(spelled, flagName(n))
	}
	return strings.Join(spelled, ", ")
}

// flagsGiven returns the names of the flags given on fs.
func flagsGiven(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "gmlg — ground metric learning on graphs\n\nusage: gmlg COMMAND [options] [args]\n\ncommands:\n")
	names := slices.Sorted(maps.Keys(commands))
	width := 0
	for _, n := range append(slices.Collect(maps.Keys(aliases)), names...) {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, commands[n].summary)
	}
	for _, n := range slices.Sorted(maps.Keys(aliases)) {
		fmt.Fprintf(w, "  %-*s  the same as gmlg %s\n", width, n, strings.Join(aliases[n], " "))
	}
	fmt.Fprintf(w, "\nRun \"gmlg help COMMAND\" or \"gmlg COMMAND -h\" for the options of a command.\n")
}

// stdio carries the standard output and error of one run to the commands
// (through the context, so that tests can run commands in-process).
type stdio struct{ out, err io.Writer }

type stdioKey struct{}

// outputs returns the standard output and error of the run that ctx belongs
// to (os.Stdout and os.Stderr outside run).
func outputs(ctx context.Context) (stdout, stderr io.Writer) {
	if s, ok := ctx.Value(stdioKey{}).(stdio); ok {
		return s.out, s.err
	}
	return os.Stdout, os.Stderr
}

// exitError is a failure with a specific exit status (e.g. 130 after an
// interruption).
type exitError struct {
	error
	code int
}

// usagef returns a usage error (exit status 2).
func usagef(format string, a ...any) error {
	return usageError{fmt.Errorf(format, a...)}
}
