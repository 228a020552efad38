package limits

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gmlg/gmlg/learn/dataset"
)

// The fixed limits. Each error that reports one says how to stay within it.
const (
	// MaxThreadsPerCPU bounds --threads per CPU: more only adds scheduling
	// overhead, and a huge value makes the Go runtime and the BLAS library
	// start more threads than the system allows.
	MaxThreadsPerCPU = 16
	// MaxFrames bounds the number of frames an interpolation writes.
	MaxFrames = 1000
	// MaxBins bounds the colour histogram bins per channel: images have 8
	// bits per channel, so more bins than 256 stay empty.
	MaxBins = 256
)

// MemoryEnv is the environment variable that sets the memory budget.
const MemoryEnv = "GMLG_MAX_MEMORY"

// Error is a size beyond a limit.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, a ...any) *Error { return &Error{fmt.Sprintf(format, a...)} }

// MaxThreads returns the largest accepted thread count on this machine.
func MaxThreads() int { return MaxThreadsPerCPU * runtime.NumCPU() }

// Threads checks the thread count n given with the flag named flagName.
func Threads(flagName string, n int) error {
	if n < 0 {
		return errorf("%s %d: must be ≥ 0 (0 = every core)", flagName, n)
	}
	if n > MaxThreads() {
		return errorf("%s %d: at most %d (%d × the %d CPUs here); pass a smaller %s",
			flagName, n, MaxThreads(), MaxThreadsPerCPU, runtime.NumCPU(), flagName)
	}
	return nil
}

// Count checks a count v given with the flag flagName against limit; what
// names the counted thing ("frames").
func Count(flagName string, v, limit int, what string) error {
	if v > limit {
		return errorf("%s %d: at most %d %s; pass a smaller %s", flagName, v, limit, what, flagName)
	}
	return nil
}

// Vertices checks the grid of side n in d dimensions against
// dataset.MaxVertices; where says where the size comes from.
func Vertices(where string, d, n int) error {
	if err := dataset.CheckVertices(where, d, n); err != nil {
		return &Error{err.Error()}
	}
	return nil
}

// physical returns MemTotal of /proc/meminfo in bytes, or 0.
var physical = sync.OnceValue(func() int64 {
	b, _ := os.ReadFile("/proc/meminfo")
	for line := range strings.Lines(string(b)) {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
})

// Budget returns the memory budget in bytes (0: no limit) and where it
// comes from: GMLG_MAX_MEMORY when set, else the physical memory.
func Budget() (int64, string, error) {
	if s := os.Getenv(MemoryEnv); s != "" {
		b, err := ParseBytes(s)
		if err != nil {
			return 0, "", fmt.Errorf("%s=%q: %w", MemoryEnv, s, err)
		}
		return b, MemoryEnv, nil
	}
	return physical(), "this machine's physical memory", nil
}

// ParseBytes reads a size such as 64G, 1.5T, 512M, 800K or 1000000
// (bytes); K, M, G and T (also with B or iB, any case) are powers of 1024.
func ParseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	scale := 1.0
	if t != "" {
		if k := strings.IndexByte("KMGT", t[len(t)-1]); k >= 0 {
			scale = math.Pow(1024, float64(k+1))
			t = t[:len(t)-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(v > 0) || v*scale >= math.MaxInt64 {
		return 0, fmt.Errorf("want a positive size such as 64G, 512M or a number of bytes")
	}
	return int64(v * scale), nil
}

// FormatBytes writes a byte count with a binary unit (KiB, MiB, GiB, TiB).
func FormatBytes(b float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	k := 0
	for b >= 1024 && k < len(units)-1 {
		b /= 1024
		k++
	}
	if k == 0 {
		return fmt.Sprintf("%.0f bytes", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[k])
}

// Memory checks that need bytes, the estimated size of what ("the
// objective of a 300³ grid"), fits the budget; hint says what to reduce.
func Memory(what string, need float64, hint string) error {
	budget, source, err := Budget()
	if err != nil {
		return err
	}
	if budget <= 0 || need <= float64(budget) {
		return nil
	}
	msg := fmt.Sprintf("%s needs about %s, more than the memory budget of %s (%s)",
		what, FormatBytes(need), FormatBytes(float64(budget)), source)
	if hint != "" {
		msg += "; " + hint
	}
	return errorf("%s; set %s (e.g. %s=64G) to change the budget", msg, MemoryEnv, MemoryEnv)
}
