package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"codeberg.org/sbinet/npyio/npy"
	"codeberg.org/sbinet/npyio/npy/float16"
	"gonum.org/v1/gonum/mat"

	"github.com/gmlg/gmlg/learn/rundir"
)

// Errors wrapped by the .npy reader. Test with errors.Is.
var (
	ErrFormat      = errors.New("invalid .npy format")    // not a well-formed .npy file
	ErrTruncated   = errors.New("truncated .npy file")    // shorter than its header promises
	ErrUnsupported = errors.New("unsupported .npy dtype") // not convertible to float64
)

const (
	// maxHeaderLen bounds the header text of a version 2 file, whose 4-byte
	// length field could otherwise make the reader allocate gigabytes from
	// a 12-byte file (NumPy's own max_header_size is 10000).
	maxHeaderLen = 1 << 20
	// maxElems bounds a header's element count, so that its byte count
	// cannot overflow.
	maxElems = 1 << 50
)

// Array is a dense array of float64 values in C (row-major) order: for
// Shape [a, b, c] the element [i, j, k] is Data[(i*b+j)*c+k].
type Array struct {
	Shape []int
	Data  []float64
}

// Len returns the number of elements implied by the shape.
func (a *Array) Len() int { return numElems(a.Shape) }

func numElems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// ShapeString formats a shape as NumPy prints it: "()", "(5,)", "(50, 50)".
func ShapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.Itoa(d)
	}
	if len(shape) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// ReadNpy reads a whole .npy stream and converts it to float64 in C order.
func ReadNpy(r io.Reader) (*Array, error) {
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok { // bytes.Reader, bytes.Buffer, strings.Reader
		size = int64(l.Len())
	}
	a, err := readNpy(r, size, nil)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return a, nil
}

// ReadNpyFile reads the .npy file at path. Errors name the file.
func ReadNpyFile(path string) (*Array, error) {
	return readNpyFile(path, nil)
}

