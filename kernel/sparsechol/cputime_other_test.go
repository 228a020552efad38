//go:build !linux

package sparsechol

// processCPU is unavailable here; the cpu-ns/op metric reads 0.
func processCPU() int64 { return 0 }
