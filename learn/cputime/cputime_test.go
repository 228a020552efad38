package cputime

import (
	"testing"
	"time"
)

// TestUsedCountsWork checks that Used grows by about the CPU time of a busy
// loop and never decreases.
func TestUsedCountsWork(t *testing.T) {
	before := Used()
	if before <= 0 {
		t.Fatalf("Used() = %v at the start of a test, want > 0", before)
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	x := 1.0
	for time.Now().Before(deadline) {
		x = x*1.0000001 + 1e-9
	}
	after := Used()
	// The loop runs on this goroutine for 50 ms of wall time; on a loaded
	// machine it may get less CPU, but it gets some (rusage ticks are
	// at most 10 ms apart here).
	if d := after - before; d <= 0 {
		t.Errorf("Used grew by %v over a 50 ms busy loop (x = %g), want > 0", d, x)
	}
}
