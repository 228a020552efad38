package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/schollz/progressbar/v3"

	"github.com/gmlg/gmlg/learn"
)

// progress shows the optimisation on a terminal as a progress bar with the
// iteration, the objective, the gradient norm, the evaluations and an ETA.
// Without a terminal it does nothing (the structured log lines do the job).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	bar   *progressbar.ProgressBar
	start int
}

func newProgress(w io.Writer, enabled bool, start, maxIter int) *progress {
	p := &progress{w: w, start: start}
	if enabled {
		p.bar = progressbar.NewOptions(maxIter-start,
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
	return p
}

// update shows one accepted iteration.
func (p *progress) update(pg *learn.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		return
	}
	p.bar.Describe(fmt.Sprintf("iter %d  F %.6g  ‖g‖ %.3g  evals %d", pg.Iter, pg.F, pg.GradNorm, pg.Evals))
	p.bar.Set(pg.Iter - p.start)
}

// note prints a message on its own line.
func (p *progress) note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintln(p.w, msg)
}

// finish ends the bar's line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Exit()
		fmt.Fprintln(p.w)
	}
}
