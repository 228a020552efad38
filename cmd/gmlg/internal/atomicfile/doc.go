// Package atomicfile writes files so that readers only ever see the old
// content or the complete new content, never a half-written file.
//
// # How it works
//
// The data goes to a temporary file created in the destination's own
// directory (so that the final rename stays on one file system). On commit
// the temporary file is flushed, synced to stable storage with fsync, closed
// and renamed over the destination; the directory is then synced so that the
// rename itself survives a crash. If anything fails, or the caller aborts,
// the temporary file is removed and the destination is left untouched.
//
// # Usage
//
// For data already in memory:
//
//	err := atomicfile.WriteFile("out/params.json", data, 0o644)
//
// For streamed output, such as a PNG encoder:
//
//	err := atomicfile.Write("out/map.png", 0o644, func(w io.Writer) error {
//		return png.Encode(w, img)
//	})
//
// or, with explicit control:
//
//	f, err := atomicfile.Create("out/log.txt", 0o644)
//	if err != nil { ... }
//	defer f.Abort() // no-op after a successful Commit
//	fmt.Fprintf(f, "...")
//	if err := f.Commit(); err != nil { ... }
package atomicfile