// readNpyFile is ReadNpyFile with a check of the header's shape (readNpy).
func readNpyFile(path string, check func(shape []int) error) (*Array, error) {
	f, err := rundir.OpenInput(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	a, err := readNpy(bufio.NewReaderSize(f, 64<<10), size, check)
	if err != nil {
		var stop checkError
		if errors.As(err, &stop) {
			return nil, stop.err
		}
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	return a, nil
}

// checkError carries a shape check's error through readNpy unchanged.
type checkError struct{ err error }

func (e checkError) Error() string { return e.err.Error() }

// header is what readNpy needs from a .npy header.
type header struct {
	shape   []int
	fortran bool
	descr   string // as written, e.g. '<f8'
	size    int    // bytes per element
	offset  int64  // bytes before the data
}

// readNpy decodes a .npy stream of total length size (-1 when unknown) with
// npyio, bounding what npyio is given and checking what it returns (see
// the package documentation). check, when not nil, vets the shape before
// the data is read.
func readNpy(r io.Reader, size int64, check func(shape []int) error) (*Array, error) {
	pre, text, err := readPrelude(r)
	if err != nil {
		return nil, err
	}
	src := &countingReader{r: r}
	nr, err := newNpyReader(pre, clip(text), src)
	if err != nil {
		return nil, err
	}
	h, err := checkHeader(nr.Header, int64(len(pre)))
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(h.shape); err != nil {
			return nil, checkError{err}
		}
	}
	n := int64(numElems(h.shape))
	need := n * int64(h.size)
	if size >= 0 && size-h.offset < need {
		return nil, fmt.Errorf("%w: shape %s of %s needs %d data bytes, the file has %d",
			ErrTruncated, ShapeString(h.shape), h.descr, need, max(size-h.offset, 0))
	}
	src.left, src.read = need, 0
	data, err := decode(nr)
	if src.read < need {
		return nil, fmt.Errorf("%w: shape %s of %s needs %d data bytes, the file has %d",
			ErrTruncated, ShapeString(h.shape), h.descr, need, src.read)
	}
	if err != nil {
		return nil, err
	}
	if len(data) != int(n) {
		return nil, fmt.Errorf("%w: shape %s holds %d elements, npyio decoded %d", ErrFormat, ShapeString(h.shape), n, len(data))
	}
	var one [1]byte
	if m, _ := io.ReadFull(r, one[:]); m != 0 {
		return nil, fmt.Errorf("%w: unexpected bytes after the %d data elements of shape %s", ErrFormat, n, ShapeString(h.shape))
	}
	if h.fortran && len(h.shape) > 1 {
		data = fortranToC(data, h.shape)
	}
	return &Array{Shape: h.shape, Data: data}, nil
}

// readPrelude reads the whole header (magic string, version, length and
// text), which npyio neither bounds nor checks is all there, and returns
// it and its text.
func readPrelude(r io.Reader) (pre []byte, text string, err error) {
	const magic = "\x93NUMPY"
	pre = make([]byte, 12)
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		switch {
		case n == 0:
			return nil, "", fmt.Errorf("%w: empty file", ErrFormat)
		case n >= len(magic) || string(pre[:n]) == magic[:n]:
			return nil, "", fmt.Errorf("%w: header cut short after %d bytes", ErrTruncated, n)
		}
		return nil, "", fmt.Errorf("%w: no NUMPY magic string", ErrFormat)
	}
	if string(pre[:6]) != magic {
		return nil, "", fmt.Errorf("%w: no NUMPY magic string", ErrFormat)
	}
	width := 4
	switch {
	case pre[6] == 1 && pre[7] == 0:
		width = 2
	case pre[6] == 2 && pre[7] == 0:
	default:
		return nil, "", fmt.Errorf("%w: format version %d.%d; npyio reads versions 1.0 and 2.0", ErrFormat, pre[6], pre[7])
	}
	pre = pre[:8+width]
	if _, err := io.ReadFull(r, pre[8:]); err != nil {
		return nil, "", fmt.Errorf("%w: header length cut short", ErrTruncated)
	}
	hlen := uint32(binary.LittleEndian.Uint16(pre[8:]))
	if width == 4 {
		hlen = binary.LittleEndian.Uint32(pre[8:])
	}
	if hlen > maxHeaderLen {
		return nil, "", fmt.Errorf("%w: header length %d exceeds the limit of %d bytes", ErrFormat, hlen, maxHeaderLen)
	}
	pre = append(pre, make([]byte, hlen)...)
	if n, err := io.ReadFull(r, pre[8+width:]); err != nil {
		return nil, "", fmt.Errorf("%w: header cut short, %d of its %d bytes", ErrTruncated, n, hlen)
	}
	text = string(pre[8+width:])
	if !strings.HasSuffix(text, "\n") {
		return nil, "", fmt.Errorf("%w: header %q does not end with a newline", ErrFormat, clip(text))
	}
	return pre, text, nil
}

// clip shortens a header text for an error message.
func clip(s string) string {
	s = strings.TrimRight(s, " \n\x00")
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// newNpyReader parses the header pre, whose text is text, with npyio and
// returns the reader that goes on with the data from src. npyio's panics
// on a malformed header are returned as ErrFormat.
func newNpyReader(pre []byte, text string, src io.Reader) (nr *npy.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			nr, err = nil, fmt.Errorf("%w: header %q: malformed (%v)", ErrFormat, text, p)
		}
	}()
	nr, err = npy.NewReader(io.MultiReader(bytes.NewReader(pre), src))
	if err != nil {
		return nil, fmt.Errorf("%w: header %q: %w", ErrFormat, text, err)
	}
	return nr, nil
}

// elemSize gives the bytes of the Go types npyio decodes the dtypes to.
var elemSize = map[reflect.Type]int{
	reflect.TypeFor[bool](): 1, reflect.TypeFor[int8](): 1, reflect.TypeFor[uint8](): 1,
	reflect.TypeFor[int16](): 2, reflect.TypeFor[uint16](): 2, reflect.TypeFor[float16.Num](): 2,
	reflect.TypeFor[int32](): 4, reflect.TypeFor[uint32](): 4, reflect.TypeFor[float32](): 4,
	reflect.TypeFor[int64](): 8, reflect.TypeFor[uint64](): 8, reflect.TypeFor[float64](): 8,
}

