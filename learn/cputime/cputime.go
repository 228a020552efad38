package cputime

import (
	"syscall"
	"time"
)

// Used returns the CPU time (user + system, all threads) the process has
// used so far, 0 where getrusage fails. Differences of two calls measure
// the CPU time of the work between them.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
