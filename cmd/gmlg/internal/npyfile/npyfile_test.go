package npyfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// allDTypes lists every supported descriptor in both byte orders.
var allDTypes = []string{
	"|b1", "|i1", "|u1",
	"<i2", ">i2", "<i4", ">i4", "<i8", ">i8",
	"<u2", ">u2", "<u4", ">u4", "<u8", ">u8",
	"<f2", ">f2", "<f4", ">f4", "<f8", ">f8",
}

// sample returns n values exactly representable in dtype descr.
func sample(descr string, n int) []float64 {
	dt, err := ParseDType(descr)
	if err != nil {
		panic(err)
	}
	v := make([]float64, n)
	for i := range v {
		switch dt.Kind {
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
	// Put the extremes of the type in, to exercise every byte.
	if n >= 2 {
		switch {
		case dt.Kind == 'i' && dt.Size == 8:
			v[0], v[1] = -math.Ldexp(1, 63), math.Ldexp(1, 62)
		case dt.Kind == 'i':
			v[0], v[1] = -math.Ldexp(1, 8*dt.Size-1), math.Ldexp(1, 8*dt.Size-1)-1
		case dt.Kind == 'u' && dt.Size == 8:
			v[1] = math.Ldexp(1, 63) + math.Ldexp(1, 11)
		case dt.Kind == 'u':
			v[1] = math.Ldexp(1, 8*dt.Size) - 1
		case dt.Kind == 'f' && dt.Size == 2:
			v[1] = 65504 // largest float16
		case dt.Kind == 'f' && dt.Size == 4:
			v[1] = float64(math.MaxFloat32)
		case dt.Kind == 'f':
			v[1] = math.SmallestNonzeroFloat64
		}
	}
	return v
}

func TestRoundTripEveryDTypeOrderVersion(t *testing.T) {
	t.Parallel()
	shapes := [][]int{{4, 5}, {2, 3, 4}, {1, 7}, {3, 1, 2}, {6}, {}, {0, 3}}
	for _, descr := range allDTypes {
		for _, fortran := range []bool{false, true} {
			for _, version := range []int{0, 1, 2, 3} {
				for _, shape := range shapes {
					name := fmt.Sprintf("%s/fortran=%v/v%d/%v", descr, fortran, version, shape)
					a := &Array{Shape: shape}
					a.Data = sample(descr, a.Len())
					var buf bytes.Buffer
					if err := Write(&buf, a, &WriteOptions{DType: descr, Fortran: fortran, Version: version}); err != nil {
						t.Fatalf("%s: write: %v", name, err)
					}
					if buf.Len()%64 != (a.Len()*dtypeSize(descr))%64 {
						t.Errorf("%s: data does not start on a 64-byte boundary", name)
					}
					h, err := ReadHeader(bytes.NewReader(buf.Bytes()))
					if err != nil {
						t.Fatalf("%s: header: %v", name, err)
					}
					wantV := version
					if wantV == 0 {
						wantV = 1
					}
					if h.Major != wantV || h.Fortran != fortran || h.DType.String() != descr ||
						!reflect.DeepEqual(h.Shape, shape) || h.DataOffset%64 != 0 {
						t.Errorf("%s: header = %+v", name, h)
					}
					got, err := Read(&buf)
					if err != nil {
						t.Fatalf("%s: read: %v", name, err)
					}
					if !reflect.DeepEqual(got.Shape, shape) {
						t.Errorf("%s: shape = %v", name, got.Shape)
					}
					if !equalData(got.Data, a.Data) {
						t.Errorf("%s: data = %v, want %v", name, got.Data, a.Data)
					}
				}
			}
		}
	}
}

func dataOffset(t *testing.T, b []byte) int {
	t.Helper()
	h, err := ReadHeader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return h.DataOffset
}

func dtypeSize(descr string) int {
	dt, _ := ParseDType(descr)
	return dt.Size
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

// TestFortranOrderLayout checks the on-disk order independently of the
// reader: a Fortran-order file of a 2×3 C array [[0 1 2] [3 4 5]] stores
// 0 3 1 4 2 5.
func TestFortranOrderLayout(t *testing.T) {
	t.Parallel()
	a := &Array{Shape: []int{2, 3}, Data: []float64{0, 1, 2, 3, 4, 5}}
	var buf bytes.Buffer
	if err := Write(&buf, a, &WriteOptions{DType: ">i2", Fortran: true}); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()[dataOffset(t, buf.Bytes()):]
	var got []int16
	for i := 0; i < len(raw); i += 2 {
		got = append(got, int16(binary.BigEndian.Uint16(raw[i:])))
	}
	if want := []int16{0, 3, 1, 4, 2, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("disk order = %v, want %v", got, want)
	}
	// 3-D: element [i,j,k] of shape (2,3,4) sits at i + 2j + 6k on disk.
	b := &Array{Shape: []int{2, 3, 4}, Data: make([]float64, 24)}
	for i := range b.Data {
		b.Data[i] = float64(i)
	}
	buf.Reset()
	if err := Write(&buf, b, &WriteOptions{DType: "|u1", Fortran: true}); err != nil {
		t.Fatal(err)
	}
	disk := buf.Bytes()[dataOffset(t, buf.Bytes()):]
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				if c := (i*3+j)*4 + k; disk[i+2*j+6*k] != byte(c) {
					t.Fatalf("disk[%d] = %d, want %d", i+2*j+6*k, disk[i+2*j+6*k], c)
				}
			}
		}
	}
}

