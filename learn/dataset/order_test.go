package dataset

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"one field", []string{"d/array-10.npy", "d/array-9.npy", "d/array-0.npy", "d/array-11.npy", "d/array-1.npy"},
			[]string{"d/array-0.npy", "d/array-1.npy", "d/array-9.npy", "d/array-10.npy", "d/array-11.npy"}},
		{"sequence then frame", []string{"array-10-0.npy", "array-2-10.npy", "array-2-9.npy", "array-01-03.npy"},
			[]string{"array-01-03.npy", "array-2-9.npy", "array-2-10.npy", "array-10-0.npy"}},
		{"numbers before prefixes", []string{"b-00.png", "a-01.png"}, []string{"b-00.png", "a-01.png"}},
		{"natural order without '-' fields", []string{"video_10.png", "video_9.png", "video_100.png", "intro.png"},
			[]string{"intro.png", "video_9.png", "video_10.png", "video_100.png"}},
		{"zero-padded ties by spelling", []string{"array-01.npy", "array-1.npy"}, []string{"array-01.npy", "array-1.npy"}},
		{"numbers beyond 64 bits", []string{"x-100000000000000000000.npy", "x-99999999999999999999.npy"},
			[]string{"x-99999999999999999999.npy", "x-100000000000000000000.npy"}},
	} {
		got := append([]string(nil), tc.in...)
		Sort(got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Sort(%v) = %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestLoadNumericOrder checks that array-0 … array-11 load in numeric
// order: array-9 is the tenth frame and array-11 the last pole.
func TestLoadNumericOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for k := range 12 {
		v := ramp(3)
		v[0] = float64(100 + k) // tells the frames apart after normalisation
		writeNPY(t, dir, fmt.Sprintf("array-%d.npy", k), []int{3, 3}, v, nil)
	}
	set, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	fr := set.Sequences[0].Frames
	for k, f := range fr {
		if want := fmt.Sprintf("array-%d.npy", k); filepath.Base(f.Path) != want {
			t.Errorf("frame %d is %s, want %s", k, filepath.Base(f.Path), want)
		}
	}
	last := fr[len(fr)-1].Data
	if want := 111 / (111 + sum(ramp(3)[1:])); last[0] != want {
		t.Errorf("last pole starts with %v, want %v (array-11)", last[0], want)
	}
	if set.Gaps != nil {
		t.Errorf("Gaps = %q, want none", set.Gaps)
	}
}

func TestDuplicateFrameNumbers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"padded and plain", []string{"array-0.npy", "array-1.npy", "array-01.npy", "array-2.npy"},
			[]string{"array-01.npy", "array-1.npy", "both frame 1"}},
		{"two fields", []string{"array-00-00.npy", "array-00-01.npy", "array-0-1.npy", "array-00-02.npy"},
			[]string{"array-00-01.npy", "array-0-1.npy", "frame 1 of sequence 0"}},
	} {
		dir := t.TempDir()
		for _, f := range tc.files {
			writeNPY(t, dir, f, []int{2, 2}, []float64{1, 2, 3, 4}, nil)
		}
		_, err := Load(dir, nil)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
	}
}

func TestGaps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files []string
		want  []string
		seqs  []string // IDs in order
	}{
		{"one sequence", []string{"array-00.npy", "array-01.npy", "array-02.npy", "array-05.npy"},
			[]string{"frames 03, 04 missing"}, []string{""}},
		{"one missing", []string{"array-0.npy", "array-2.npy", "array-3.npy"}, []string{"frame 1 missing"}, []string{""}},
		{"two sequences, one with a gap", []string{
			"array-10-00.npy", "array-10-01.npy", "array-10-03.npy",
			"array-9-0.npy", "array-9-1.npy", "array-9-2.npy"},
			[]string{"sequence 10: frame 02 missing"}, []string{"9", "10"}},
		{"many missing", []string{"array-000.npy", "array-001.npy", "array-100.npy"},
			[]string{"frames 002, 003, 004, 005, 006, … missing (98 in all)"}, []string{""}},
		{"no numbers", []string{"a.npy", "b.npy", "c.npy"}, nil, []string{""}},
	} {
		dir := t.TempDir()
		for _, f := range tc.files {
			writeNPY(t, dir, f, []int{2, 2}, []float64{1, 2, 3, 4}, nil)
		}
		set, err := Load(dir, &Options{Pattern: "*.npy"})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(set.Gaps, tc.want) {
			t.Errorf("%s: Gaps = %q, want %q", tc.name, set.Gaps, tc.want)
		}
		var ids []string
		for _, q := range set.Sequences {
			ids = append(ids, q.ID)
		}
		if !reflect.DeepEqual(ids, tc.seqs) {
			t.Errorf("%s: sequences %q, want %q", tc.name, ids, tc.seqs)
		}
	}
}

// TestHugeShapeHeader checks that a .npy whose header claims a huge frame
// is refused from the header, naming the limit.
func TestHugeShapeHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		shape string
		want  string
	}{
		{"(100000, 100000)", "side at most 4096"},
		{"(300, 300, 300)", "side at most 256"},
	} {
		dir := t.TempDir()
		hdr := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", tc.shape)
		for len(hdr)+11 < 128 {
			hdr += " "
		}
		raw := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)+1), 0)
		raw = append(append(raw, hdr...), '\n')
		for k := range 3 {
			writeBytes(t, dir, fmt.Sprintf("array-%02d.npy", k), raw)
		}
		_, err := Load(dir, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "array-00.npy") {
			t.Errorf("shape %s: err = %v, want one naming array-00.npy and %q", tc.shape, err, tc.want)
		}
	}
}
