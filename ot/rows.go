package ot

import "runtime"

// The elementwise work of Forward and Backward between two kernel calls is
// a phase: the scalings a = P/K·b, the reconstructions q (two logarithms
// and one exponential per entry), the reverse pass's quotients. A phase
// treats every row i of every column the same way and alone, so it can run
// on two halves of the rows at once with the same arithmetic per element
// as on one thread: the results are bitwise those of a serial run.
//
// Only the reconstructions are worth splitting. On toydataF4 (N = 2500, 9
// interior frames, L = 50) they took 87-112 ms of an evaluation on one
// core and 58-94 ms split; the other phases, a few divisions per entry,
// took 5-6, 16-25 and 11-12 ms on one core and no less (up to twice as
// long) split, the hand-over costing more than the half it saves on this
// machine's two logical CPUs.
//
// The second half runs on a helper goroutine, started by the first Forward
// or Backward that has enough work (rowsMinWork interior frame entries)
// when GOMAXPROCS > 1, and stopped when the Interpolator is garbage
// collected. Between phases the helper holds only its two channels; each
// request carries the Interpolator, so the helper does not keep it alive.

// Phases (the field ph of the request).
const (
	phaseScale   = iota // Forward: a = P / u
	phaseRecon          // Forward: q = geo(v0, v1), b = q / v, partial masses
	phaseReverse        // Backward: recompute a, form v̄ (see Backward)
	phaseBack           // Backward: ū = −ā·a/u, then b of the previous iteration (unless ip.pv is nil)
)

// rowsMinWork is the least number of entries (N·F, F interior frames) for
// which the reconstructions are split between two goroutines: below it,
// handing half of the rows over costs more than it saves. A variable so
// that tests can force the split.
var rowsMinWork = 4096

// rowState is what a phase reads besides the Interpolator's fixed buffers.
type rowState struct {
	ph         int
	u, v, q    []float64   // the iteration's taped K·b, K·a and q
	pv         []float64   // K·a of the previous iteration (phaseBack), or nil
	gq         [][]float64 // per interior frame: ∂F/∂q at the last iteration, else nil (phaseReverse)
	mid        int         // the helper takes rows mid..N-1
	mass       [2][]float64
	req        chan *Interpolator
	ack        chan struct{}
	helperDone bool // the helper was started (or found not worth it)
}

// runPhase runs phase ph over all rows, phaseRecon on two goroutines when
// the helper runs.
func (ip *Interpolator) runPhase(ph int) {
	rs := &ip.rows
	rs.ph = ph
	if rs.req == nil || ph != phaseRecon {
		ip.phase(0, 0, ip.n)
		return
	}
	rs.req <- ip
	ip.phase(0, 0, rs.mid)
	<-rs.ack
}

// startRows starts the helper goroutine once, if it is worth it.
func (ip *Interpolator) startRows() {
	rs := &ip.rows
	if rs.helperDone {
		return
	}
	rs.helperDone = true
	if runtime.GOMAXPROCS(0) < 2 || ip.n < 2 || ip.nInt == 0 || ip.n*ip.nInt < rowsMinWork {
		return
	}
	rs.mid = ip.n / 2
	rs.req, rs.ack = make(chan *Interpolator), make(chan struct{})
	go rowHelper(rs.req, rs.ack)
	runtime.AddCleanup(ip, func(req chan *Interpolator) { close(req) }, rs.req)
}

// rowHelper runs the second half of each requested phase until req is
// closed.
func rowHelper(req <-chan *Interpolator, ack chan<- struct{}) {
	for ip := range req {
		ip.phase(1, ip.rows.mid, ip.n)
		ack <- struct{}{}
	}
}

