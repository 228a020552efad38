//go:build !race

package sparsechol

const raceEnabled = false
