package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio/npy/float16"
)

// npyBytes assembles a version 1.0 .npy file of the given dtype and order
// independently of the package's writer, for the reader's tests: values
// (in C order) are converted to descr ("<f4", ">u2", "|b1", …) and, when
// fortran is set, stored column-major.
func npyBytes(t testing.TB, descr string, fortran bool, shape []int, values []float64) []byte {
	t.Helper()
	if fortran && len(shape) > 1 {
		values = cToFortran(values, shape)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if descr[0] == '>' {
		order = binary.BigEndian
	}
	size, _ := strconv.Atoi(descr[2:])
	var typed any
	switch kind := descr[1:2] + strconv.Itoa(size); kind {
	case "b1", "u1", "u2", "u4", "u8":
		typed = convert(values, map[int]any{1: uint8(0), 2: uint16(0), 4: uint32(0), 8: uint64(0)}[size])
	case "i1", "i2", "i4", "i8":
		typed = convert(values, map[int]any{1: int8(0), 2: int16(0), 4: int32(0), 8: int64(0)}[size])
	case "f2":
		h := make([]uint16, len(values))
		for i, v := range values {
			h[i] = float16.New(float32(v)).Uint16()
		}
		typed = h
	case "f4":
		typed = convert(values, float32(0))
	case "f8":
		typed = values
	default:
		t.Fatalf("npyBytes: dtype %s", descr)
	}
	var data bytes.Buffer
	if err := binary.Write(&data, order, typed); err != nil {
		t.Fatal(err)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
		map[bool]string{false: "False", true: "True"}[fortran], ShapeString(shape))
	for (10+len(dict)+1)%64 != 0 {
		dict += " "
	}
	return rawFile(1, dict+"\n", data.Bytes())
}

// convert returns values as a slice of the type of zero.
func convert(values []float64, zero any) any {
	out := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(zero)), len(values), len(values))
	for i, v := range values {
		out.Index(i).Set(reflect.ValueOf(v).Convert(reflect.TypeOf(zero)))
	}
	return out.Interface()
}

// cToFortran reorders row-major values column-major: element [i,j,k] of
// shape (a,b,c) goes to i + a*j + a*b*k.
func cToFortran(values []float64, shape []int) []float64 {
	out := make([]float64, len(values))
	for c := range values {
		f, rest, stride := 0, c, 1
		strides := make([]int, len(shape))
		for k := range shape {
			strides[k] = stride
			stride *= shape[k]
		}
		for k := len(shape) - 1; k >= 0; k-- {
			f += (rest % shape[k]) * strides[k]
			rest /= shape[k]
		}
		out[f] = values[c]
	}
	return out
}

// rawFile assembles a .npy file from a header text and raw data bytes.
func rawFile(major byte, dict string, data []byte) []byte {
	b := []byte("\x93NUMPY")
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	}
	b = append(b, dict...)
	return append(b, data...)
}

// allDTypes lists every supported descriptor in both byte orders.
var allDTypes = []string{
	"|b1", "|i1", "|u1",
	"<i2", ">i2", "<i4", ">i4", "<i8", ">i8",
	"<u2", ">u2", "<u4", ">u4", "<u8", ">u8",
	"<f2", ">f2", "<f4", ">f4", "<f8", ">f8",
}

// sample returns n values exactly representable in dtype descr, with the
// extremes of the type first to exercise every byte.
func sample(descr string, n int) []float64 {
	kind, size := descr[1], int(descr[2]-'0')
	v := make([]float64, n)
	for i := range v {
		switch kind {
		case 'b':
			v[i] = float64(i % 2)
		case 'u':
			v[i] = float64((i * 37) % 251)
		case 'i':
			v[i] = float64((i*37)%251) - 125
		case 'f':
			v[i] = float64(i)*0.25 - 3 // multiples of 1/4 are exact in float16 here
		}
	}
	if n >= 2 {
		switch {
		case kind == 'i' && size == 8:
			v[0], v[1] = -math.Ldexp(1, 63), math.Ldexp(1, 62)
		case kind == 'i':
			v[0], v[1] = -math.Ldexp(1, 8*size-1), math.Ldexp(1, 8*size-1)-1
		case kind == 'u' && size == 8:
			v[1] = math.Ldexp(1, 63) + math.Ldexp(1, 11)
		case kind == 'u':
			v[1] = math.Ldexp(1, 8*size) - 1
		case kind == 'f' && size == 2:
			v[1] = 65504 // largest float16
		case kind == 'f' && size == 4:
			v[1] = float64(math.MaxFloat32)
		case kind == 'f':
			v[1] = math.SmallestNonzeroFloat64
		}
	}
	return v
}

