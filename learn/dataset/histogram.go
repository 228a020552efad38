package dataset

// ReadHistogram reads one histogram file (a frame: .npy, PNG or JPEG, see
// ReadFrame), checks that its values are finite, non-negative and not all
// zero, adds floor·max/N to every value when floor > 0 and normalises it to
// unit mass, as Load does for the frames of a folder. It returns the values
// and the array's shape.
func ReadHistogram(path string, floor float64, opt *Options) ([]float64, []int, error) {
	a, err := ReadFrame(path, opt)
	if err != nil {
		return nil, nil, err
	}
	if err := normalise(path, a, floor); err != nil {
		return nil, nil, err
	}
	return a.Data, a.Shape, nil
}
