// Package rundir gives a gmlg command the folder it writes into, so that
// no two commands write the same folder at once and no command destroys
// files it did not write.
//
// # Taking a folder
//
// [Create] takes a folder for a new output (gmlg learn, synth, interp,
// eval, transfer, sunset, colorlearn); [Open] takes an existing one to
// continue or redraw it (learn --resume, colorlearn -resume, render). Both
// return a [Dir] whose Close releases it; commands defer it, so that it runs
// on success, on error and after Ctrl-C or SIGTERM (which cancel the
// command's context).
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
// file it writes there ([Spec]). The manifest is what makes --force safe:
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
// [Open] checks that the manifest names one of the accepted commands
// (learn --resume on a synth folder is refused with [ErrKind]); a folder
// without a manifest can be recognised by [Options].Detect.
//
// # Temporary files
//
// atomicfile writes ".NAME.tmp-XXXX" next to each file and renames it
// into place; a killed writer leaves it behind. Once the lock is held no
// writer of the folder is alive, so Create and Open remove those whose NAME
// is one of the folder's outputs (other dot files are the user's and stay),
// with a notice.
//
// A command that fails before writing anything leaves no trace: Close
// removes the manifest of a folder that holds nothing else, and the folder
// itself when Create made it.
package rundir