func equalData(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func TestReadEveryDTypeAndOrder(t *testing.T) {
	t.Parallel()
	shapes := [][]int{{4, 5}, {2, 3, 4}, {1, 7}, {3, 1, 2}, {6}, {}, {0, 3}}
	for _, descr := range allDTypes {
		for _, fortran := range []bool{false, true} {
			for _, shape := range shapes {
				name := fmt.Sprintf("%s/fortran=%v/%v", descr, fortran, shape)
				want := sample(descr, numElems(shape))
				got, err := ReadNpy(bytes.NewReader(npyBytes(t, descr, fortran, shape, want)))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !reflect.DeepEqual(got.Shape, shape) || !equalData(got.Data, want) {
					t.Errorf("%s: got %v %v, want %v", name, got.Shape, got.Data, want)
				}
			}
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	for _, shape := range [][]int{{}, {5}, {2, 3}, {2, 3, 4}, {1, 2, 1, 3}} {
		a := &Array{Shape: shape, Data: make([]float64, numElems(shape))}
		for i := range a.Data {
			a.Data[i] = float64(i)*0.1 - 1
		}
		if len(a.Data) > 1 {
			a.Data[1] = math.NaN()
		}
		path := filepath.Join(t.TempDir(), "a.npy")
		if err := WriteNpyFile(path, a); err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		b, err := ReadNpyFile(path)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if !reflect.DeepEqual(b.Shape, shape) || !equalData(a.Data, b.Data) {
			t.Errorf("%v: read back %v %v", shape, b.Shape, b.Data)
		}
	}
}

func TestWriteRejectsBadArrays(t *testing.T) {
	t.Parallel()
	for _, a := range []*Array{
		{Shape: []int{2, 2}, Data: make([]float64, 3)},
		{Shape: []int{-1}, Data: nil},
		{Shape: []int{0, 3}, Data: nil},
		{Shape: []int{3, 0}, Data: nil},
		{Shape: []int{0}, Data: nil},
		{Shape: []int{}, Data: nil},
	} {
		var buf bytes.Buffer
		if err := WriteNpy(&buf, a); err == nil || !strings.HasPrefix(err.Error(), "dataset: ") {
			t.Errorf("shape %v with %d values: err = %v", a.Shape, len(a.Data), err)
		}
	}
	// A failed file write leaves the old file and no temporary behind.
	dir := t.TempDir()
	path := filepath.Join(dir, "m.npy")
	if err := WriteNpyFile(path, &Array{Shape: []int{1}, Data: []float64{7}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteNpyFile(path, &Array{Shape: []int{2}, Data: []float64{1}}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad write: err = %v, want one naming %s", err, path)
	}
	entries, _ := os.ReadDir(dir)
	if a, err := ReadNpyFile(path); err != nil || a.Data[0] != 7 || len(entries) != 1 {
		t.Errorf("after a failed write: %v %v, %d entries", a, err, len(entries))
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	good := "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }\n"
	hdr := func(descr, shape string) string {
		return "{'descr': " + descr + ", 'fortran_order': False, 'shape': " + shape + ", }\n"
	}
	data := make([]byte, 32)
	full := rawFile(1, good, data)
	tests := []struct {
		name string
		file []byte
		is   error
		msg  string
	}{
		{"empty", nil, ErrFormat, "empty file"},
		{"not npy", []byte("PK\x03\x04 this is a zip"), ErrFormat, "magic"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00"), ErrFormat, "magic"},
		{"magic only", []byte("\x93NUMPY"), ErrTruncated, "header cut short"},
		{"version 4", rawFile(4, good, data), ErrFormat, "version 4.0"},
		{"version 3", rawFile(3, good, data), ErrFormat, "version 3.0"},
		{"header cut", full[:40], ErrTruncated, "header cut short"},
		{"no newline", rawFile(1, strings.TrimSuffix(good, "\n"), data), ErrFormat, "newline"},
		{"data cut", full[:len(full)-5], ErrTruncated, "needs 32 data bytes, the file has 27"},
		{"no data", full[:len(full)-32], ErrTruncated, "the file has 0"},
		{"trailing", append(append([]byte{}, full...), 0), ErrFormat, "unexpected bytes"},
		{"complex", rawFile(1, hdr("'<c16'", "(2,)"), data), ErrUnsupported, "<c16"},
		{"string", rawFile(1, hdr("'<U6'", "(2,)"), data), ErrUnsupported, "<U6"},
		{"object", rawFile(1, hdr("'|O'", "(2,)"), data), ErrUnsupported, "|O"},
		{"long double", rawFile(1, hdr("'<f16'", "(2,)"), data), ErrUnsupported, "<f16"},
		{"datetime", rawFile(1, hdr("'<M8[ns]'", "(2,)"), data), ErrUnsupported, "M8"},
		{"structured", rawFile(1, hdr("[('a', '<f8')]", "(2,)"), data), ErrUnsupported, "('a', '<f8')"},
		{"missing shape", rawFile(1, "{'descr': '<f8', 'fortran_order': False}\n", data), ErrFormat, "header"},
		{"bad order", rawFile(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (4,), }\n", data), ErrFormat, "fortran_order"},
		{"negative dim", rawFile(1, hdr("'<f8'", "(-4,)"), data), ErrFormat, "negative dimension"},
		{"not a dict", rawFile(1, "hello", data), ErrFormat, "header"},
		{"huge shape", rawFile(1, hdr("'<f8'", "(100000000000, 100000000000)"), data), ErrFormat, "too large"},
		{"promises a lot", rawFile(1, hdr("'<f8'", "(1000000000,)"), data), ErrTruncated, "the file has 32"},
		{"huge header length", append([]byte("\x93NUMPY\x02\x00"), 0xff, 0xff, 0xff, 0x7f), ErrFormat, "exceeds the limit"},
	}
	for _, tc := range tests {
		for _, stream := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(tc.file)
			if stream { // a reader of unknown length
				r = io.MultiReader(r)
			}
			_, err := ReadNpy(r)
			if err == nil {
				t.Errorf("%s (stream %v): no error", tc.name, stream)
				continue
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("%s (stream %v): error %q does not wrap %v", tc.name, stream, err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "dataset: ") {
				t.Errorf("%s (stream %v): error %q, want it to contain %q", tc.name, stream, err, tc.msg)
			}
		}
	}
}

func TestReadNpyFileNamesTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "array-07.npy")
	if err := os.WriteFile(path, []byte("\x93NUMPY\x01\x00\x10"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadNpyFile(path)
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, ErrTruncated) {
		t.Errorf("err = %v, want a truncation error naming %s", err, path)
	}
	missing := filepath.Join(dir, "nope.npy")
	if _, err := ReadNpyFile(missing); err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want a not-exist error naming %s", err, missing)
	}
}

// TestNumPyWrittenFiles reads files that NumPy itself wrote, shipped in the
// npyio module's testdata (in the module cache). Skipped if unavailable.
func TestNumPyWrittenFiles(t *testing.T) {
	t.Parallel()
	dir := npyioTestdata(t)
	for _, typ := range []string{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"} {
		for _, order := range []string{"corder", "forder"} {
			path := filepath.Join(dir, "data_"+typ+"_2x3_"+order+".npy")
			a, err := ReadNpyFile(path)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			// Both files hold 0..5 in disk order; Fortran order transposes that.
			want := []float64{0, 1, 2, 3, 4, 5}
			if order == "forder" {
				want = []float64{0, 2, 4, 1, 3, 5}
			}
			if !reflect.DeepEqual(a.Shape, []int{2, 3}) || !equalData(a.Data, want) {
				t.Errorf("%s: %v %v, want %v", path, a.Shape, a.Data, want)
			}
		}
	}
	a, err := ReadNpyFile(filepath.Join(dir, "data_float64_2x3x4_corder.npy"))
	if err != nil || !reflect.DeepEqual(a.Shape, []int{2, 3, 4}) || a.Data[23] != 23 {
		t.Errorf("3-D: %v %v", a, err)
	}
	for _, name := range []string{"data_s6_2x3_corder.npy", "data_u6_2x3_corder.npy", "struct-aligned-0_corder.npy", "ragged-array.npy"} {
		if _, err := ReadNpyFile(filepath.Join(dir, name)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", name, err)
		}
	}
}

func npyioTestdata(t *testing.T) string {
	t.Helper()
	gocmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gocmd, "list", "-m", "-f", "{{.Dir}}", "codeberg.org/sbinet/npyio").Output()
	dir := filepath.Join(strings.TrimSpace(string(out)), "testdata")
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Skipf("npyio module directory not found (%v); skipping NumPy-written files", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("npyio testdata absent: %v", err)
	}
	return dir
}

// TestReferenceNpyFiles reads the reference data set files one by one.
func TestReferenceNpyFiles(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	tests := []struct {
		glob  string
		shape []int
	}{
		{"toydataF3/array-*.npy", []int{50, 50}},
		{"toydataF6/array-*.npy", []int{50, 50}},
		{"country1/hists16/*.npy", []int{16, 16, 16}},
		{"seldovia2/hists16/*.npy", []int{16, 16, 16}},
	}
	for _, tc := range tests {
		files, _ := filepath.Glob(filepath.Join(dir, tc.glob))
		if len(files) == 0 {
			t.Errorf("%s: no files", tc.glob)
		}
		for _, f := range files {
			a, err := ReadNpyFile(f)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			if !reflect.DeepEqual(a.Shape, tc.shape) {
				t.Errorf("%s: shape %v, want %v", f, a.Shape, tc.shape)
			}
			sum := 0.0
			for _, v := range a.Data {
				sum += v
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Errorf("%s: sum %v, want 1", f, sum)
			}
		}
	}
}