// checkHeader checks the header npyio parsed: a numeric dtype and a shape
// of non-negative dimensions and a bounded element count.
func checkHeader(nh npy.Header, offset int64) (*header, error) {
	h := &header{shape: nh.Descr.Shape, fortran: nh.Descr.Fortran, descr: nh.Descr.Type, offset: offset}
	t, err := typeOf(h.descr)
	if err != nil {
		return nil, err
	}
	if h.size = elemSize[t]; h.size == 0 {
		return nil, fmt.Errorf("%w %s (supported: bool, int8..int64, uint8..uint64, float16, float32, float64)", ErrUnsupported, h.descr)
	}
	if h.shape == nil {
		h.shape = []int{}
	}
	n := uint64(1)
	for _, d := range h.shape {
		if d < 0 {
			return nil, fmt.Errorf("%w: negative dimension in shape %s", ErrFormat, ShapeString(h.shape))
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > maxElems {
			return nil, fmt.Errorf("%w: shape %s is too large", ErrFormat, ShapeString(h.shape))
		}
		n = lo
	}
	return h, nil
}

// typeOf returns the Go type npyio decodes descr to; its panic on a descr
// it cannot parse is returned as ErrUnsupported.
func typeOf(descr string) (t reflect.Type, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%w %s", ErrUnsupported, descr)
		}
	}()
	return npy.TypeFrom(descr), nil
}

// countingReader passes at most left bytes of r and counts them.
type countingReader struct {
	r          io.Reader
	left, read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.read += int64(n)
	return n, err
}

// decode reads the data with npyio and converts it to float64. npyio's
// panic on a cut-off last element is returned as ErrTruncated.
func decode(nr *npy.Reader) (data []float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("%w: %v", ErrTruncated, p)
		}
	}()
	var arr npy.Array
	if err := nr.Read(&arr); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	switch v := arr.Data().(type) {
	case []float64:
		return v, nil
	case []float32:
		return widen(v), nil
	case []float16.Num:
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x.Float32())
		}
		return out, nil
	case []bool:
		out := make([]float64, len(v))
		for i, x := range v {
			if x {
				out[i] = 1
			}
		}
		return out, nil
	case []int8:
		return widen(v), nil
	case []int16:
		return widen(v), nil
	case []int32:
		return widen(v), nil
	case []int64:
		return widen(v), nil
	case []uint8:
		return widen(v), nil
	case []uint16:
		return widen(v), nil
	case []uint32:
		return widen(v), nil
	case []uint64:
		return widen(v), nil
	}
	return nil, fmt.Errorf("%w: npyio decoded %T", ErrUnsupported, arr.Data())
}

type real interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32
}

// widen converts numbers to float64; integers above 2^53 are rounded.
func widen[T real](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// fortranToC reorders column-major data of the given shape to row-major:
// it walks the C index while keeping the matching Fortran offset.
func fortranToC(src []float64, shape []int) []float64 {
	nd := len(shape)
	stride := make([]int, nd)
	s := 1
	for k := range nd {
		stride[k] = s
		s *= shape[k]
	}
	dst := make([]float64, len(src))
	idx := make([]int, nd)
	f := 0
	for c := range dst {
		dst[c] = src[f]
		for k := nd - 1; k >= 0; k-- { // next C multi-index, last axis fastest
			idx[k]++
			f += stride[k]
			if idx[k] < shape[k] {
				break
			}
			f -= idx[k] * stride[k]
			idx[k] = 0
		}
	}
	return dst
}

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
// arrays of the given shape named prefix-TT.npy (one sequence) or
// prefix-SS-TT.npy (several), the names Load reads back in order.
func WriteSequences(dir, prefix string, seqs [][][]float64, shape []int) error {
	for s, seq := range seqs {
		for j, f := range seq {
			name := fmt.Sprintf("%s-%02d.npy", prefix, j)
			if len(seqs) > 1 {
				name = fmt.Sprintf("%s-%02d-%02d.npy", prefix, s, j)
			}
			if err := WriteNpyFile(filepath.Join(dir, name), &Array{Shape: shape, Data: f}); err != nil {
				return err
			}
		}
	}
	return nil
}
