// Package dataset reads and writes the files a ground metric is learned
// from and saved to: folders of frames (Load), metric files (ReadMetric,
// WriteMetric), edge lists of graphs (ReadEdges, WriteEdges) and .npy
// arrays in general (ReadNpyFile, WriteNpyFile). LoadSpace reads a data
// folder of either kind, a grid of frames or a graph folder, into its
// Space: the graph the histograms live on and how its metrics are stored.
//
// # Frames and sequences
//
// docs/method.md ("Data formats") states the format. A frame is a .npy
// array of any numeric dtype, [n,n] or [n,n,n], or for 2-D data a PNG or
// JPEG image read as the mean of its R, G and B in [0,1] per pixel, as the
// reference's dg_kinterp2_from_images does (alpha ignored; the image row
// is the array row); on a general graph (Options.Length = N) it is a 1-D
// .npy array of N values, one per vertex, and the graph an edge list
// (ReadEdges). Files match a glob inside the folder, by default
// "array-*.npy", else the images *.png, *.jpg and *.jpeg, and are sorted
// by the numbers in their names (Sort: array-2 before array-10, padded or
// not). A basename's all-digit '-' fields give its place: with none or one
// (array-07, video_000) all files form one sequence, with two
// (array-SS-TT) they are grouped by SS, each ordered by TT. Two files with
// the same numbers (array-1 and array-01) are an error; numbers missing
// inside a sequence are listed in Set.Gaps. Every sequence needs
// Options.MinFrames frames, by default three: the two poles and one
// between them.
//
// A frame's size (MaxVertices, Options.Memory) is checked from its header
// before its data are read. It is flattened in C order and divided by its
// sum; Options.Floor > 0 first adds Floor·max(I)/N to every entry, which
// removes zeros that the KL loss cannot take (the reference's
// dg_kinterp2_from_images adds 1e-6·max(I), which is Floor = 1e-6·N).
// Bad input gives an error naming the folder or file; the loader never
// panics (it is fuzz-tested).
//
//	set, err := dataset.Load("data/toydataF3", nil)
//	if err != nil {
//		return err // e.g. "dataset: data/x/array-03.npy: negative value -0.5 at [4, 7]"
//	}
//	n, seq := set.Shape[0], set.Sequences[0]
//
// # .npy files
//
// ReadNpyFile converts any numeric .npy array (bool, integers, float16..64,
// either byte order, C or Fortran order) to float64 in C order;
// WriteNpyFile writes little-endian float64 in C order, atomically. Both
// use codeberg.org/sbinet/npyio (format versions 1.0 and 2.0, the header
// layout NumPy writes) and add what it lacks (as of v0.14.0):
//   - hostile input: npyio allocates whatever a version 2 header length
//     says, panics on malformed headers or a cut-off last element, accepts
//     negative dimensions and does not check the data against the shape.
//     The reader bounds the header (1 MiB), checks the shape and the file
//     size before reading data, feeds npyio exactly the promised bytes and
//     turns its panics into errors wrapping ErrFormat, ErrTruncated or
//     ErrUnsupported (fuzz-tested: FuzzReadNpy);
//   - conversion to float64 (integers beyond 2^53 are rounded) and the
//     transposition of Fortran-order data;
//   - writing: npyio inspects every element of a slice by reflection, so
//     a 2-D array is passed as a mat.Dense, written at memory speed (1-D
//     and 3-D arrays go at about 5 MB/s, BenchmarkWriteNpy); the header
//     is version 2.0, which NumPy reads since 1.9.
package dataset
