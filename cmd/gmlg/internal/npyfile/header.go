package npyfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// magic starts every .npy file.
const magic = "\x93NUMPY"

// maxHeaderLen bounds the header text accepted by the reader, so that a
// corrupt length field cannot make it allocate gigabytes. NumPy's own default
// limit (max_header_size) is 10000 bytes.
const maxHeaderLen = 1 << 20

// Errors wrapped by the reader. Test with errors.Is.
var (
	// ErrFormat reports input that is not a well-formed .npy file.
	ErrFormat = errors.New("invalid .npy format")
	// ErrTruncated reports a file that ends before the data the header promises.
	ErrTruncated = errors.New("truncated .npy file")
	// ErrUnsupported reports a dtype this package cannot convert to float64.
	ErrUnsupported = errors.New("unsupported .npy dtype")
)

// Header is the parsed header of a .npy file.
type Header struct {
	// Major and Minor are the format version (1.0, 2.0 or 3.0).
	Major, Minor int
	// DType is the element type.
	DType DType
	// Fortran reports fortran_order: True (column-major data on disk).
	Fortran bool
	// Shape is the array shape; empty for a 0-D (scalar) array.
	Shape []int
	// DataOffset is the byte offset of the data from the start of the file.
	DataOffset int
}

// Len returns the number of elements, the product of Shape.
func (h *Header) Len() int {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

// ShapeString formats a shape as NumPy prints it: "()", "(5,)", "(50, 50)".
func ShapeString(shape []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// ReadHeader reads and parses the header of a .npy stream, leaving r at the
// first data byte.
func ReadHeader(r io.Reader) (*Header, error) {
	h, err := readHeader(r)
	if err != nil {
		return nil, fmt.Errorf("npyfile: %w", err)
	}
	return h, nil
}

func readHeader(r io.Reader) (*Header, error) {
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		if n >= len(magic) || (n > 0 && string(pre[:n]) == magic[:n]) {
			return nil, fmt.Errorf("%w: header cut short after %d bytes", ErrTruncated, n)
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: empty file", ErrFormat)
		}
		return nil, fmt.Errorf("%w: no NUMPY magic string", ErrFormat)
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("%w: no NUMPY magic string", ErrFormat)
	}
	h := &Header{Major: int(pre[6]), Minor: int(pre[7])}
	var hlen int
	switch h.Major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, fmt.Errorf("%w: header length cut short", ErrTruncated)
		}
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
		h.DataOffset = 10 + hlen
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, fmt.Errorf("%w: header length cut short", ErrTruncated)
		}
		u := binary.LittleEndian.Uint32(l[:])
		if u > maxHeaderLen {
			return nil, fmt.Errorf("%w: header length %d exceeds the limit of %d bytes", ErrFormat, u, maxHeaderLen)
		}
		hlen = int(u)
		h.DataOffset = 12 + hlen
	default:
		return nil, fmt.Errorf("%w: unknown format version %d.%d", ErrFormat, h.Major, h.Minor)
	}
	if h.Minor != 0 {
		return nil, fmt.Errorf("%w: unknown format version %d.%d", ErrFormat, h.Major, h.Minor)
	}
	text := make([]byte, hlen)
	if n, err := io.ReadFull(r, text); err != nil {
		return nil, fmt.Errorf("%w: header has %d of %d bytes", ErrTruncated, n, hlen)
	}
	var s string
	if h.Major == 3 {
		if !utf8.Valid(text) {
			return nil, fmt.Errorf("%w: header is not valid UTF-8", ErrFormat)
		}
		s = string(text)
	} else {
		// Latin-1: every byte is one code point; the dictionary itself is ASCII.
		s = string(latin1(text))
	}
	if err := parseDict(s, h); err != nil {
		return nil, err
	}
	return h, nil
}

// latin1 re-encodes Latin-1 bytes as UTF-8.
func latin1(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return out
}

// dictParser parses the Python dictionary literal of a .npy header, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (50, 50), }.
type dictParser struct {
	s   string
	pos int
}

func (p *dictParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: header %q: %s at offset %d", ErrFormat, clip(p.s), fmt.Sprintf(format, args...), p.pos)
}

func clip(s string) string {
	s = strings.TrimRight(s, " \n\x00")
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

func (p *dictParser) skipSpace() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *dictParser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *dictParser) expect(c byte) error {
	p.skipSpace()
	if p.peek() != c {
		return p.errorf("expected %q", c)
	}
	p.pos++
	return nil
}

func (p *dictParser) str() (string, error) {
	p.skipSpace()
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("expected a string")
	}
	end := strings.IndexByte(p.s[p.pos+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	v := p.s[p.pos+1 : p.pos+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", p.errorf("escape sequences are not supported")
	}
	p.pos += end + 2
	return v, nil
}

func (p *dictParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

func (p *dictParser) shape() ([]int, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	shape := []int{}
	for {
		p.skipSpace()
		if p.peek() == ')' {
			p.pos++
			return shape, nil
		}
		w := p.word()
		w = strings.TrimSuffix(w, "L") // Python 2 long literal
		d, err := strconv.Atoi(w)
		if err != nil || d < 0 || (len(w) > 1 && w[0] == '0') {
			return nil, p.errorf("invalid dimension %q", w)
		}
		shape = append(shape, d)
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
		default:
			return nil, p.errorf("expected ',' or ')' in shape")
		}
	}
}

func parseDict(s string, h *Header) error {
	p := &dictParser{s: s}
	if err := p.expect('{'); err != nil {
		return err
	}
	seen := map[string]bool{}
	for {
		p.skipSpace()
		if p.peek() == '}' {
			p.pos++
			break
		}
		key, err := p.str()
		if err != nil {
			return err
		}
		if seen[key] {
			return p.errorf("duplicate key %q", key)
		}
		seen[key] = true
		if err := p.expect(':'); err != nil {
			return err
		}
		p.skipSpace()
		switch key {
		case "descr":
			if p.peek() == '[' {
				return fmt.Errorf("%w: structured dtype (descr is a list)", ErrUnsupported)
			}
			d, err := p.str()
			if err != nil {
				return err
			}
			if h.DType, err = ParseDType(d); err != nil {
				return err
			}
		case "fortran_order":
			switch w := p.word(); w {
			case "True":
				h.Fortran = true
			case "False":
				h.Fortran = false
			default:
				return p.errorf("fortran_order must be True or False, not %q", w)
			}
		case "shape":
			if h.Shape, err = p.shape(); err != nil {
				return err
			}
		default:
			return p.errorf("unexpected key %q", key)
		}
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
		default:
			return p.errorf("expected ',' or '}'")
		}
	}
	if rest := strings.Trim(p.s[p.pos:], " \t\r\n\x00"); rest != "" {
		return p.errorf("unexpected text after the dictionary")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fmt.Errorf("%w: header %q: missing key %q", ErrFormat, clip(s), k)
		}
	}
	return nil
}
