//go:build !unix

package main

import "time"

// processCPU is not measured on this system: it returns 0.
func processCPU() time.Duration { return 0 }
