package npyfile

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/atomicfile"
)

// Array is a dense n-dimensional array of float64 values in C (row-major)
// order: for Shape [a, b, c] the element [i, j, k] is Data[(i*b+j)*c+k].
type Array struct {
	Shape []int
	Data  []float64
}

// Len returns the number of elements implied by the shape.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Read reads a whole .npy stream and converts it to float64 in C order.
func Read(r io.Reader) (*Array, error) {
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok { // bytes.Reader, bytes.Buffer, strings.Reader
		size = int64(l.Len())
	}
	a, _, err := read(r, size)
	if err != nil {
		return nil, fmt.Errorf("npyfile: %w", err)
	}
	return a, nil
}

// ReadFile reads the .npy file at path. Errors name the file.
func ReadFile(path string) (*Array, error) {
	a, _, err := ReadFileHeader(path)
	return a, err
}

// ReadFileHeader is ReadFile that also returns the parsed header, for
// callers that report or check the dtype and order found on disk.
func ReadFileHeader(path string) (*Array, *Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("npyfile: %w", err)
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	a, h, err := read(bufio.NewReaderSize(f, 64<<10), size)
	if err != nil {
		return nil, nil, fmt.Errorf("npyfile: %s: %w", path, err)
	}
	return a, h, nil
}

// chunk is the number of elements decoded at a time.
const chunk = 8192

// read decodes a .npy stream. size is the total stream length when known
// (a regular file), or -1.
func read(r io.Reader, size int64) (*Array, *Header, error) {
	h, err := readHeader(r)
	if err != nil {
		return nil, nil, err
	}
	// Guard the element count against overflow before trusting it.
	n := uint64(1)
	for _, d := range h.Shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<50 {
			return nil, nil, fmt.Errorf("%w: shape %s is too large", ErrFormat, ShapeString(h.Shape))
		}
		n = lo
	}
	sz := h.DType.Size
	raw := make([]byte, chunk*sz)
	// Unless the file is known to hold all the data, grow the result only
	// as data actually arrives, so that a header promising more than the
	// file holds cannot force a huge allocation.
	var data []float64
	if size >= int64(h.DataOffset)+int64(n)*int64(sz) {
		data = make([]float64, 0, n)
	} else {
		data = make([]float64, 0, min(int(n), 1<<16))
	}
	for remaining := int(n); remaining > 0; {
		k := min(remaining, chunk)
		if got, err := io.ReadFull(r, raw[:k*sz]); err != nil {
			have := uint64(len(data)*sz + got)
			return nil, nil, fmt.Errorf("%w: shape %s of %s needs %d data bytes, the file has %d",
				ErrTruncated, ShapeString(h.Shape), h.DType, n*uint64(sz), have)
		}
		start := len(data)
		data = slices.Grow(data, k)[:start+k]
		h.DType.decode(data[start:], raw[:k*sz])
		remaining -= k
	}
	var one [1]byte
	if m, _ := io.ReadFull(r, one[:]); m != 0 {
		return nil, nil, fmt.Errorf("%w: unexpected bytes after the %d data elements of shape %s",
			ErrFormat, n, ShapeString(h.Shape))
	}
	shape := append([]int{}, h.Shape...)
	if h.Fortran && len(shape) > 1 {
		c := make([]float64, len(data))
		permute(c, data, shape, false)
		data = c
	}
	return &Array{Shape: shape, Data: data}, h, nil
}

// permute converts between C order and Fortran order for the given shape.
// With toFortran false, src is in Fortran order and dst receives C order;
// with toFortran true the roles are swapped. The loop walks the C index
// while keeping the matching Fortran offset up to date.
func permute(dst, src []float64, shape []int, toFortran bool) {
	nd := len(shape)
	fstride := make([]int, nd)
	s := 1
	for k := range nd {
		fstride[k] = s
		s *= shape[k]
	}
	idx := make([]int, nd)
	f := 0
	for c := range dst {
		if toFortran {
			dst[f] = src[c]
		} else {
			dst[c] = src[f]
		}
		// Increment the C multi-index (last axis fastest).
		for k := nd - 1; k >= 0; k-- {
			idx[k]++
			f += fstride[k]
			if idx[k] < shape[k] {
				break
			}
			f -= idx[k] * fstride[k]
			idx[k] = 0
		}
	}
}

