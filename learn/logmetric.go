package learn

import "math"

// Exp sets dst[i] = e^x[i], the metric θ of the optimisation variable x
// (the log metric), and returns dst; a nil dst is allocated.
func Exp(dst, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	for i, v := range x {
		dst[i] = math.Exp(v)
	}
	return dst
}

// LogOf returns log θ, the optimisation variable of the metric θ.
func LogOf(theta []float64) []float64 {
	x := make([]float64, len(theta))
	for i, v := range theta {
		x[i] = math.Log(v)
	}
	return x
}
