// Package rundir is the folder a learning job writes into: it takes the
// folder so that no two jobs write it at once and no job destroys files it
// did not write, writes every file there atomically, and records how the
// job was made. The gmlg command uses it for every output folder; a Go
// program that runs learn.Minimize itself can use it the same way.
//
// [Create] takes a folder for a new output (gmlg learn, synth, interp,
// eval, transfer, sunset); [Open] takes an existing one to continue or
// redraw it (learn --resume, render). Commands defer the Close of the
// [Dir] they get, so that it runs on success, on error and after Ctrl-C
// or SIGTERM (which cancel the command's context).
//
// # Lock
//
// The lock is the file .gmlg-lock ([LockName]), taken before anything else
// is written in the folder. It records the holder ([Owner]: process id,
// host, start time, command), and the holder keeps an exclusive flock(2)
// on it while it runs. The kernel drops a flock when its process exits or
// is killed, so whether a lock is live is decided by the kernel, not by
// guessing from process ids:
//
//   - flock refused: a live process holds the folder ([ErrBusy], naming it);
//   - flock granted over a file naming a process of this host: that
//     process died; the lock is taken over with a notice;
//   - flock granted over a file naming another host: its run cannot be
//     checked from here (flock does not reach across every network file
//     system), so the folder is refused until the user removes the file.
//
// Of two processes that find the same stale lock only one gets the flock.
// A releasing holder removes the file while it still holds the flock;
// whoever opened it meanwhile sees that the file it locked is no longer
// the one at the path, and retries.
//
// # Manifest
//
// A command that takes a folder writes .gmlg-manifest.json ([ManifestName],
// atomically) naming itself and the glob patterns of every file it writes
// there ([Spec]). The manifest is what makes --force safe, and it is not
// trusted: its command must be one the caller knows ([Options].Kinds) and
// each of its patterns one that the code's spec of that command has
// ([ErrManifest] otherwise), so that --force removes only files gmlg
// writes:
//
//   - an empty folder (the lock, the manifest and stale temporaries aside)
//     is taken as it is;
//   - any other is refused ([ErrNotEmpty]) unless [Options].Force is set;
//   - with Force, every file the existing manifest lists is removed, so
//     that no half-replaced output survives (a synth --force over a learn
//     run leaves nothing of the run); no other file is ever removed;
//   - a file the manifest does not list (without a manifest: any file)
//     that the new output would overwrite makes Create refuse
//     ([ErrForeign]): files gmlg did not write are never replaced.
//
// An entry that matches a pattern but is not a regular file (a link, a
// folder, a FIFO) is neither removed nor written through: it is an error.
// [Open] accepts a folder whose manifest (or, without one,
// [Options].Detect) names one of the given commands ([ErrKind] otherwise).
//
// # Links, FIFOs and inputs
//
// Every file the package creates, replaces, appends to or removes is
// reached by its name relative to the open folder (openat with O_NOFOLLOW,
// renameat, unlinkat), never through a symbolic link: a link where gmlg
// would write is an error ([ErrLink]), and nothing outside the folder
// changes. All of the command's writers go through [CreateFile], [Write],
// [WriteFile] and [OpenAppend]. Inputs are read with [OpenInput] and
// [ReadInput]: non-blocking and only from regular files, so that a FIFO or
// device where a file is expected is an error ([ErrNotRegular]), never a
// read that waits forever. Create and Open refuse ([ErrInput]) a folder
// that is, lies inside or contains one of [Options].Inputs, with every link
// resolved, so that no output replaces or removes an input.
//
// # Temporary files and atomic writes
//
// [WriteFile], [Write] and [CreateFile] write ".NAME.tmp-XXXX" in the
// destination's folder (so that the rename stays on one file system);
// on commit it is flushed, synced, closed and renamed over the destination,
// and the folder is synced so that the rename survives a crash. Readers
// see the old content or the new, never a half-written file; on failure
// or abort the temporary file is removed and the destination untouched:
//
//	err := rundir.Write("out/map.png", 0o644, func(w io.Writer) error {
//		return png.Encode(w, img)
//	})
//
// A killed writer leaves its temporary file behind. Once the lock is held
// no writer of the folder is alive, so Create and Open remove, with a
// notice, those whose NAME is one of the folder's outputs (other dot files
// are the user's). A command that fails before writing anything leaves no
// trace: Close removes the manifest of a folder that holds nothing else,
// and the folder itself when Create made it.
//
// # Records
//
// [WriteJSON] sorts object keys at every level, so that runs with the same
// parameters give byte-identical files. [WriteChecked] adds a checksum
// ([SumKey]); as a run's parameters are read back to continue or reuse it,
// [ReadChecked] refuses a file whose values no longer match it
// ([ErrChanged]) or that has none ([ErrNoSum]) rather than let an edited
// or damaged file silently change a result (a change of layout alone
// passes). [Checksum] digests the input files; [Version] names the binary.
package rundir
