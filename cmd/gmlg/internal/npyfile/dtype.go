package npyfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"codeberg.org/sbinet/npyio/npy/float16"
)

// DType is a parsed numeric NumPy dtype descriptor such as "<f8".
type DType struct {
	// Kind is 'b' (bool), 'i' (signed integer), 'u' (unsigned integer) or
	// 'f' (IEEE floating point).
	Kind byte
	// Size is the element size in bytes.
	Size int
	// BigEndian reports a '>' byte order. One-byte types are never big-endian.
	BigEndian bool
}

// ParseDType parses a NumPy descriptor string ("<f8", ">i4", "|u1", "|b1",
// "f4", "=f8"). Unsupported types return an error wrapping ErrUnsupported.
func ParseDType(descr string) (DType, error) {
	s := descr
	var order byte = '='
	if len(s) > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=') {
		order, s = s[0], s[1:]
	}
	if len(s) < 2 {
		return DType{}, fmt.Errorf("%w %q", ErrUnsupported, descr)
	}
	kind := s[0]
	size, err := strconv.Atoi(s[1:])
	if err != nil {
		return DType{}, fmt.Errorf("%w %q", ErrUnsupported, descr)
	}
	ok := false
	switch kind {
	case 'b':
		ok = size == 1
	case 'i', 'u':
		ok = size == 1 || size == 2 || size == 4 || size == 8
	case 'f':
		ok = size == 2 || size == 4 || size == 8
	}
	if !ok {
		return DType{}, fmt.Errorf("%w %q (supported: bool, int8..int64, uint8..uint64, float16, float32, float64)", ErrUnsupported, descr)
	}
	if order == '|' && size != 1 {
		return DType{}, fmt.Errorf("%w %q: byte order '|' on a %d-byte type", ErrUnsupported, descr, size)
	}
	return DType{Kind: kind, Size: size, BigEndian: order == '>' && size > 1}, nil
}

// String returns the descriptor as NumPy writes it, for example "<f8" or "|u1".
func (d DType) String() string {
	o := byte('<')
	switch {
	case d.Size == 1:
		o = '|'
	case d.BigEndian:
		o = '>'
	}
	return string(o) + string(d.Kind) + strconv.Itoa(d.Size)
}

func (d DType) order() binary.ByteOrder {
	if d.BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// decode converts len(dst) elements from src (len(dst)*d.Size bytes).
// The type switch sits outside the loops.
func (d DType) decode(dst []float64, src []byte) {
	bo := d.order()
	switch {
	case d.Kind == 'b':
		for i := range dst {
			dst[i] = 0
			if src[i] != 0 {
				dst[i] = 1
			}
		}
	case d.Kind == 'i' && d.Size == 1:
		for i := range dst {
			dst[i] = float64(int8(src[i]))
		}
	case d.Kind == 'u' && d.Size == 1:
		for i := range dst {
			dst[i] = float64(src[i])
		}
	case d.Kind == 'i' && d.Size == 2:
		for i := range dst {
			dst[i] = float64(int16(bo.Uint16(src[2*i:])))
		}
	case d.Kind == 'u' && d.Size == 2:
		for i := range dst {
			dst[i] = float64(bo.Uint16(src[2*i:]))
		}
	case d.Kind == 'f' && d.Size == 2:
		for i := range dst {
			dst[i] = float64(float16.Float16Frombits(bo.Uint16(src[2*i:])).Float32())
		}
	case d.Kind == 'i' && d.Size == 4:
		for i := range dst {
			dst[i] = float64(int32(bo.Uint32(src[4*i:])))
		}
	case d.Kind == 'u' && d.Size == 4:
		for i := range dst {
			dst[i] = float64(bo.Uint32(src[4*i:]))
		}
	case d.Kind == 'f' && d.Size == 4:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(bo.Uint32(src[4*i:])))
		}
	case d.Kind == 'i' && d.Size == 8:
		for i := range dst {
			dst[i] = float64(int64(bo.Uint64(src[8*i:])))
		}
	case d.Kind == 'u' && d.Size == 8:
		for i := range dst {
			dst[i] = float64(bo.Uint64(src[8*i:]))
		}
	case d.Kind == 'f' && d.Size == 8:
		for i := range dst {
			dst[i] = math.Float64frombits(bo.Uint64(src[8*i:]))
		}
	default:
		panic("npyfile: decode of an unparsed dtype " + d.String())
	}
}

// encode converts src to d's representation in dst (len(src)*d.Size bytes).
// It fails on values the type cannot hold: non-integers or out-of-range
// values for integer and bool types, finite values that overflow a float type.
// off is the index of src[0] in the whole array, for error messages.
func (d DType) encode(dst []byte, src []float64, off int) error {
	bo := d.order()
	sz := d.Size
	for i, v := range src {
		b := dst[i*sz : i*sz+sz]
		bad := func() error {
			return fmt.Errorf("value %v at flat index %d does not fit dtype %s", v, off+i, d)
		}
		switch d.Kind {
		case 'b':
			switch v {
			case 0:
				b[0] = 0
			case 1:
				b[0] = 1
			default:
				return bad()
			}
		case 'i':
			lim := math.Ldexp(1, 8*sz-1)
			if v != math.Trunc(v) || v < -lim || v >= lim {
				return bad()
			}
			x := int64(v)
			switch sz {
			case 1:
				b[0] = byte(int8(x))
			case 2:
				bo.PutUint16(b, uint16(int16(x)))
			case 4:
				bo.PutUint32(b, uint32(int32(x)))
			case 8:
				bo.PutUint64(b, uint64(x))
			}
		case 'u':
			lim := math.Ldexp(1, 8*sz)
			if v != math.Trunc(v) || v < 0 || v >= lim {
				return bad()
			}
			x := uint64(v)
			switch sz {
			case 1:
				b[0] = byte(x)
			case 2:
				bo.PutUint16(b, uint16(x))
			case 4:
				bo.PutUint32(b, uint32(x))
			case 8:
				bo.PutUint64(b, x)
			}
		case 'f':
			switch sz {
			case 2:
				h := float16.New(float32(v))
				if math.IsInf(float64(h.Float32()), 0) && !math.IsInf(v, 0) {
					return bad()
				}
				bo.PutUint16(b, h.Uint16())
			case 4:
				f := float32(v)
				if math.IsInf(float64(f), 0) && !math.IsInf(v, 0) {
					return bad()
				}
				bo.PutUint32(b, math.Float32bits(f))
			case 8:
				bo.PutUint64(b, math.Float64bits(v))
			}
		}
	}
	return nil
}
