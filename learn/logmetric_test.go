package learn

import "testing"

// TestExpLogOf checks that Exp undoes LogOf to within one ulp of θ: at
// θ = 4 an ulp is 8.9e-16, hence the bound 1e-15.
func TestExpLogOf(t *testing.T) {
	theta := []float64{0.5, 1, 4}
	back := Exp(nil, LogOf(theta))
	for i := range theta {
		if d := back[i] - theta[i]; d > 1e-15 || d < -1e-15 {
			t.Errorf("Exp(LogOf(θ))[%d] = %g, want %g", i, back[i], theta[i])
		}
	}
}
