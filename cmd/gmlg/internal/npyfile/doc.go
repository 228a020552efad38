// Package npyfile reads and writes NumPy .npy files as float64 arrays.
//
// gmlg exchanges frames, metrics and losses with Python users, so it must
// read whatever NumPy writes and write what NumPy reads. Reading converts
// every supported element type to float64 and returns the array in C
// (row-major) order, whatever the order on disk; writing produces float64
// (or, on request, any other supported type) in C or Fortran order.
//
// # Reading
//
//	a, err := npyfile.ReadFile("frames/array-00.npy")
//	// a.Shape = [50 50]; a.Data has 2500 values, a.Data[r*50+c] = I[r,c].
//
// Supported on input:
//   - format versions 1.0, 2.0 and 3.0 (2- and 4-byte header lengths,
//     Latin-1 or UTF-8 header text; keys in any order, Python 2 "50L" sizes);
//   - dtypes bool ('|b1'), int8..int64 ('i1'..'i8'), uint8..uint64
//     ('u1'..'u8'), float16 ('f2'), float32 ('f4') and float64 ('f8'), with
//     byte order '<', '>', '|' (one-byte types) or '=' (taken as '<');
//   - fortran_order True or False, any number of dimensions (0-D included).
//
// Integers wider than 53 bits lose precision in float64. Structured, complex,
// string, object, datetime and long-double dtypes are rejected with an error
// wrapping [ErrUnsupported]. Files that are not .npy, have a malformed
// header, or are cut short return errors wrapping [ErrFormat] or
// [ErrTruncated]; the reader never panics on bad input (it is fuzz-tested)
// and never allocates more than the file actually holds. Errors from
// [ReadFile] name the file.
//
// # Writing
//
//	a := &npyfile.Array{Shape: []int{2, 2500}, Data: metric}
//	err := npyfile.WriteFile("run/a-metric-0020.npy", a, nil) // '<f8', C order
//
// [WriteFile] is atomic (temporary file, fsync, rename). [WriteOptions]
// selects another dtype ("<f4" for compact float32 files, or any supported
// type: integer and bool targets require exactly representable values),
// Fortran order, or a format version. The header is padded with spaces so
// that the data starts at a multiple of 64 bytes, as NumPy does.
package npyfile
