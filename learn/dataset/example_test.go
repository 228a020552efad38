package dataset_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/learn/dataset"
)

func ExampleLoad() {
	dir, err := os.MkdirTemp("", "dataset-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// Two sequences of three 2×2 frames, named array-SS-TT.
	for s := range 2 {
		for k := range 3 {
			name := filepath.Join(dir, fmt.Sprintf("array-%02d-%02d.npy", s, k))
			a := &dataset.Array{Shape: []int{2, 2}, Data: []float64{1, 1, 1, float64(1 + k + s)}}
			if err := dataset.WriteNpyFile(name, a); err != nil {
				log.Fatal(err)
			}
		}
	}

	set, err := dataset.Load(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("shape", set.Shape, "N", set.N())
	for _, q := range set.Sequences {
		last := q.Frames[len(q.Frames)-1]
		fmt.Printf("sequence %s: %d frames, last = %.3f\n", q.ID, len(q.Frames), last.Data)
	}

	// Bad input gives an error naming the file.
	os.WriteFile(filepath.Join(dir, "array-01-03.npy"), []byte("oops"), 0o644)
	_, err = dataset.Load(dir, nil)
	fmt.Println(err != nil)
	// Output:
	// shape [2 2] N 4
	// sequence 00: 3 frames, last = [0.167 0.167 0.167 0.500]
	// sequence 01: 3 frames, last = [0.143 0.143 0.143 0.571]
	// true
}
