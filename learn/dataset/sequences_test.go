package dataset

import (
	"slices"
	"testing"
)

// TestWriteSequences checks that written sequences load back in order,
// with their shape, for one sequence and for several, and that
// Set.Frames returns them.
func TestWriteSequences(t *testing.T) {
	t.Parallel()
	frame := func(hot int) []float64 {
		f := make([]float64, 9)
		f[hot] = 1
		return f
	}
	for _, seqs := range [][][][]float64{
		{{frame(0), frame(1), frame(2)}},
		{{frame(0), frame(1), frame(2)}, {frame(8), frame(4), frame(3)}},
	} {
		dir := t.TempDir()
		if err := WriteSequences(dir, "array", seqs, []int{3, 3}); err != nil {
			t.Fatal(err)
		}
		set, err := Load(dir, &Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Sequences) != len(seqs) || !slices.Equal(set.Shape, []int{3, 3}) {
			t.Fatalf("%d sequences of shape %v, want %d of [3 3]", len(set.Sequences), set.Shape, len(seqs))
		}
		frames := set.Frames()
		for s, q := range set.Sequences {
			for j, f := range q.Frames {
				if !slices.Equal(f.Data, seqs[s][j]) || !slices.Equal(frames[s][j], seqs[s][j]) {
					t.Errorf("sequence %d frame %d = %v (Frames: %v), want %v", s, j, f.Data, frames[s][j], seqs[s][j])
				}
			}
		}
	}
}
