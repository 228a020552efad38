// Package dataset reads and writes the files a ground metric is learned
// from and saved to: folders of frames (Load), metric files (ReadMetric,
// WriteMetric), edge lists of graphs (ReadEdges, WriteEdges) and .npy
// arrays in general (ReadNpyFile, WriteNpyFile). LoadSpace reads a data
// folder of either kind, a grid of frames or a graph folder, into its
// Space: the graph the histograms live on and how its metrics are stored.
//
// Load reads the observed snapshots: a folder of 2-D or 3-D histograms,
// grouped into one or several sequences and normalised to unit mass.
//
// # Files
//
// A frame is a .npy array of any numeric dtype, byte order and memory order
// NumPy writes (see .npy files below), either 2-D [n,n] or 3-D [n,n,n], or,
// for 2-D data, a PNG or JPEG image. An image becomes a grey level per
// pixel: the mean of its R, G and B channels scaled to [0,1] (the luminance
// itself for a grey PNG, 8- or 16-bit), as the reference's
// dg_kinterp2_from_images does; alpha is ignored. The image row is the
// array row, so an image of height n and width n gives an [n,n] frame.
//
// Files are selected with a glob pattern inside the folder and sorted by
// the numbers in their names (see Sort): array-2 comes before array-10, so
// array-0..array-11 and array-00..array-11 give the same order (the
// reference sorts lexicographically, which agrees when the numbers are
// zero-padded to one width). The default pattern is "array-*.npy"; when
// nothing matches it, the images *.png, *.jpg and *.jpeg are used instead.
//
// Histograms on a general graph (Options.Length = N) are 1-D .npy arrays
// of N values, one per vertex in the graph's vertex order; images are then
// refused, and the default pattern has no image fallback. The graph itself
// is an edge list (ReadEdges, WriteEdges): an int64 [E,2] .npy array of
// 0-based vertex indices.
//
// Two files with the same numbers (array-1 and array-01, or array-00-01
// and array-0-1) are an error naming both. Numbers missing inside a
// sequence (00, 01, 02, 05) are not an error: Set.Gaps lists them
// ("frames 03, 04 missing") for the caller to report.
//
// # Sizes
//
// A frame's size is checked from its header before its data are read: at
// most MaxVertices grid vertices (side 4096 in 2-D, 256 in 3-D, and at
// most 4096 pixels for an image side), and, when Options.Memory is set,
// the memory of reading each file and of all the frames must pass it (the
// gmlg command passes its memory budget).
//
// # Sequences
//
// The basename of each file (without extension) is split at '-' and its
// all-digit fields are counted (docs/method.md, "Data formats"):
//   - no digit field or one (array-07, video_000): all files form one
//     sequence, in numeric name order;
//   - two fields (array-SS-TT): files are grouped by the value of SS into
//     sequences, each in numeric order of TT, the sequences ordered by SS;
//   - the count must be the same for every file; three or more is an error.
//
// Every sequence needs at least three frames (Options.MinFrames): the first
// and last are the interpolation poles and at least one lies between them.
//
// # Normalisation
//
// Each frame is flattened in C order (flat index r*n+c in 2-D, R*n²+G*n+B in
// 3-D) and divided by its own sum, so it sums to one: obs = I/ΣI, as the
// reference's 2-D learning script does. With Options.Floor > 0 the value
// Floor·max(I)/N is added to every entry first (the reference's data use
// 1e-6; docs/method.md, "Synthetic data"), which removes zeros that the KL
// loss cannot take. (The reference's dg_kinterp2_from_images adds 1e-6·max(I)
// without the 1/N; that is Floor = 1e-6·N.)
//
// # Errors
//
// Bad input gives an error naming the folder or the file: a missing folder,
// no matching file, an unsupported extension, a corrupt or truncated .npy,
// PNG or JPEG, an unsupported dtype, 1-D (without Options.Length) or 4-D
// arrays, non-square 2-D or non-cubic 3-D frames, shapes that differ
// between files, negative, NaN or
// infinite values, an all-zero frame, too few frames in a sequence,
// inconsistent sequence naming, two files with the same numbers, and sizes
// beyond the limits. The loader never panics on bad input (it is
// fuzz-tested).
//
//	set, err := dataset.Load("data/toydataF3", nil)
//	if err != nil {
//		return err // e.g. "dataset: data/x/array-03.npy: negative value -0.5 at [4, 7]"
//	}
//	n, seq := set.Shape[0], set.Sequences[0]
//	first, last := seq.Frames[0].Data, seq.Frames[len(seq.Frames)-1].Data
//
// # .npy files
//
// ReadNpyFile converts any numeric .npy array (bool, int8..int64,
// uint8..uint64, float16, float32, float64, either byte order, C or
// Fortran order, any number of dimensions) to float64 in C order;
// WriteNpyFile writes little-endian float64 in C order, atomically
// (temporary file, then rename). Both are built on codeberg.org/sbinet/npyio,
// which parses the header and decodes the data. This package adds only
// what npyio lacks, as observed with npyio v0.14.0:
//   - hostile input: npyio allocates whatever a version 2 header length
//     says (4 GiB from a 12-byte file), panics (slice bounds out of range)
//     on a header without its final newline or with its keys in another
//     order, accepts negative dimensions, and decodes whatever bytes
//     remain without checking them against the shape: a short file gives
//     fewer values than the shape says, a cut-off last element a panic. The reader therefore reads the header itself with a 1 MiB
//     bound, checks the shape and the file size before any data is read,
//     feeds npyio exactly the promised bytes, and turns npyio's panics into
//     errors. Errors wrap ErrFormat, ErrTruncated or ErrUnsupported; the
//     reader is fuzz-tested (FuzzReadNpy) and never panics.
//   - conversion: npyio reads into a slice of the dtype's own Go type;
//     the reader widens it to float64 (integers beyond 2^53 are rounded).
//   - Fortran order: npyio returns the data in disk order; the reader
//     transposes it to C order.
//   - writing: npyio writes only Go values, so a 2-D array is passed as a
//     mat.Dense and one of three or more dimensions as nested slices over
//     the same values; npyio gives an empty array the wrong shape, so
//     WriteNpy refuses one. npyio inspects every element of a slice by
//     reflection before writing it: 1-D and 3-D arrays are written at
//     about 5 MB/s (BenchmarkWriteNpy), 2-D ones at memory speed.
//
// npyio reads format versions 1.0 and 2.0 (NumPy writes 3.0 only for
// non-Latin-1 field names of structured dtypes, which are unsupported
// anyway) and only the header layout NumPy writes: keys 'descr',
// 'fortran_order', 'shape' in that order, separated by ", " and ": ". It
// writes version 2.0 headers, which NumPy reads since 1.9.
package dataset