// TestHeaderVariants feeds headers written the way different NumPy
// versions and hand-written tools do.
func TestHeaderVariants(t *testing.T) {
	t.Parallel()
	data := make([]byte, 16)
	binary.LittleEndian.PutUint64(data, math.Float64bits(1.5))
	binary.LittleEndian.PutUint64(data[8:], math.Float64bits(-2))
	tests := []struct {
		name  string
		dict  string
		shape []int
	}{
		{"numpy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", []int{2}},
		{"key order", "{'shape': (1, 2), 'fortran_order': False, 'descr': '<f8'}", []int{1, 2}},
		{"double quotes", `{"descr": "<f8", "fortran_order": False, "shape": (2, 1)}`, []int{2, 1}},
		{"python2 longs", "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 1L), }", []int{2, 1}},
		{"no padding", "{'descr':'<f8','fortran_order':False,'shape':(2,)}", []int{2}},
		{"native order", "{'descr': '=f8', 'fortran_order': False, 'shape': (2,), }", []int{2}},
		{"no order char", "{'descr': 'f8', 'fortran_order': False, 'shape': (2,), }", []int{2}},
	}
	for _, tc := range tests {
		for _, major := range []byte{1, 2, 3} {
			file := rawFile(major, tc.dict+"\n", data)
			a, err := Read(bytes.NewReader(file))
			if err != nil {
				t.Errorf("%s v%d: %v", tc.name, major, err)
				continue
			}
			if !reflect.DeepEqual(a.Shape, tc.shape) || a.Data[0] != 1.5 || a.Data[1] != -2 {
				t.Errorf("%s v%d: got %+v", tc.name, major, a)
			}
		}
	}
}

// rawFile assembles a .npy file from a header text and raw data bytes.
func rawFile(major byte, dict string, data []byte) []byte {
	b := []byte(magic)
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	}
	b = append(b, dict...)
	return append(b, data...)
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	good := "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }\n"
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
		{"magic only", []byte(magic), ErrTruncated, "header cut short"},
		{"bad version", rawFile(4, good, data), ErrFormat, "version 4.0"},
		{"header cut", full[:40], ErrTruncated, "header has"},
		{"data cut", full[:len(full)-5], ErrTruncated, "needs 32 data bytes, the file has 27"},
		{"no data", full[:len(full)-32], ErrTruncated, "the file has 0"},
		{"trailing", append(append([]byte{}, full...), 0), ErrFormat, "unexpected bytes"},
		{"complex", rawFile(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", data), ErrUnsupported, "<c16"},
		{"string", rawFile(1, "{'descr': '<U6', 'fortran_order': False, 'shape': (2,), }", data), ErrUnsupported, "<U6"},
		{"object", rawFile(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", data), ErrUnsupported, "|O"},
		{"long double", rawFile(1, "{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }", data), ErrUnsupported, "<f16"},
		{"datetime", rawFile(1, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (2,), }", data), ErrUnsupported, "M8"},
		{"structured", rawFile(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", data), ErrUnsupported, "structured"},
		{"pipe on f8", rawFile(1, "{'descr': '|f8', 'fortran_order': False, 'shape': (4,), }", data), ErrUnsupported, "byte order '|'"},
		{"missing shape", rawFile(1, "{'descr': '<f8', 'fortran_order': False}", data), ErrFormat, `missing key "shape"`},
		{"unknown key", rawFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), 'x': 1}", data), ErrFormat, `unexpected key "x"`},
		{"bad order", rawFile(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (4,)}", data), ErrFormat, "fortran_order"},
		{"negative dim", rawFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-4,)}", data), ErrFormat, "invalid dimension"},
		{"not a dict", rawFile(1, "hello", data), ErrFormat, "expected '{'"},
		{"huge shape", rawFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000, 100000000000)}", data), ErrFormat, "too large"},
		{"promises a lot", rawFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,)}", data), ErrTruncated, "the file has 32"},
		{"huge header length", append([]byte(magic+"\x02\x00"), 0xff, 0xff, 0xff, 0x7f), ErrFormat, "exceeds the limit"},
	}
	for _, tc := range tests {
		_, err := Read(bytes.NewReader(tc.file))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: error %q does not wrap %v", tc.name, err, tc.is)
		}
		if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "npyfile: ") {
			t.Errorf("%s: error %q, want it to contain %q", tc.name, err, tc.msg)
		}
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "array-07.npy")
	if err := os.WriteFile(path, []byte(magic+"\x01\x00\x10"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, ErrTruncated) {
		t.Errorf("err = %v, want a truncation error naming %s", err, path)
	}
	missing := filepath.Join(dir, "nope.npy")
	if _, err := ReadFile(missing); err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want a not-exist error naming %s", err, missing)
	}
}

