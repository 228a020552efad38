package kernel

import (
	"fmt"
	"runtime"
	"slices"
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
	ent, stored := h.popTape(src, cols)
	if !stored && h.opt.Scheme == BackwardEuler {
		// The backend runs both chains and sums the edges in its own
		// layout (see factor.StepSolver).
		parallel := !h.opt.Serial && runtime.GOMAXPROCS(0) > 1
		if err := h.fac.AdjointSteps(gsrc, gw, src, gdst, cols, s, h.g.from, h.g.to, -h.c, parallel); err != nil {
			return fmt.Errorf("kernel: adjoint: %w", err)
		}
		return nil
	}
	// Forward chain u_0..u_S: from the tape, or recomputed into chainU.
	u := ent.chain
	if stored {
		defer h.recycle(u)
	} else {
		h.chainU = grow(h.chainU, (s+1)*nb)
		u = h.chainU
		copy(u[:nb], src)
		if err := h.chain(u, cols); err != nil {
			return err
		}
	}
	h.chainV = grow(h.chainV, s*nb)
	v := h.chainV
	if err := h.adjointChain(v, gdst, cols); err != nil {
		return err
	}
	h.accumulate(gw, u, v, cols)
	if gsrc != nil {
		if h.opt.Scheme == CrankNicolson {
			h.mulMcn(gsrc, v[:nb], cols)
		} else {
			copy(gsrc, v[:nb])
		}
	}
	return nil
}

// accumulate adds the weight gradient of one application from its forward
// chain u (u_0..u_S) and adjoint chain v (v_0..v_{S−1}), column-major. It
// walks the graph's runs of consecutive edges so that the inner loops read
// contiguous slices (no gathers, no bounds checks).
func (h *Heat) accumulate(gw, u, v []float64, cols int) {
	n := h.g.n
	nb := n * cols
	s := h.opt.Steps
	cn := h.opt.Scheme == CrankNicolson
	c := h.c
	for l := 1; l <= s; l++ {
		ul, vl, up := u[l*nb:(l+1)*nb], v[(l-1)*nb:l*nb], u[(l-1)*nb:l*nb]
		for k := 0; k < cols; k++ {
			uc, vc, pc := ul[k*n:(k+1)*n], vl[k*n:(k+1)*n], up[k*n:(k+1)*n]
			for _, r := range h.g.runs {
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

// popTape returns the tape's last entry and removes it when it recorded an
// application of cols columns to src.
func (h *Heat) popTape(src []float64, cols int) (tapeEntry, bool) {
	if len(h.tape) == 0 {
		return tapeEntry{}, false
	}
	top := h.tape[len(h.tape)-1]
	if top.cols != cols || !slices.Equal(top.chain[:len(src)], src) {
		return tapeEntry{}, false
	}
	h.tape = h.tape[:len(h.tape)-1]
	return top, true
}

func (h *Heat) recycle(buf []float64) { h.spare = append(h.spare, buf) }

func (h *Heat) releaseTape() {
	for _, ent := range h.tape {
		h.spare = append(h.spare, ent.chain)
	}
	h.tape = h.tape[:0]
}
