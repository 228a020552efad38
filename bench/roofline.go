package bench

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// Roofline is the ceiling of the solves' speed on P cores (the roofline
// model of Williams, Waterman and Patterson, 2009): the smaller of the
// cores' multiply-add peak and the arithmetic intensity times the
// bandwidth at which the solve's working set streams, from the cache that
// holds it or from memory. MeasureRoofline measures it.
type Roofline struct {
	Threads    int     // P, the cores it is for
	Lanes      int     // the vector width of the peak's multiply-adds (sparsechol.VectorWidth)
	PeakGFlops float64 // P times one core's multiply-add peak
	// Bands are the triad's bandwidth on P goroutines over working sets of
	// growing size, the last (over 4× the last-level cache) that of memory.
	Bands []Band
}

// Band is the streaming bandwidth over a working set of Bytes.
type Band struct {
	Bytes       int64
	GBPerSecond float64
}

// Bandwidth returns the bandwidth of the smallest measured working set
// that holds bytes (the last band's beyond them all).
func (r Roofline) Bandwidth(bytes float64) float64 {
	for _, b := range r.Bands {
		if float64(b.Bytes) >= bytes {
			return b.GBPerSecond
		}
	}
	if len(r.Bands) == 0 {
		return 0
	}
	return r.Bands[len(r.Bands)-1].GBPerSecond
}

// Bound returns the roofline in GFlop/s at the arithmetic intensity ai, in
// flops per byte, for a working set of bytes.
func (r Roofline) Bound(ai, bytes float64) float64 {
	return min(r.PeakGFlops, ai*r.Bandwidth(bytes))
}

// SolveIntensity is the arithmetic intensity, in flops per byte, of a
// sub-step solve with a factor L of nnz entries on n vertices for a block
// of cols columns: each of its two passes (forward and backward
// substitution) does 2·nnz·cols flops, streams L, nnz·(8+4) bytes (a value
// and a row index per entry), and reads and writes the block once.
func SolveIntensity(nnz, n, cols int) float64 {
	return 2 * float64(nnz) * float64(cols) / SolveBytes(nnz, n, cols)
}

// SolveBytes is the working set of a pass of SolveIntensity, in bytes.
func SolveBytes(nnz, n, cols int) float64 {
	return 12*float64(nnz) + 16*float64(n)*float64(cols)
}

// MeasureRoofline measures the roofline of p cores: one core's peak of
// independent multiply-add chains as wide as the solve kernels' vectors,
// the best of 50 runs of 2¹⁸ rounds (short, to run unpreempted on a shared
// machine), times p; and the bandwidth of the triad a[i] = b[i] + s·c[i],
// 24 bytes an element, on p goroutines over working sets of 1 MiB, 4 MiB,
// … up to 4× the L3 cache (64 MiB to 2 GiB), where it is that of memory.
func MeasureRoofline(p int) Roofline {
	r := Roofline{Threads: p, Lanes: sparsechol.VectorWidth()}
	for range 50 {
		t := time.Now()
		f := fmaRounds(r.Lanes, 1<<18)
		r.PeakGFlops = max(r.PeakGFlops, float64(p)*f*(1<<18)/time.Since(t).Seconds()/1e9)
	}
	kb := 32 << 10 // the L3 cache that Linux reports for CPU 0, in KiB
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cache/index3/size"); err == nil {
		fmt.Sscanf(string(b), "%dK", &kb)
	}
	last := min(max(int64(4*kb)<<10, 64<<20), 2<<30)
	for size := int64(1 << 20); ; size = min(4*size, last) {
		r.Bands = append(r.Bands, Band{size, triad(p, int(size/24))})
		if size == last {
			return r
		}
	}
}

// triad returns the bandwidth in GB/s of a[i] = b[i] + s·c[i] over n
// elements of each array on p goroutines, the best of enough sweeps to
// stream 1 GiB (at least 4) after an untimed one.
func triad(p, n int) float64 {
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	best := 0.0
	for sweep := range max(4, (1<<30)/(24*n)) + 1 {
		t := time.Now()
		var wg sync.WaitGroup
		for k := range p {
			wg.Go(func() {
				a := a[k*n/p : (k+1)*n/p]
				b, c := b[k*n/p:][:len(a)], c[k*n/p:][:len(a)]
				if sweep == 0 { // untimed: each goroutine writes its own pages first
					for i := range b {
						b[i], c[i] = 1, 2
					}
				}
				for i := range a {
					a[i] = b[i] + 3*c[i]
				}
			})
		}
		wg.Wait()
		if sweep > 0 {
			best = max(best, 24*float64(n)/time.Since(t).Seconds()/1e9)
		}
	}
	return best
}

// scalarSink keeps the scalar chains' results.
var scalarSink float64

// scalarRounds runs n rounds of eight independent scalar multiply-add
// chains in Go, the arithmetic of the portable kernels, and returns the
// flops of a round.
func scalarRounds(n int) float64 {
	a0, a1, a2, a3, a4, a5, a6, a7 := 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0
	for range n {
		a0, a1, a2, a3 = 0.5*a0+1, 0.5*a1+1, 0.5*a2+1, 0.5*a3+1
		a4, a5, a6, a7 = 0.5*a4+1, 0.5*a5+1, 0.5*a6+1, 0.5*a7+1
	}
	scalarSink = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
	return 16
}
