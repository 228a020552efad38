package runlog

import (
	"time"

	"github.com/gmlg/gmlg/learn/cputime"
)

// Clock measures the wall and the CPU time (all threads) of a run since it
// was made, for the tables' seconds and cpu_seconds columns.
type Clock struct {
	start time.Time
	cpu0  time.Duration
}

// NewClock returns a clock started now.
func NewClock() *Clock { return &Clock{start: time.Now(), cpu0: cputime.Used()} }

// Elapsed is the wall time since the clock started.
func (c *Clock) Elapsed() time.Duration { return time.Since(c.start) }

// CPU is the process's CPU time since the clock started.
func (c *Clock) CPU() time.Duration { return cputime.Used() - c.cpu0 }