func TestWriteRejectsValuesOutsideTheDType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		descr string
		v     float64
	}{
		{"|b1", 2}, {"|b1", 0.5}, {"|u1", 256}, {"|u1", -1}, {"|i1", 128}, {"|i1", -129},
		{"<i4", 1.5}, {"<i8", math.Ldexp(1, 63)}, {"<u8", math.Ldexp(1, 64)}, {"<i2", math.NaN()},
		{"<f4", 1e39}, {"<f2", 70000},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		err := Write(&buf, &Array{Shape: []int{2}, Data: []float64{0, tc.v}}, &WriteOptions{DType: tc.descr})
		if err == nil || !strings.Contains(err.Error(), "flat index 1") {
			t.Errorf("%s %v: err = %v, want a range error at index 1", tc.descr, tc.v, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%s %v: %d bytes written despite the error", tc.descr, tc.v, buf.Len())
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Shape: []int{1}, Data: []float64{1}}, &WriteOptions{DType: "<c8"}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("complex dtype: err = %v", err)
	}
	if err := Write(&buf, &Array{Shape: []int{1}, Data: []float64{1}}, &WriteOptions{Version: 7}); err == nil {
		t.Error("version 7: no error")
	}
}

func TestWriteFloat32RoundsAndKeepsSpecials(t *testing.T) {
	t.Parallel()
	in := []float64{0.1, math.Inf(1), math.NaN(), -1e-40}
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Shape: []int{4}, Data: in}, &WriteOptions{DType: "<f4"}); err != nil {
		t.Fatal(err)
	}
	a, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{float64(float32(0.1)), math.Inf(1), math.NaN(), float64(float32(-1e-40))}
	if !equalData(a.Data, want) {
		t.Errorf("got %v, want %v", a.Data, want)
	}
}

func TestLargeHeaderUsesVersion2(t *testing.T) {
	t.Parallel()
	shape := make([]int, 25000) // a header longer than 65535 bytes
	for i := range shape {
		shape[i] = 1
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Shape: shape, Data: []float64{42}}, nil); err != nil {
		t.Fatal(err)
	}
	if buf.Bytes()[6] != 2 {
		t.Errorf("version %d, want 2", buf.Bytes()[6])
	}
	a, err := Read(&buf)
	if err != nil || len(a.Shape) != 25000 || a.Data[0] != 42 {
		t.Errorf("read back: %v", err)
	}
	if err := Write(&buf, &Array{Shape: shape, Data: []float64{42}}, &WriteOptions{Version: 1}); err == nil {
		t.Error("forced version 1 with a huge header: no error")
	}
}

