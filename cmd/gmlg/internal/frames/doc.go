// Package frames loads the observed snapshots that gmlg learns from: a
// folder of 2-D or 3-D histograms, grouped into one or several sequences
// and normalised to unit mass.
//
// # Files
//
// A frame is a .npy array of any numeric dtype, byte order and memory order
// NumPy writes (see package npyfile), either 2-D [n,n] or 3-D [n,n,n], or,
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
// Two files with the same numbers (array-1 and array-01, or array-00-01
// and array-0-1) are an error naming both. Numbers missing inside a
// sequence (00, 01, 02, 05) are not an error: Set.Gaps lists them
// ("frames 03, 04 missing") for the caller to report.
//
// Histograms on a general graph (Options.Length = N) are 1-D .npy arrays
// of N values, one per vertex in the graph's vertex order; images are then
// refused, and the default pattern has no image fallback.
//
// # Sizes
//
// A frame's size is checked from its header before its data are read: at
// most limits.MaxVertices grid vertices (side 4096 in 2-D, 256 in 3-D, and
// at most 4096 pixels for an image side), and the frames must fit the
// memory budget of package limits (physical memory, or GMLG_MAX_MEMORY).
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
// PNG or JPEG, an unsupported dtype, 1-D or 4-D arrays, non-square 2-D or
// non-cubic 3-D frames, shapes that differ between files, negative, NaN or
// infinite values, an all-zero frame, too few frames in a sequence,
// inconsistent sequence naming, two files with the same numbers, and sizes
// beyond the limits. The loader never panics on bad input (it is
// fuzz-tested).
//
//	set, err := frames.Load("data/toydataF3", nil)
//	if err != nil {
//		return err // e.g. "frames: data/x/array-03.npy: negative value -0.5 at [4, 7]"
//	}
//	n, seq := set.Shape[0], set.Sequences[0]
//	first, last := seq.Frames[0].Data, seq.Frames[len(seq.Frames)-1].Data
package frames
