package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strings"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/kernel/sparsechol"
	"github.com/gmlg/gmlg/learn/rundir"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the version and the factorisation backends compiled in",
		usage:   "",
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
				return nil
			}
		},
	})
}
