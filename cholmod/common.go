//go:build cgo

package cholmod

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
)

// Common owns one cholmod_common: CHOLMOD's parameters, statistics and
// workspace. Every Sparse and Factor is created from a Common and belongs to
// it; Close frees them all.
//
// A Common and the objects created from it must not be used from several
// goroutines at once, with one exception: Factor.Solve may run concurrently
// on the same factor (each call uses a workspace of its own).
type Common struct {
	ctx  *cCtx
	objs map[resource]struct{}
	live *atomic.Bool // shared with the leak detector
}

// resource is a CHOLMOD object owned by a Common.
type resource interface{ release() }

// leaks counts Commons that were garbage collected without Close.
var leaks atomic.Int64

// NewCommon starts CHOLMOD (cholmod_l_start) with the package defaults:
// supernodal LL' factorisation, no printing, CHOLMOD's messages captured in
// the returned errors. The caller must Close it.
func NewCommon() (*Common, error) {
	ctx := newCtx()
	if ctx == nil {
		return nil, fmt.Errorf("cholmod: start: %w", ErrOutOfMemory)
	}
	c := &Common{ctx: ctx, objs: make(map[resource]struct{}), live: new(atomic.Bool)}
	c.live.Store(true)
	// Leak detector only: a Common that is collected while open has leaked
	// its C memory; say so once on stderr. Nothing is freed here, since the
	// objects of the Common may still be in use by C.
	runtime.AddCleanup(c, func(live *atomic.Bool) {
		if live.Load() {
			leaks.Add(1)
			fmt.Fprintln(os.Stderr, "cholmod: a Common was garbage collected without Close; its C memory leaked")
		}
	}, c.live)
	return c, nil
}

// Close frees every Sparse and Factor created from c that is still open and
// then finishes CHOLMOD (cholmod_l_finish). Close is idempotent; any other
// use of c or of its objects afterwards panics.
func (c *Common) Close() error {
	if c == nil || c.ctx == nil {
		return nil
	}
	for r := range c.objs {
		r.release()
	}
	freeCtx(c.ctx)
	c.ctx = nil
	c.objs = nil
	c.live.Store(false)
	return nil
}

// mustBeOpen panics with a package-prefixed message when c is closed or was
// not created by NewCommon.
func (c *Common) mustBeOpen(op string) {
	if c == nil || c.ctx == nil {
		panic("cholmod: " + op + " on a closed or uninitialised Common")
	}
}
