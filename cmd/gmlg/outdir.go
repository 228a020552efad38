package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// outFlags declares -o and --out (the same option) with the given
// default, and --force.
func outFlags(fs *flag.FlagSet, out *string, force *bool, def, what string) {
	*out = def
	what += ", made if needed; one that is not empty is refused unless --force"
	fs.StringVar(out, "o", def, what+" (same as --out)")
	fs.StringVar(out, "out", def, what)
	fs.BoolVar(force, "force", false, "write into a folder that is not empty: the previous gmlg output there is removed as a whole; other files stay and are never overwritten")
}

// binsFlag declares --bins, the colour histograms' bins per channel.
func binsFlag(fs *flag.FlagSet, dst *int) {
	fs.IntVar(dst, "bins", 16, "colour histograms: `bins` n per channel (the n³ colour cube), at most "+fmt.Sprint(limits.MaxBins))
}

// dropSaturatedFlag declares --drop-saturated.
func dropSaturatedFlag(fs *flag.FlagSet, dst *bool) {
	fs.BoolVar(dst, "drop-saturated", false, "colour histograms: drop the pixels with a channel equal to 255, as the reference does (its histograms, bitwise)")
}

// learnSpec and the other commands' specs are the kinds of folder gmlg
// writes (see package rundir): each command and the glob patterns of
// every file it writes there. A new output may replace (--force) the
// output of any of them, exactly the files their own patterns name.
var learnSpec = rundir.Spec{Command: "learn", Outputs: runlog.Outputs}

var allSpecs = []rundir.Spec{learnSpec, synthSpec, interpSpec, evalSpec, transferSpec, sunsetSpec}

// takeOutDir takes the output folder dir for a new output of spec
// (rundir.Create): it holds the folder's lock until the returned Dir is
// closed, refuses a folder that is not empty unless force, and with force
// removes the previous gmlg output there, never another file. A folder
// that is, contains or lies inside one of inputs (the files and folders
// the command reads) is a usage error naming both. Notices (a stale lock
// taken over, temporary files removed) go to the run's stderr.
//
// A non-nil record (the command's settings, its Command and Version set)
// is written into the folder's params.json at once.
func takeOutDir(ctx context.Context, dir string, spec rundir.Spec, force bool, record any, inputs ...string) (*rundir.Dir, error) {
	if dir == "" {
		return nil, usagef("-o/--out: empty output folder name")
	}
	_, stderr := outputs(ctx)
	d, err := rundir.Create(dir, spec, rundir.Options{Force: force, Notices: stderr, Kinds: allSpecs, Inputs: inputs})
	if err != nil {
		return nil, inputUsage(err)
	}
	if record != nil {
		if err := rundir.WriteChecked(filepath.Join(dir, "params.json"), record); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// openRunDir takes the existing folder dir, which must hold the output of
// one of the accepted commands, for holder to continue or redraw it
// (rundir.Open). A folder without a manifest counts as the output of the
// command that its params.json names.
func openRunDir(ctx context.Context, dir, holder string, accept ...rundir.Spec) (*rundir.Dir, error) {
	_, stderr := outputs(ctx)
	return rundir.Open(dir, accept, rundir.Options{Holder: holder, Notices: stderr, Detect: paramsCommand})
}

// checkInputs refuses, as takeOutDir does, a run folder that overlaps the
// inputs its record names (read once the folder is held).
func checkInputs(dir string, inputs ...string) error {
	return inputUsage(rundir.CheckInputs(dir, inputs))
}

// inputUsage makes a folder that overlaps an input a usage error.
func inputUsage(err error) error {
	if errors.Is(err, rundir.ErrInput) {
		return usageError{err}
	}
	return err
}

// paramsCommand returns the command named by dir's params.json, "" when
// there is none.
func paramsCommand(dir string) string {
	raw, err := rundir.ReadInput(filepath.Join(dir, "params.json"))
	if err != nil {
		return ""
	}
	var head struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return ""
	}
	return head.Command
}
