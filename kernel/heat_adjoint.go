package kernel

import (
	"errors"
	"fmt"
)

// Adjoint back-propagates through dst = K·src. Given src and gdst = ∂F/∂dst
// it writes gsrc = K·gdst (K is symmetric; with CN gsrc = Mcn·v_0) unless
// gsrc is nil, and adds ∂F/∂w to gw:
//
//	BE: ∂F/∂w_e −= (α t/S) Σ_{l=1..S} Σ_cols (u_l[i]−u_l[j])·(v_{l−1}[i]−v_{l−1}[j])
//	CN: ∂F/∂w_e −= (α t/2S) Σ_{l=1..S} Σ_cols Δ(u_l+u_{l−1})·Δv_{l−1}
//
// for edge e = {i,j}, where u_l are the forward iterates from src and v_l the
// adjoint iterates from gdst (docs/method.md, "Kernel gradient": the
// reference's sign, which the paper's Proposition 1 omits). gsrc must not
// overlap src or gdst.
func (h *Heat) Adjoint(gsrc, gw, src, gdst []float64, cols int) error {
	h.checkReady("Adjoint")
	h.checkBlock("Adjoint", cols, src, gdst, gsrc)
	if len(gw) != h.g.NumEdges() {
		panic(fmt.Sprintf("kernel: Adjoint: len(gw)=%d, want %d edges", len(gw), h.g.NumEdges()))
	}
	s := h.opt.Steps
	nb := h.g.n * cols
	// Forward chain u_0..u_S: from the tape, or recomputed into chainU.
	var u []float64
	recompute := true
	ent, ok := h.popTape(src, cols)
	if !ok && h.ss != nil {
		// The backend runs both chains and sums the edges in its own
		// layout (see factor.StepSolver): the same sums as below.
		if err := h.ss.AdjointSteps(gsrc, gw, src, gdst, cols, s, h.g.from, h.g.to, -h.c, h.concurrent()); err != nil {
			return fmt.Errorf("kernel: adjoint: %w", err)
		}
		return nil
	}
	if ok {
		if ent.chain2 != nil {
			return h.adjointSplit(gsrc, gw, gdst, ent)
		}
		u, recompute = ent.chain, false
		defer h.recycle(ent.chain)
	} else {
		h.chainU = grow(h.chainU, (s+1)*nb)
		u = h.chainU
		copy(u[:nb], src)
	}
	h.chainV = grow(h.chainV, s*nb)
	v := h.chainV
	var errU, errV error
	if recompute && h.concurrent() {
		// The two chains are independent: run the forward one on the
		// Heat's worker goroutine (started once, stopped by Close).
		h.jobs <- chainJob{buf: u, cols: cols}
		errV = h.adjointChain(v, gdst, cols)
		errU = <-h.done
	} else {
		if recompute {
			errU = h.chain(u, cols)
		}
		if errU == nil {
			errV = h.adjointChain(v, gdst, cols)
		}
	}
	if err := errors.Join(errU, errV); err != nil {
		return err
	}
	h.accumulate(gw, u, v, cols)
	if gsrc != nil {
		h.inputGrad(gsrc, v[:nb], cols)
	}
	return nil
}

// inputGrad writes the input gradient from the last adjoint iterate v0:
// gsrc = v0 (BE) or Mcn·v0 (CN).
func (h *Heat) inputGrad(gsrc, v0 []float64, cols int) {
	if h.opt.Scheme == CrankNicolson {
		h.mulMcn(gsrc, v0, cols)
	} else {
		copy(gsrc, v0)
	}
}

// adjointSplit is Adjoint for a tape entry recorded as two streams: the
// adjoint chains of the two column halves run concurrently, then both
// halves' weight gradients are accumulated on the caller's goroutine.
func (h *Heat) adjointSplit(gsrc, gw, gdst []float64, ent tapeEntry) error {
	defer h.recycle(ent.chain)
	defer h.recycle(ent.chain2)
	s, n := h.opt.Steps, h.g.n
	ca, cb := ent.half, ent.cols-ent.half
	nh := ca * n
	h.chainV = grow(h.chainV, s*nh)
	h.chainV2 = grow(h.chainV2, s*cb*n)
	va, vb := h.chainV, h.chainV2
	h.jobs <- chainJob{buf: vb, g: gdst[nh:], cols: cb}
	errA := h.adjointChain(va, gdst[:nh], ca)
	if err := errors.Join(errA, <-h.done); err != nil {
		return err
	}
	h.accumulate(gw, ent.chain, va, ca)
	h.accumulate(gw, ent.chain2, vb, cb)
	if gsrc != nil {
		h.inputGrad(gsrc[:nh], va[:nh], ca)
		h.inputGrad(gsrc[nh:], vb[:cb*n], cb)
	}
	return nil
}

