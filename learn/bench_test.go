package learn

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/ot"
)

// BenchmarkEval measures one objective+gradient evaluation on the reference
// datasets: toydataF4 (n=50, 11 frames, L=50) with K_heat=100 and
// 20, and seldovia2 (16³, 10 frames, L=50, K_heat=20), for each sparse
// backend. It reports the process's peak resident memory (getrusage maxrss)
// as maxRSS-MB and the CPU time per evaluation (all threads) as cpu-ns/op:
// run one sub-benchmark per process for a clean figure, e.g.
//
//	go test -run '^$' -bench 'BenchmarkEval/F4-K100/cholmod' -benchtime 3x ./learn/
func BenchmarkEval(b *testing.B) {
	dir := dataDir(b)
	cases := []struct {
		name, pattern string
		d, n, steps   int
		normalise     bool
		t, ls         float64
		loss          ot.Loss
	}{
		{"F4-K100", "toydataF4/array-*.npy", 2, 50, 100, true, 3e-3, 0.03, ot.KL},
		{"F4-K20", "toydataF4/array-*.npy", 2, 50, 20, true, 3e-3, 0.03, ot.KL},
		{"seldovia2-K20", "seldovia2/hists16/hist-array-*.npy", 3, 16, 20, false, 1e-3, 1, ot.L2},
	}
	for _, c := range cases {
		frames := loadFrames(b, filepath.Join(dir, c.pattern), c.normalise)
		g, _ := kernel.Cube(c.d, c.n)
		for _, name := range kernel.Backends() {
			if name == "dense" {
				continue
			}
			backend, _ := kernel.Backend(name)
			b.Run(fmt.Sprintf("%s/%s", c.name, name), func(b *testing.B) {
				o, err := NewObjective(g, []Sequence{{Frames: frames}}, &Config{
					Heat: kernel.HeatOptions{T: c.t, Steps: c.steps, Backend: backend}, Sinkhorn: ot.Settings{Iterations: 50},
					Loss: c.loss, LambdaS: c.ls,
				})
				if err != nil {
					b.Fatal(err)
				}
				defer o.Close()
				x := make([]float64, o.Dim())
				grad := make([]float64, len(x))
				var r0 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				b.ResetTimer()
				for range b.N {
					if _, err := o.Eval(grad, x); err != nil {
						b.Fatal(err)
					}
				}
				var ru syscall.Rusage
				if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
					b.ReportMetric(float64(ru.Maxrss)/1024, "maxRSS-MB")
					cpu := ru.Utime.Nano() + ru.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
					b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