// TestAgainstNpyio cross-checks with the independent npyio implementation:
// files we write are read by npyio, and files npyio writes are read by us.
func TestAgainstNpyio(t *testing.T) {
	t.Parallel()
	m := mat.NewDense(3, 4, nil)
	for i := range 3 {
		for j := range 4 {
			m.Set(i, j, float64(i*10+j)+0.125)
		}
	}
	var buf bytes.Buffer
	if err := npy.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	a, err := Read(&buf)
	if err != nil {
		t.Fatalf("reading npyio output: %v", err)
	}
	if !reflect.DeepEqual(a.Shape, []int{3, 4}) || !equalData(a.Data, m.RawMatrix().Data) {
		t.Errorf("npyio → npyfile: %+v", a)
	}
	cube := [2][3][4]float32{}
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				cube[i][j][k] = float32(i*100 + j*10 + k)
			}
		}
	}
	buf.Reset()
	if err := npy.Write(&buf, cube); err != nil {
		t.Fatal(err)
	}
	if a, err = Read(&buf); err != nil {
		t.Fatalf("reading npyio 3-D output: %v", err)
	}
	if !reflect.DeepEqual(a.Shape, []int{2, 3, 4}) || a.Data[(1*3+2)*4+3] != 123 || a.Data[4] != 10 {
		t.Errorf("npyio 3-D → npyfile: %+v", a)
	}

	for _, fortran := range []bool{false, true} {
		buf.Reset()
		if err := Write(&buf, &Array{Shape: []int{3, 4}, Data: m.RawMatrix().Data}, &WriteOptions{Fortran: fortran}); err != nil {
			t.Fatal(err)
		}
		var back mat.Dense
		if err := npy.Read(&buf, &back); err != nil {
			t.Fatalf("npyio reading our output (fortran=%v): %v", fortran, err)
		}
		if !mat.Equal(&back, m) {
			t.Errorf("npyfile → npyio (fortran=%v): %v", fortran, mat.Formatted(&back))
		}
	}
	buf.Reset()
	if err := Write(&buf, &Array{Shape: []int{5}, Data: []float64{-3, 0, 7, 127, -128}}, &WriteOptions{DType: ">i2"}); err != nil {
		t.Fatal(err)
	}
	var ints []int16
	if err := npy.Read(&buf, &ints); err != nil || !reflect.DeepEqual(ints, []int16{-3, 0, 7, 127, -128}) {
		t.Errorf("npyio reading big-endian int16: %v %v", ints, err)
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
			a, h, err := ReadFileHeader(path)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			// Both files hold 0..5 in disk order; Fortran order transposes that.
			want := []float64{0, 1, 2, 3, 4, 5}
			if h.Fortran {
				want = []float64{0, 2, 4, 1, 3, 5}
			}
			if h.Fortran != (order == "forder") || !reflect.DeepEqual(a.Shape, []int{2, 3}) || !equalData(a.Data, want) {
				t.Errorf("%s: %v %v, want %v", path, a.Shape, a.Data, want)
			}
		}
	}
	a, err := ReadFile(filepath.Join(dir, "data_float64_2x3x4_corder.npy"))
	if err != nil || !reflect.DeepEqual(a.Shape, []int{2, 3, 4}) || a.Data[23] != 23 {
		t.Errorf("3-D: %v %v", a, err)
	}
	for _, name := range []string{"data_s6_2x3_corder.npy", "data_u6_2x3_corder.npy", "struct-aligned-0_corder.npy", "ragged-array.npy"} {
		if _, err := ReadFile(filepath.Join(dir, name)); !errors.Is(err, ErrUnsupported) {
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

// dataDir returns ../shared/data relative to the repository root, or skips.
func dataDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Skip("repository root (go.mod) not found")
		}
		root = parent
	}
	dir := filepath.Join(root, "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("reference data %s absent: %v", dir, err)
	}
	return dir
}

func TestReferenceData(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	tests := []struct {
		glob  string
		descr string
		shape []int
		off   int
	}{
		{"toydataF3/array-*.npy", "<f8", []int{50, 50}, 80},
		{"toydataF6/array-*.npy", "<f8", []int{50, 50}, 128},
		{"country1/hists16/*.npy", "<f4", []int{16, 16, 16}, 80},
		{"seldovia2/hists16/*.npy", "<f4", []int{16, 16, 16}, 128},
	}
	for _, tc := range tests {
		files, _ := filepath.Glob(filepath.Join(dir, tc.glob))
		if len(files) == 0 {
			t.Errorf("%s: no files", tc.glob)
		}
		for _, f := range files {
			a, h, err := ReadFileHeader(f)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			if h.DType.String() != tc.descr || h.DataOffset != tc.off || !reflect.DeepEqual(a.Shape, tc.shape) {
				t.Errorf("%s: %s %v offset %d", f, h.DType, a.Shape, h.DataOffset)
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
