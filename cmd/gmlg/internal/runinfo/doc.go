// Package runinfo records how a gmlg run was made: the tool's version, the
// checksum of its input files, and a JSON parameters file.
//
// # Parameters file
//
// [WriteJSON] writes any JSON-marshalable value with object keys sorted at
// every level (struct fields included) and two-space indentation, atomically,
// so that two runs with the same parameters give byte-identical files that
// diff well:
//
//	err := runinfo.WriteJSON("run/params.json", map[string]any{
//		"version": runinfo.Version(),
//		"data":    sums,
//		"t_heat":  3e-3,
//	})
//
// # Checked files
//
// [WriteChecked] writes the same encoding with one more top-level member,
// "sha256": the SHA-256 of the file as WriteJSON would write it. A run's
// parameters are read back to continue or reuse the run, so
// [ReadChecked] refuses a file whose members or values no longer match
// that checksum ([ErrChanged]) or that has none ([ErrNoSum]), instead of
// letting an edited or damaged file silently change a result. Only a
// change of layout (indentation, member order) passes, as the check
// compares canonical encodings.
//
// # Data checksum
//
// [Checksum] hashes each input file with SHA-256 and combines the per-file
// digests, in the given order, into one digest of the lines
// "<sha256>  <base name>\n" (the format of sha256sum). Two folders holding
// the same files under the same names therefore give the same combined
// digest wherever they are.
package runinfo
