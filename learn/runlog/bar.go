package runlog

import (
	"fmt"
	"io"
	"sync"

	"github.com/schollz/progressbar/v3"

	"github.com/gmlg/gmlg/learn"
)

// Bar is the observer that shows the iterations of one level of a run on a
// terminal as a progress bar, with the iteration, the objective, the
// gradient norm, the evaluations and an estimated time left. A Bar made
// disabled draws nothing, so that callers need not test for a terminal at
// every report.
type Bar struct {
	learn.NopObserver
	// Level is the level whose iterations the bar shows.
	Level int

	mu    sync.Mutex
	w     io.Writer
	bar   *progressbar.ProgressBar
	start int
}

// NewBar returns a bar on w for iterations start+1 … maxIter of level,
// drawn only when enabled.
func NewBar(w io.Writer, enabled bool, level, start, maxIter int) *Bar {
	b := &Bar{Level: level, w: w, start: start}
	if enabled {
		b.bar = progressbar.NewOptions(maxIter-start,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetWidth(24),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("it"),
			progressbar.OptionShowIts(),
			progressbar.OptionThrottle(0),
			progressbar.OptionSetDescription(fmt.Sprintf("iter %d", start)),
			progressbar.OptionSetRenderBlankState(true),
		)
	}
	return b
}

// Iteration shows an accepted iteration of the bar's level.
func (b *Bar) Iteration(p *learn.Progress) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil || p.Level != b.Level {
		return nil
	}
	b.bar.Describe(fmt.Sprintf("iter %d  F %.6g  ‖g‖ %.3g  evals %d", p.Iter, p.F, p.GradNorm, p.Evals))
	_ = b.bar.Set(p.Iter - b.start) // a bar that cannot draw must not stop the run
	return nil
}

// Note prints a message on its own line, below the bar.
func (b *Bar) Note(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		fmt.Fprintln(b.w)
	}
	fmt.Fprintln(b.w, msg)
}

// Finish ends the bar's line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		b.bar.Exit()
		fmt.Fprintln(b.w)
	}
}
