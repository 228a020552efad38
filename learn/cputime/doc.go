// Package cputime reads the CPU time the process has used, for the
// records that report CPU seconds beside wall seconds (gmlg's run logs,
// the bench package's rows and the benchmarks' cpu-ns/op): on a shared
// machine the CPU time of a piece of work is the steadier figure, and
// beside the wall time it shows how many cores the work kept busy.
//
//	c0 := cputime.Used()
//	work()
//	cpu := cputime.Used() - c0 // user + system time of all threads
package cputime
