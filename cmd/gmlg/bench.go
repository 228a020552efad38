package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gmlg/gmlg/bench"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "reproduce the paper's timing table (t_500 and peak memory per row), CHOLMOD vs pure Go, and time colour metrics",
		usage:   "[options]",
		setup:   setupBench,
	})
}

func setupBench(fs *flag.FlagSet) func(context.Context, []string) error {
	rows := fs.String("rows", "all", "rows to run: comma-separated d:n:S, 1-based indices into the paper's table, colour:n (learn's colour run on a synthetic sequence at n bins), colour:n:NAME (on the images of $GMLG_DATA/NAME, by default ../shared/data/NAME), \"all\" (the table, colour:16, colour:32, colour:32:seldovia2) or \"quick\"")
	backends := fs.String("backends", "", "comma-separated factorisation backends, side by side (default: cholmod,go,go-purego as compiled in)")
	iters := fs.Int("iters", 0, "L-BFGS iterations per measurement; 0: time one evaluation and assume 1.4 evaluations per iteration (colour rows: at most this many, 0 = the preset's)")
	quick := fs.Bool("quick", false, "CI mode: the two smallest rows, one evaluation each (overrides -rows and -iters)")
	threads := fs.Int("threads", 0, "number of CPU `threads` (GOMAXPROCS) of the measuring processes; 0 = inherit; at most "+fmt.Sprint(limits.MaxThreadsPerCPU)+" per CPU")
	md := fs.String("markdown", "", "also write the markdown table into this file (between the generated-table markers; other text is kept)")
	tHeat := fs.Float64("t", 0, "diffusion time t_heat (0: 3e-3 in 2-D, 1e-3 in 3-D, the paper's settings)")
	lambdaS := fs.Float64("lambda-s", 0, "λ_s (0: 0.03 in 2-D, 1 in 3-D, as in the README runs; negative disables)")
	jsonOut := fs.String("json", "", "also write the raw report as JSON to this file")
	from := fs.String("from", "", "do not measure: render the report saved by -json in this file (with -markdown to update the table)")
	store := fs.Bool("store", false, "keep every heat sub-step for the adjoint (the reference's memory strategy) instead of recomputing")
	return func(ctx context.Context, args []string) error {
		if ok, err := bench.ChildFromEnv(ctx, os.Stdout); ok {
			return err
		}
		if len(args) > 0 {
			return usagef("unexpected arguments %q", args)
		}
		if err := checkThreads("-threads", *threads); err != nil {
			return err
		}
		opt := &bench.Options{Iters: *iters, Threads: *threads, Log: os.Stderr, Roofline: true,
			Spec: bench.Spec{T: *tHeat, LambdaS: *lambdaS, Store: *store}}
		var err error
		if *quick {
			opt.Rows, opt.Iters = bench.QuickRows, -1
		} else if opt.Rows, err = bench.ParseRows(*rows); err != nil {
			return usageError{err}
		}
		if *backends != "" {
			opt.Backends = strings.Split(*backends, ",")
		}
		if *from == "" {
			for _, r := range opt.Rows {
				check := checkBenchRow
				if r.Colour != "" {
					check = checkColourRow
				}
				if err := check(opt.Spec, r); err != nil {
					return err
				}
			}
		}
		switch {
		case *iters < 0:
			return usagef("-iters must not be negative")
		case *iters == 0:
			opt.Iters = -1
		}
		var rep *bench.Report
		var runErr error
		command := "gmlg bench " + strings.Join(os.Args[2:], " ")
		if *from != "" {
			if rep, err = bench.ReadJSONFile(*from); err != nil {
				return err
			}
			command = rep.Command
		} else {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find own executable for the child processes: %w", err)
			}
			opt.Command = func(ctx context.Context, args ...string) *exec.Cmd { return exec.CommandContext(ctx, exe, args...) }
			rep, runErr = bench.Run(ctx, opt)
			if rep == nil {
				return runErr
			}
			rep.Machine.ProgramVersion = rundir.Version()
			rep.Command = command
			if *jsonOut != "" {
				if err := rundir.Write(*jsonOut, 0o644, rep.WriteJSON); err != nil {
					return err
				}
			}
		}
		if err := bench.WriteText(os.Stdout, rep); err != nil {
			return err
		}
		if *md != "" && len(rep.Results)+len(rep.Colour) > 0 {
			if err := bench.UpdateMarkdown(*md, rep, command); err != nil {
				return err
			}
		}
		return runErr
	}
}

// checkColourRow checks, before its child runs, the colour row r of gmlg
// bench as gmlg learn checks its run: the bins, and the memory of the
// fast-mode objective of the colour preset on the row's images (the
// synthetic sequence's, or those of a folder that exists).
func checkColourRow(_ bench.Spec, r bench.Row) error {
	where := "-rows " + r.String()
	if err := checkBins(where, r.N); err != nil {
		return err
	}
	frames := bench.ColourFrames
	if r.Colour != bench.Synthetic {
		dir, ok := r.Images()
		if !ok {
			return nil // bench.Run skips the row
		}
		files, err := dataset.ListImages(dir, "")
		if err != nil {
			return usagef("%s: %v", where, err)
		}
		if len(files) < runlog.MinColourImages {
			return usagef("%s: %s holds %d images, a colour run needs at least %d", where, dir, len(files), runlog.MinColourImages)
		}
		frames = len(files)
	}
	size := limits.Objective{Dim: 3, Side: r.N, Fast: true, Anderson: runlog.DefaultModel().Anderson}
	size.Interior, size.Endpoints = limits.Frames(frames)
	return flagLimit(size.Check("the colour run of "+where, "choose fewer bins"))
}
