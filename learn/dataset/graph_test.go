package dataset

import (
	"strings"
	"testing"
)

// TestLoadGraphHistograms reads 1-D histograms with Options.Length and
// refuses frames that do not have one value per vertex.
func TestLoadGraphHistograms(t *testing.T) {
	dir := t.TempDir()
	for j, v := range [][]float64{{1, 0, 0, 1, 2}, {0, 1, 1, 0, 0}, {0, 0, 3, 1, 0}} {
		writeNPY(t, dir, "array-0"+string(rune('0'+j))+".npy", []int{5}, v, nil)
	}
	set, err := Load(dir, &Options{Length: 5})
	if err != nil {
		t.Fatal(err)
	}
	if set.Dim() != 1 || set.N() != 5 || len(set.Sequences) != 1 || len(set.Sequences[0].Frames) != 3 {
		t.Fatalf("got shape %v with %d sequence(s)", set.Shape, len(set.Sequences))
	}
	if got := set.Sequences[0].Frames[0].Data; got[4] != 0.5 || sum(got) != 1 {
		t.Errorf("first frame %v, want [0.25 0 0 0.25 0.5]", got)
	}
	if _, err := set.Graph(); err == nil {
		t.Error("Graph built a grid for histograms on a graph")
	}
	for _, tc := range []struct {
		name  string
		opt   Options
		files map[string][]int
		want  string
	}{
		{"wrong length", Options{Length: 6}, nil, "shape (5,)"},
		{"grid frame", Options{Length: 4}, map[string][]int{"array-00.npy": {2, 2}}, "one value per vertex"},
		{"no npy", Options{Length: 5, Pattern: "*.none"}, nil, "matches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dir
			if tc.files != nil {
				d = t.TempDir()
				for name, shape := range tc.files {
					writeNPY(t, d, name, shape, []float64{1, 2, 3, 4}, nil)
				}
			}
			_, err := Load(d, &tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
