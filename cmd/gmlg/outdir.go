package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gmlg/gmlg/learn/rundir"
)

// outFlag declares -o and --out (the same option) with the given default.
func outFlag(fs *flag.FlagSet, dst *string, def, what string) {
	*dst = def
	what += ", made if needed; one that is not empty is refused unless --force"
	fs.StringVar(dst, "o", def, what+" (same as --out)")
	fs.StringVar(dst, "out", def, what)
}

// The kinds of folder the commands write (see package rundir): each
// command and the glob patterns of every file it writes there, so that
// --force can later remove exactly that output.
var (
	learnSpec      = rundir.Spec{Command: "learn", Outputs: learnOutputs}
	synthSpec      = rundir.Spec{Command: "synth", Outputs: synthOutputs}
	interpSpec     = rundir.Spec{Command: "interp", Outputs: interpOutputs}
	evalSpec       = rundir.Spec{Command: "eval", Outputs: evalOutputs}
	colorLearnSpec = rundir.Spec{Command: "colorlearn", Outputs: colorLearnOutputs}
	transferSpec   = rundir.Spec{Command: "transfer", Outputs: colorTransferOutputs}
	sunsetSpec     = rundir.Spec{Command: "sunset", Outputs: colorSunsetOutputs}
)

// takeOutDir takes the output folder dir for a new output of spec
// (rundir.Create): it holds the folder's lock until the returned Dir is
// closed, refuses a folder that is not empty unless force, and with force
// removes the previous gmlg output there, never another file. Notices (a
// stale lock taken over, temporary files removed) go to the run's stderr.
func takeOutDir(ctx context.Context, dir string, spec rundir.Spec, force bool) (*rundir.Dir, error) {
	if dir == "" {
		return nil, usagef("-o/--out: empty output folder name")
	}
	_, stderr := outputs(ctx)
	return rundir.Create(dir, spec, rundir.Options{Force: force, Notices: stderr})
}

// openRunDir takes the existing folder dir, which must hold the output of
// one of the accepted commands, for holder to continue or redraw it
// (rundir.Open). A folder without a manifest counts as the output of the
// command that its params.json names.
func openRunDir(ctx context.Context, dir, holder string, accept ...rundir.Spec) (*rundir.Dir, error) {
	_, stderr := outputs(ctx)
	return rundir.Open(dir, accept, rundir.Options{Holder: holder, Notices: stderr, Detect: paramsCommand})
}

// takeColorRunDir takes colorlearn's run folder: the existing run with
// --resume, else a new one (see takeOutDir).
func takeColorRunDir(ctx context.Context, out, resume string, force bool) (*rundir.Dir, error) {
	if resume != "" {
		d, err := openRunDir(ctx, out, "gmlg colorlearn --resume", colorLearnSpec)
		if err != nil {
			return nil, fmt.Errorf("--resume: %w", err)
		}
		return d, nil
	}
	return takeOutDir(ctx, out, colorLearnSpec, force)
}

// paramsCommand returns the command named by dir's params.json, "" when
// there is none.
func paramsCommand(dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, "params.json"))
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

// quoteArg quotes a path for a shell command line when it needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
