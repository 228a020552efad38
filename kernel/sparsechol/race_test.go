//go:build race

package sparsechol

// raceEnabled: allocation counts are meaningless under the race detector.
const raceEnabled = true
