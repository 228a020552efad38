package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWriteEdgesIsInt64 writes an edge list and checks that the file is an
// int64 [E,2] array that ReadEdges gives back exactly, up to the largest
// accepted vertex index.
func TestWriteEdgesIsInt64(t *testing.T) {
	path := filepath.Join(t.TempDir(), "edges.npy")
	want := [][2]int{{0, 1}, {2, 1}, {MaxVertices - 1, 3}}
	if err := WriteEdges(path, want); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("'descr': '<i8'")) || !bytes.Contains(raw, []byte("'shape': (3, 2)")) {
		t.Errorf("header %q, want an int64 array of shape (3, 2)", raw[:min(len(raw), 80)])
	}
	got, err := ReadEdges(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if err := WriteEdges(path, nil); err == nil {
		t.Error("WriteEdges wrote an empty edge list")
	}
}

// TestReadEdges reads edge lists of several dtypes and refuses the files
// that are not lists of vertex indices.
func TestReadEdges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		descr  string
		shape  []int
		values []float64
		memory MemoryCheck
		want   string // error substring; "" for success
	}{
		{"int32", "<i4", []int{2, 2}, []float64{0, 1, 1, 2}, nil, ""},
		{"big-endian uint16", ">u2", []int{2, 2}, []float64{0, 1, 1, 2}, nil, ""},
		{"whole floats", "<f8", []int{2, 2}, []float64{0, 1, 1, 2}, nil, ""},
		{"fraction", "<f8", []int{2, 2}, []float64{0, 1, 1.5, 2}, nil, "value 1.5 at [1, 0] is not a vertex index"},
		{"negative", "<i8", []int{2, 2}, []float64{0, 1, 1, -2}, nil, "value -2 at [1, 1]"},
		{"too large", "<i8", []int{1, 2}, []float64{0, MaxVertices}, nil, "is not a vertex index"},
		{"1-D", "<i8", []int{4}, []float64{0, 1, 1, 2}, nil, "want [E,2]"},
		{"three columns", "<i8", []int{1, 3}, []float64{0, 1, 2}, nil, "want [E,2]"},
		{"over budget", "<i8", []int{2, 2}, []float64{0, 1, 1, 2}, budget(10), "use a smaller graph"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "edges.npy")
			if err := os.WriteFile(path, npyBytes(t, tc.descr, false, tc.shape, tc.values), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadEdges(path, tc.memory)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want one naming %s and containing %q", err, path, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := [][2]int{{0, 1}, {1, 2}}; !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
