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
// cores' multiply-add peak and the arithmetic intensity times the memory
// bandwidth. MeasureRoofline measures it.
type Roofline struct {
	Threads     int     // P, the cores it is for
	Lanes       int     // the vector width of the peak's multiply-adds (sparsechol.VectorWidth)
	PeakGFlops  float64 // P times one core's multiply-add peak
	GBPerSecond float64 // the triad's bandwidth on P goroutines
}

// Bound returns the roofline in GFlop/s at the arithmetic intensity ai, in
// flops per byte.
func (r Roofline) Bound(ai float64) float64 { return min(r.PeakGFlops, ai*r.GBPerSecond) }

// SolveIntensity is the arithmetic intensity, in flops per byte, of a
// sub-step solve with a factor L of nnz entries on n vertices for a block
// of cols columns: each of its two passes (forward and backward
// substitution) does 2·nnz·cols flops, streams L, nnz·(8+4) bytes (a value
// and a row index per entry), and reads and writes the block once.
func SolveIntensity(nnz, n, cols int) float64 {
	return 2 * float64(nnz) * float64(cols) / (12*float64(nnz) + 16*float64(n)*float64(cols))
}

// MeasureRoofline measures the roofline of p cores: one core's peak of
// independent multiply-add chains as wide as the solve kernels' vectors,
// the best of 50 runs of 2¹⁸ rounds (short, to run unpreempted on a shared
// machine), times p; and the bandwidth of the triad a[i] = b[i] + s·c[i],
// 24 bytes an element, on p goroutines over three arrays of 4× the L3
// cache in all (64 MiB to 2 GiB), the best of 5 sweeps.
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
	n := min(max(4*kb<<10, 64<<20), 2<<30) / 24
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for sweep := range 6 {
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
			r.GBPerSecond = max(r.GBPerSecond, 24*float64(n)/time.Since(t).Seconds()/1e9)
		}
	}
	return r
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
