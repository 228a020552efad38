package ot

import (
	"fmt"
	"math"
	"strings"
)

// Loss selects the data term comparing a reconstruction p with an
// observation q (docs/method.md, "Losses"); the zero value is L2, the
// reference default. It implements flag.Value and encoding.TextMarshaler
// and TextUnmarshaler with the names "l2", "l1" and "kl".
type Loss int

const (
	// L2 is N·Σᵢ(pᵢ−qᵢ)², the squared Euclidean distance times the length N
	// of the histograms (reference loss 2, the default).
	L2 Loss = iota
	// L1 is Σᵢ|pᵢ−qᵢ| (reference loss 1, "TV"). Its gradient uses sign(0) = 0.
	L1
	// KL is Σᵢ pᵢ·log(pᵢ/qᵢ) − pᵢ + qᵢ, the Kullback–Leibler divergence of
	// the reconstruction p from the observation q (reference loss 4). It is
	// infinite when q has a zero where p is positive.
	KL
)

var lossNames = [...]string{"l2", "l1", "kl"}

// String returns "l2", "l1" or "kl".
func (l Loss) String() string {
	if l >= 0 && int(l) < len(lossNames) {
		return lossNames[l]
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss parses a loss name, case-insensitively: "l2", "l1" or "kl". The
// reference's --loss_num values "2", "1" and "4" are accepted too.
func ParseLoss(s string) (Loss, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "l2", "2":
		return L2, nil
	case "l1", "1", "tv":
		return L1, nil
	case "kl", "4":
		return KL, nil
	}
	return 0, fmt.Errorf("ot: unknown loss %q (want l2, l1 or kl)", s)
}

// Set parses s into l (flag.Value).
func (l *Loss) Set(s string) error {
	v, err := ParseLoss(s)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (l Loss) MarshalText() ([]byte, error) {
	if l < L2 || l > KL {
		return nil, fmt.Errorf("ot: invalid loss %d", int(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *Loss) UnmarshalText(b []byte) error { return l.Set(string(b)) }

// Eval returns the loss between the reconstruction p and the observation q
// and, unless grad is nil, writes its gradient with respect to p into grad:
//
//	L2: 2N·(pᵢ−qᵢ)    L1: sign(pᵢ−qᵢ) with sign(0)=0    KL: log(pᵢ/qᵢ)
//
// The terms are summed from i = 0 upwards. A value or gradient that is not
// finite (KL with a zero in q or p) gives a *NonFiniteError (Op "loss",
// Sequence and Frame −1, for the caller to fill in). Eval panics if the
// lengths differ or l is not a valid Loss.
func (l Loss) Eval(grad, p, q []float64) (float64, error) {
	if len(p) != len(q) || (grad != nil && len(grad) != len(p)) {
		panic("ot: Loss.Eval: length mismatch")
	}
	var s float64
	switch l {
	case L2:
		n := float64(len(p))
		for i, pi := range p {
			d := pi - q[i]
			s += d * d
			if grad != nil {
				grad[i] = 2 * n * d
			}
		}
		s *= n
	case L1:
		for i, pi := range p {
			d := pi - q[i]
			s += math.Abs(d)
			if grad != nil {
				grad[i] = 0
				if d > 0 {
					grad[i] = 1
				} else if d < 0 {
					grad[i] = -1
				}
			}
		}
	case KL:
		bad := false // a gradient entry is not finite
		for i, pi := range p {
			r := math.Log(pi / q[i])
			s += pi*r - pi + q[i]
			if grad != nil {
				grad[i] = r
				bad = bad || notFinite(r)
			}
		}
		if bad {
			return s, &NonFiniteError{Op: "loss", Sequence: -1, Frame: -1,
				Hint: "the KL gradient log(p/q) is infinite: add a floor to the observations and check the reconstruction is positive"}
		}
	default:
		panic(fmt.Sprintf("ot: Loss.Eval: invalid loss %d", int(l)))
	}
	if notFinite(s) {
		return s, &NonFiniteError{Op: "loss", Sequence: -1, Frame: -1,
			Hint: "add a floor to the observations (KL needs positive observations) and check the reconstruction is finite"}
	}
	return s, nil
}