// WriteOptions selects the on-disk representation. The zero value writes
// little-endian float64 in C order with the smallest format version that
// fits.
type WriteOptions struct {
	// DType is the NumPy descriptor to write, e.g. "<f4" or ">i2".
	// Empty means "<f8". Integer and bool types require every value to be
	// exactly representable; float types round to nearest (float16 via
	// float32) and fail on finite values that overflow.
	DType string
	// Fortran writes the data column-major with fortran_order: True.
	Fortran bool
	// Version is the format major version 1, 2 or 3. Zero means 1, or 2
	// when the header does not fit version 1's 65535-byte limit.
	Version int
}

// Write writes a as a .npy stream.
func Write(w io.Writer, a *Array, opt *WriteOptions) error {
	if err := write(w, a, opt); err != nil {
		return fmt.Errorf("npyfile: %w", err)
	}
	return nil
}

// WriteFile writes a to path atomically (temporary file, fsync, rename).
// Errors name the file.
func WriteFile(path string, a *Array, opt *WriteOptions) error {
	err := atomicfile.Write(path, 0, func(w io.Writer) error { return write(w, a, opt) })
	if err != nil {
		return fmt.Errorf("npyfile: %s: %w", path, err)
	}
	return nil
}

func write(w io.Writer, a *Array, opt *WriteOptions) error {
	if opt == nil {
		opt = &WriteOptions{}
	}
	for _, d := range a.Shape {
		if d < 0 {
			panic(fmt.Sprintf("npyfile: negative dimension in shape %v", a.Shape))
		}
	}
	if a.Len() != len(a.Data) {
		panic(fmt.Sprintf("npyfile: shape %v holds %d elements, Data has %d", a.Shape, a.Len(), len(a.Data)))
	}
	descr := opt.DType
	if descr == "" {
		descr = "<f8"
	}
	dt, err := ParseDType(descr)
	if err != nil {
		return err
	}
	order := "False"
	if opt.Fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", dt, order, ShapeString(a.Shape))
	version := opt.Version
	if version == 0 {
		version = 1
		if len(dict)+1+10 > 0xffff {
			version = 2
		}
	}
	pre := 10
	switch version {
	case 1:
	case 2, 3:
		pre = 12
	default:
		return fmt.Errorf("unknown format version %d", version)
	}
	// Pad with spaces and a final newline so the data starts at a multiple
	// of 64 bytes (NumPy's ARRAY_ALIGN).
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	hlen := total - pre
	if version == 1 && hlen > 0xffff {
		return fmt.Errorf("header of %d bytes does not fit format version 1", hlen)
	}
	hdr := make([]byte, 0, total)
	hdr = append(hdr, magic...)
	hdr = append(hdr, byte(version), 0)
	if version == 1 {
		hdr = append(hdr, byte(hlen), byte(hlen>>8))
	} else {
		hdr = append(hdr, byte(hlen), byte(hlen>>8), byte(hlen>>16), byte(hlen>>24))
	}
	hdr = append(hdr, dict...)
	for len(hdr) < total-1 {
		hdr = append(hdr, ' ')
	}
	hdr = append(hdr, '\n')

	src := a.Data
	if opt.Fortran && len(a.Shape) > 1 {
		src = make([]float64, len(a.Data))
		permute(src, a.Data, a.Shape, true)
	}
	// Encode everything before writing anything, so a value that does not
	// fit the dtype leaves the writer untouched.
	raw := make([]byte, len(src)*dt.Size)
	if err := dt.encode(raw, src, 0); err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err = w.Write(raw)
	return err
}
