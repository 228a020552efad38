package dataset

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"reflect"

	"codeberg.org/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"

	"github.com/gmlg/gmlg/learn/rundir"
)

// WriteNpy writes a as a little-endian float64 .npy stream in C order.
// The shape must hold len(a.Data) elements, at least one (npyio gives an
// empty array the wrong shape).
func WriteNpy(w io.Writer, a *Array) error {
	if err := writeNpy(w, a); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return nil
}

// WriteNpyFile writes a to path (see WriteNpy) atomically, through a
// temporary file renamed over path. Errors name the file.
func WriteNpyFile(path string, a *Array) error {
	if err := rundir.Write(path, 0o644, func(w io.Writer) error { return writeNpy(w, a) }); err != nil {
		return fmt.Errorf("dataset: %s: %w", path, err)
	}
	return nil
}

func writeNpy(w io.Writer, a *Array) error {
	for _, d := range a.Shape {
		if d <= 0 {
			return fmt.Errorf("cannot write shape %s: npyio writes no empty array", ShapeString(a.Shape))
		}
	}
	if a.Len() != len(a.Data) {
		return fmt.Errorf("shape %s holds %d elements, Data has %d", ShapeString(a.Shape), a.Len(), len(a.Data))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := npy.Write(bw, nest(a.Data, a.Shape)); err != nil {
		return err
	}
	return bw.Flush()
}

// nest returns data as the Go value npyio writes with the given shape,
// sharing data's memory: a float64, a slice, a mat.Dense for 2-D (which
// npyio writes without inspecting every element by reflection, about 1 µs
// each), nested slices for more dimensions.
func nest(data []float64, shape []int) any {
	switch len(shape) {
	case 0:
		return data[0]
	case 1:
		return data
	case 2:
		return mat.NewDense(shape[0], shape[1], data)
	}
	v := reflect.ValueOf(data)
	for k := len(shape) - 1; k > 0; k-- {
		rows := numElems(shape[:k])
		out := reflect.MakeSlice(reflect.SliceOf(v.Type()), rows, rows)
		for i := range rows {
			out.Index(i).Set(v.Slice(i*shape[k], (i+1)*shape[k]))
		}
		v = out
	}
	return v.Interface()
}

// WriteSequences writes the frames of every sequence of seqs into dir, as
// arrays of the given shape named array-TT.npy (one sequence) or
// array-SS-TT.npy (several), the names Load reads back in order.
func WriteSequences(dir string, seqs [][][]float64, shape []int) error {
	for s, seq := range seqs {
		for j, f := range seq {
			name := fmt.Sprintf("array-%02d.npy", j)
			if len(seqs) > 1 {
				name = fmt.Sprintf("array-%02d-%02d.npy", s, j)
			}
			if err := WriteNpyFile(filepath.Join(dir, name), &Array{Shape: shape, Data: f}); err != nil {
				return err
			}
		}
	}
	return nil
}
