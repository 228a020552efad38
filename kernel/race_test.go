//go:build race

package kernel

// raceEnabled: the race detector makes sync.Pool drop items, so allocation
// counts are meaningless under -race.
const raceEnabled = true