// accumulate adds the weight gradient of one application. When work may be
// split, the worker goroutine takes the edges of the second half of
// h.runs2 (each gradient entry is summed in the same order either way, so
// the result does not depend on the split).
func (h *Heat) accumulate(gw, u, v []float64, cols int) {
	if !h.concurrent() {
		h.accumulateRuns(h.g.runs, gw, u, v, cols)
		return
	}
	h.jobs <- chainJob{runs: h.runs2[1], gw: gw, buf: u, g: v, cols: cols}
	h.accumulateRuns(h.runs2[0], gw, u, v, cols)
	<-h.done
}

// splitRuns splits runs (covering ne edges) into two lists of about ne/2
// edges each, cutting the run that straddles the middle.
func splitRuns(runs []edgeRun, ne int) [2][]edgeRun {
	var out [2][]edgeRun
	left := ne / 2
	for _, r := range runs {
		switch {
		case left >= r.len:
			out[0] = append(out[0], r)
			left -= r.len
		case left > 0:
			out[0] = append(out[0], edgeRun{e0: r.e0, i0: r.i0, len: left, stride: r.stride})
			out[1] = append(out[1], edgeRun{e0: r.e0 + left, i0: r.i0 + left, len: r.len - left, stride: r.stride})
			left = 0
		default:
			out[1] = append(out[1], r)
		}
	}
	// The worker tells an accumulation job by its non-nil runs.
	if out[1] == nil {
		out[1] = []edgeRun{}
	}
	return out
}

// accumulateRuns adds the weight gradient of the edges of runs. It walks
// runs of consecutive edges so that the inner loops read contiguous slices
// (no gathers, no bounds checks).
func (h *Heat) accumulateRuns(runs []edgeRun, gw, u, v []float64, cols int) {
	n := h.g.n
	nb := n * cols
	s := h.opt.Steps
	cn := h.opt.Scheme == CrankNicolson
	c := h.c
	for l := 1; l <= s; l++ {
		ul, vl := u[l*nb:(l+1)*nb], v[(l-1)*nb:l*nb]
		var up []float64
		if cn {
			up = u[(l-1)*nb : l*nb]
		}
		for k := 0; k < cols; k++ {
			uc, vc := ul[k*n:(k+1)*n], vl[k*n:(k+1)*n]
			var pc []float64
			if cn {
				pc = up[k*n : (k+1)*n]
			}
			for _, r := range runs {
				g := gw[r.e0 : r.e0+r.len]
				ua, ub := uc[r.i0:r.i0+r.len], uc[r.i0+r.stride:r.i0+r.stride+r.len]
				va, vb := vc[r.i0:r.i0+len(g)], vc[r.i0+r.stride:r.i0+r.stride+len(g)]
				ua, ub = ua[:len(g)], ub[:len(g)]
				vb = vb[:len(va)]
				if cn {
					pa, pb := pc[r.i0:r.i0+len(g)], pc[r.i0+r.stride:r.i0+r.stride+len(g)]
					for m := range g {
						g[m] -= c * (ua[m] + pa[m] - ub[m] - pb[m]) * (va[m] - vb[m])
					}
					continue
				}
				for m := range g {
					g[m] -= c * (ua[m] - ub[m]) * (va[m] - vb[m])
				}
			}
		}
	}
}

// newTapeEntry returns an entry for an Apply of cols columns whose first
// half columns are recorded in chain (half == cols: not split).
func (h *Heat) newTapeEntry(cols, half int) tapeEntry {
	ent := tapeEntry{cols: cols, half: half, chain: h.spareBuf((h.opt.Steps + 1) * h.g.n * half)}
	if half < cols {
		ent.chain2 = h.spareBuf((h.opt.Steps + 1) * h.g.n * (cols - half))
	}
	return ent
}

// spareBuf returns a recycled buffer of length size, or a new one.
func (h *Heat) spareBuf(size int) []float64 {
	for i := len(h.spare) - 1; i >= 0; i-- {
		if cap(h.spare[i]) >= size {
			buf := h.spare[i][:size]
			h.spare = append(h.spare[:i], h.spare[i+1:]...)
			return buf
		}
	}
	return make([]float64, size)
}

func (h *Heat) popTape(src []float64, cols int) (tapeEntry, bool) {
	if len(h.tape) == 0 {
		return tapeEntry{}, false
	}
	top := h.tape[len(h.tape)-1]
	if top.cols != cols {
		return tapeEntry{}, false
	}
	nh := top.half * h.g.n
	for i, x := range src[:nh] {
		if top.chain[i] != x {
			return tapeEntry{}, false
		}
	}
	for i, x := range src[nh:] {
		if top.chain2[i] != x {
			return tapeEntry{}, false
		}
	}
	h.tape = h.tape[:len(h.tape)-1]
	return top, true
}

func (h *Heat) recycle(buf []float64) { h.spare = append(h.spare, buf) }

func (h *Heat) releaseTape() {
	for _, ent := range h.tape {
		h.spare = append(h.spare, ent.chain)
		if ent.chain2 != nil {
			h.spare = append(h.spare, ent.chain2)
		}
	}
	h.tape = h.tape[:0]
}
