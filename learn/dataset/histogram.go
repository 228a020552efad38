package dataset

import (
	"fmt"
	"math"
)

// ReadHistogram reads one histogram file (a frame: .npy, PNG or JPEG, see
// ReadFrame), checks that its values are finite, non-negative and not all
// zero, adds floor·max/N to every value when floor > 0 (as Options.Floor
// does for a folder) and normalises it to unit mass. It returns the values
// and the array's shape.
func ReadHistogram(path string, floor float64, opt *Options) ([]float64, []int, error) {
	a, err := ReadFrame(path, opt)
	if err != nil {
		return nil, nil, err
	}
	sum, mx := 0.0, 0.0
	for i, v := range a.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, nil, fmt.Errorf("%s: value %g at flat index %d is not a finite non-negative number", path, v, i)
		}
		sum += v
		mx = math.Max(mx, v)
	}
	if !(sum > 0) {
		return nil, nil, fmt.Errorf("%s: all values are zero (an empty histogram cannot be interpolated)", path)
	}
	if floor > 0 {
		add := floor * mx / float64(len(a.Data))
		sum = 0
		for i := range a.Data {
			a.Data[i] += add
			sum += a.Data[i]
		}
	}
	for i := range a.Data {
		a.Data[i] /= sum
	}
	return a.Data, a.Shape, nil
}
