package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/runinfo"
	"github.com/gmlg/gmlg/kernel"
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
				fmt.Fprintf(stdout, "gmlg %s (backends: %s; default %s)\n", runinfo.Version(),
					strings.Join(kernel.Backends(), ", "), kernel.DefaultBackend().Name())
				return nil
			}
		},
	})
}
