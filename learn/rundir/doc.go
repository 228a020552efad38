// Package rundir is the folder a learning job writes into: it takes the
// folder so that no two jobs write it at once and no job destroys files it
// did not write, writes every file there atomically, and records how the
// job was made (its parameters, the version and the input's checksum).
// The gmlg command uses it for every output folder; a Go program that runs
// learn.Minimize itself can use it the same way.
//
// # Taking a folder
//
// [Create] takes a folder for a new output (gmlg learn, synth, interp,
// eval, transfer, sunset); [Open] takes an existing one to continue or
// redraw it (learn --resume, render). Both return a [Dir] whose Close
// releases it; commands defer it, so that it runs on success, on error and
// after Ctrl-C or SIGTERM (which cancel the command's context).
//
// # Lock
//
// The lock is the file .gmlg-lock ([LockName]) in the folder, taken before
// anything else is written there. It records, as JSON, the holder's process
// id, host, start time and command ([Owner]), and the holder keeps an
// exclusive flock(2) on it for as long as it runs. The kernel drops that
// flock when the process exits or is killed, so whether a lock is live is
// decided by the kernel, not by guessing from process ids:
//
//   - flock refused: a live process holds the folder; the refusal
//     ([ErrBusy]) names its process id, host and start time;
//   - flock granted over a file naming a process of this host: that
//     process died without releasing it; the lock is taken over with a
//     notice;
//   - flock granted over a file naming another host: that host's run
//     cannot be checked from here (flock does not reach across every
//     network file system), so the folder is refused until the user removes
//     the lock file by hand.
//
// Two processes that find the same stale lock at once cannot both take it
// over: only one of them gets the flock. A releasing holder removes the file
// while it still holds the flock; whoever opened it meanwhile sees that
// the file it locked is no longer the one at the path, and retries.
//
// # Manifest
//
// A command that takes a folder writes .gmlg-manifest.json
// ([ManifestName], atomically) naming itself and the glob patterns of every
// file it writes there ([Spec]). The manifest is what makes --force safe,
// and it is not trusted: its command must be one the caller knows
// ([Options].Kinds) and every pattern it lists one that the code's spec of
// that command has ([ErrManifest] otherwise, naming the file), so that
// what --force removes is always among the files gmlg writes:
//
//   - an empty folder (the lock, the manifest and stale temporaries aside)
//     is taken as it is;
//   - a folder that holds anything is refused ([ErrNotEmpty]) unless
//     [Options].Force is set;
//   - with Force, the files the existing manifest lists are removed, all of
//     them, so that no half-replaced output survives (a synth --force over
//     a learn run leaves nothing of the run); no other file is ever removed;
//   - a file the manifest does not list (in a folder without a manifest:
//     any file) that the new output would overwrite makes Create refuse
//     ([ErrForeign]), naming it: files that gmlg did not write are never
//     replaced.
//
// An entry that matches a pattern but is not a regular file (a link, a
// folder, a FIFO) is never removed nor written through: it is an error
// naming it.
//
// # Links, FIFOs and inputs
//
// Every file the package creates, replaces, appends to or removes in a
// folder is reached by its name relative to the open folder (openat with
// O_NOFOLLOW, renameat, unlinkat), never through a symbolic link: a link
// where gmlg would write is an error naming it ([ErrLink]), and nothing
// outside the folder changes. The writers of the gmlg command all go
// through [CreateFile], [Write], [WriteFile] and [OpenAppend]. Inputs are
// read with [OpenInput] and [ReadInput]: non-blocking, and only from
// regular files, so that a FIFO or device where a file is expected is an
// error ([ErrNotRegular]), never a read that waits forever.
//
// [Options].Inputs lists what a command reads: Create and Open refuse
// ([ErrInput]) a folder that is one of them, lies inside one or contains
// one, with every link resolved, so that no output replaces or removes an
// input ([CheckInputs] does the same for inputs known only later).
//
// [Open] checks that the manifest names one of the accepted commands
// (learn --resume on a synth folder is refused with [ErrKind]); a folder
// without a manifest can be recognised by [Options].Detect.
//
// # Temporary files
//
// The atomic writers (below) write ".NAME.tmp-XXXX" next to each file and
// rename it into place; a killed writer leaves it behind. Once the lock is held no
// writer of the folder is alive, so Create and Open remove those whose NAME
// is one of the folder's outputs (other dot files are the user's and stay),
// with a notice.
//
// A command that fails before writing anything leaves no trace: Close
// removes the manifest of a folder that holds nothing else, and the folder
// itself when Create made it.
//
// # Atomic writes
//
// [WriteFile], [Write] and [CreateFile] write a file so that readers only
// ever see its old content or the complete new one, never a half-written
// file. The data go to a temporary file in the destination's own folder
// (so that the final rename stays on one file system); on commit it is
// flushed, synced, closed and renamed over the destination, and the
// folder is synced so that the rename survives a crash. If anything fails,
// or the caller aborts, the temporary file is removed and the destination
// is left untouched:
//
//	err := rundir.Write("out/map.png", 0o644, func(w io.Writer) error {
//		return png.Encode(w, img)
//	})
//
// # Records
//
// [WriteJSON] writes any JSON-marshalable value with object keys sorted at
// every level (struct fields included) and two-space indentation,
// atomically, so that two runs with the same parameters give
// byte-identical files that diff well. [WriteChecked] adds one more
// top-level member, "sha256" ([SumKey]): the SHA-256 of the file as
// WriteJSON would write it. A run's parameters are read back to continue
// or reuse the run, so [ReadChecked] refuses a file whose members or
// values no longer match that checksum ([ErrChanged]) or that has none
// ([ErrNoSum]), instead of letting an edited or damaged file silently
// change a result. Only a change of layout (indentation, member order,
// the spelling of a number: 1e-05 for 0.00001) passes, as the check
// compares canonical encodings.
//
// [Checksum] hashes each input file with SHA-256 and combines the per-file
// digests, in the given order, into one digest of the lines
// "<sha256>  <base name>\n" (the format of sha256sum), so that two folders
// holding the same files under the same names give the same digest
// wherever they are. [Version] names the running binary for the records.
package rundir
