package ot

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestLossValues(t *testing.T) {
	p := []float64{0.5, 0.25, 0.25}
	q := []float64{0.25, 0.25, 0.5}
	tests := []struct {
		loss      Loss
		want      float64
		wantGrad  []float64
		tolerance float64
	}{
		// 3·(0.25² + 0 + 0.25²) and 2·3·(p−q).
		{L2, 3 * (0.0625 + 0.0625), []float64{1.5, 0, -1.5}, 0},
		// |0.25| + 0 + |−0.25|; sign(0) = 0.
		{L1, 0.5, []float64{1, 0, -1}, 0},
		// 0.5·log 2 − 0.5 + 0.25 + 0 + 0.25·log 0.5 − 0.25 + 0.5.
		{KL, 0.25 * math.Ln2, []float64{math.Ln2, 0, -math.Ln2}, 1e-16},
	}
	for _, tt := range tests {
		g := make([]float64, 3)
		v, err := tt.loss.Eval(g, p, q)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v-tt.want) > tt.tolerance {
			t.Errorf("%v: value %v, want %v", tt.loss, v, tt.want)
		}
		for i := range g {
			if math.Abs(g[i]-tt.wantGrad[i]) > tt.tolerance {
				t.Errorf("%v: grad %v, want %v", tt.loss, g, tt.wantGrad)
				break
			}
		}
		if v2, _ := tt.loss.Eval(nil, p, q); v2 != v {
			t.Errorf("%v: value without gradient %v, with %v", tt.loss, v2, v)
		}
	}
}

// TestLossGradients checks every loss gradient against central finite
// differences at a random point (where |p−q| is far from 0 for L1).
func TestLossGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 7
	p := randVec(rng, n, 0.1, 1)
	q := randVec(rng, n, 0.1, 1)
	for _, l := range []Loss{L2, L1, KL} {
		g := make([]float64, n)
		if _, err := l.Eval(g, p, q); err != nil {
			t.Fatal(err)
		}
		fd := fdGrad(func(x []float64) float64 {
			v, err := l.Eval(nil, x, q)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}, p, 1e-6)
		if e := relErr(g, fd); e > 1e-8 {
			t.Errorf("%v: gradient relative error %.3g", l, e)
		}
	}
}

func TestLossNonFinite(t *testing.T) {
	p := []float64{0.5, 0.5}
	q := []float64{1, 0}
	_, err := KL.Eval(make([]float64, 2), p, q)
	if !errors.Is(err, ErrNonFinite) {
		t.Errorf("KL with a zero observation: err = %v, want ErrNonFinite", err)
	}
	_, err = L2.Eval(nil, []float64{math.Inf(1), 0}, q)
	if !errors.Is(err, ErrNonFinite) {
		t.Errorf("L2 of an infinite reconstruction: err = %v, want ErrNonFinite", err)
	}
}

func TestLossParse(t *testing.T) {
	tests := []struct {
		in   string
		want Loss
		ok   bool
	}{
		{"l2", L2, true}, {"L1", L1, true}, {"kl", KL, true}, {" KL ", KL, true},
		{"2", L2, true}, {"1", L1, true}, {"4", KL, true},
		{"3", 0, false}, {"w", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseLoss(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseLoss(%q) = %v, %v", tt.in, got, err)
		}
	}
	for _, l := range []Loss{L2, L1, KL} {
		b, err := l.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Loss
		if err := back.UnmarshalText(b); err != nil || back != l {
			t.Errorf("round trip of %v via %q gave %v, %v", l, b, back, err)
		}
	}
	if _, err := Loss(7).MarshalText(); err == nil {
		t.Error("MarshalText of an invalid loss: no error")
	}
	var zero Loss
	if zero != L2 {
		t.Error("the zero Loss is not L2")
	}
}