// phase runs the current phase on rows i0..i1-1; half (0 or 1) selects the
// partial masses it writes.
func (ip *Interpolator) phase(half, i0, i1 int) {
	rs := &ip.rows
	switch rs.ph {
	case phaseScale:
		for j := 0; j < 2*ip.nInt; j++ {
			aj, uj, pj := ip.col(ip.a, j)[i0:i1], ip.col(rs.u, j)[i0:i1], ip.pole[j][i0:i1]
			for i := range aj {
				aj[i] = pj[i] / uj[i]
			}
		}
	case phaseRecon:
		for f := 0; f < ip.nInt; f++ {
			l0, l1 := ip.lam0[f], ip.lam1[f]
			v0, v1 := ip.col(rs.v, 2*f)[i0:i1], ip.col(rs.v, 2*f+1)[i0:i1]
			b0, b1 := ip.col(ip.b, 2*f)[i0:i1], ip.col(ip.b, 2*f+1)[i0:i1]
			qf := ip.col(rs.q, f)[i0:i1]
			var mass float64
			for i := range qf {
				qi := geo(l0, l1, v0[i], v1[i])
				qf[i] = qi
				mass += qi
				b0[i] = qi / v0[i]
				b1[i] = qi / v1[i]
			}
			rs.mass[half][f] = mass
		}
	case phaseReverse:
		ip.reverseRows(i0, i1)
	case phaseBack:
		for j := 0; j < 2*ip.nInt; j++ {
			abj, aj, uj, ubj := ip.col(ip.ab, j)[i0:i1], ip.col(ip.a, j)[i0:i1], ip.col(rs.u, j)[i0:i1], ip.col(ip.vb, j)[i0:i1]
			for i := range ubj {
				ubj[i] = -abj[i] * aj[i] / uj[i]
			}
		}
		if rs.pv == nil {
			return
		}
		for f := 0; f < ip.nInt; f++ {
			v0, v1 := ip.col(rs.pv, 2*f)[i0:i1], ip.col(rs.pv, 2*f+1)[i0:i1]
			b0, b1 := ip.col(ip.a, 2*f)[i0:i1], ip.col(ip.a, 2*f+1)[i0:i1]
			qf := ip.col(rs.q, f)[i0:i1]
			for i := range qf {
				b0[i] = qf[i] / v0[i]
				b1[i] = qf[i] / v1[i]
			}
		}
	}
}

// frameMass is interior frame f's mass from the last phaseRecon.
func (ip *Interpolator) frameMass(f int) float64 {
	if ip.rows.req == nil {
		return ip.rows.mass[0][f]
	}
	return ip.rows.mass[0][f] + ip.rows.mass[1][f]
}

// reverseRows is phaseReverse on rows i0..i1-1: it recomputes a and b of
// the iteration from the taped u = K·b_prev and v = K·a (q is the
// iteration's), and forms v̄ = ∂F/∂(K·a) in vb from b̄ (in b) and ∂F/∂q.
func (ip *Interpolator) reverseRows(i0, i1 int) {
	rs := &ip.rows
	for f := 0; f < ip.nInt; f++ {
		l0, l1 := ip.lam0[f], ip.lam1[f]
		c0, c1 := 2*f, 2*f+1
		u0, u1 := ip.col(rs.u, c0), ip.col(rs.u, c1)
		v0, v1 := ip.col(rs.v, c0), ip.col(rs.v, c1)
		p0, p1 := ip.pole[c0], ip.pole[c1]
		a0, a1 := ip.col(ip.a, c0), ip.col(ip.a, c1)
		bb0, bb1 := ip.col(ip.b, c0), ip.col(ip.b, c1)
		vb0, vb1 := ip.col(ip.vb, c0), ip.col(ip.vb, c1)
		qf := ip.col(rs.q, f)
		gq := rs.gq[f]
		for i := i0; i < i1; i++ {
			a0[i] = p0[i] / u0[i]
			a1[i] = p1[i] / u1[i]
			qi := qf[i]
			bi0, bi1 := qi/v0[i], qi/v1[i]
			qb := bb0[i]/v0[i] + bb1[i]/v1[i]
			if gq != nil {
				qb += gq[i]
			}
			vb0[i] = (qb*qi*l0 - bb0[i]*bi0) / v0[i]
			vb1[i] = (qb*qi*l1 - bb1[i]*bi1) / v1[i]
		}
	}
}
