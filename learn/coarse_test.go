package learn

import (
	"slices"
	"strings"
	"testing"

	"github.com/gmlg/gmlg/kernel"
)

func TestHalveGrid(t *testing.T) {
	for _, tc := range []struct {
		dims, want []int
		err        bool
	}{
		{[]int{17, 17}, []int{9, 9}, false},
		{[]int{16, 5, 4}, []int{8, 3, 2}, false},
		{[]int{3}, []int{2}, false},
		{[]int{9, 2}, nil, true}, // ⌈2/2⌉ = 1 node
	} {
		got, err := HalveGrid(tc.dims)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), "too small to halve") {
				t.Errorf("HalveGrid(%v) = %v, %v; want a too-small error", tc.dims, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("HalveGrid(%v) = %v, %v; want %v", tc.dims, got, err, tc.want)
		}
	}
}

// TestRestrictSequences checks that every frame is kernel.RestrictGrid's
// restriction, bit for bit, that times are kept and that a frame of the
// wrong length is an error naming its sequence.
func TestRestrictSequences(t *testing.T) {
	dims, coarse := []int{5, 3}, []int{3, 2}
	frame := func(seed float64) []float64 {
		f := make([]float64, 15)
		for i := range f {
			f[i] = seed + float64(i*i%7)
		}
		return f
	}
	seqs := []Sequence{
		{Frames: [][]float64{frame(1), frame(2)}, Times: []float64{0, 1}},
		{Frames: [][]float64{frame(3), frame(4), frame(5)}},
	}
	got, err := RestrictSequences(seqs, dims, coarse)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(seqs) {
		t.Fatalf("%d sequences, want %d", len(got), len(seqs))
	}
	for si, sq := range seqs {
		if !slices.Equal(got[si].Times, sq.Times) || len(got[si].Frames) != len(sq.Frames) {
			t.Fatalf("sequence %d: times %v and %d frames, want %v and %d", si, got[si].Times, len(got[si].Frames), sq.Times, len(sq.Frames))
		}
		for fi, f := range sq.Frames {
			if want := kernel.RestrictGrid(f, dims, coarse); !slices.Equal(got[si].Frames[fi], want) {
				t.Errorf("sequence %d frame %d: %v, want %v", si, fi, got[si].Frames[fi], want)
			}
		}
	}
	seqs[1].Frames[2] = seqs[1].Frames[2][:14]
	if _, err := RestrictSequences(seqs, dims, coarse); err == nil || !strings.Contains(err.Error(), "sequence 1") {
		t.Errorf("frame of length 14 on a 5×3 grid: err = %v, want one naming sequence 1", err)
	}
}
