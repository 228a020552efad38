// Package runlog holds the observers of a learning run (learn.Run) that
// write its record: the checkpoint file, tab-separated tables of the
// iterations, line-search trials and exact scores, a progress bar, the
// loss and metric files of the current point, and the JSON summary of a
// finished run. Each is a learn.Observer, or part of one, and [Observers]
// fans the reports out to several, so that a program composes the record
// it wants:
//
//	clock := runlog.NewClock()
//	iters, err := runlog.NewIterationTable(filepath.Join(dir, "iterations.tsv"), clock)
//	...
//	defer iters.Close()
//	obs := runlog.Observers{runlog.CheckpointFile(filepath.Join(dir, "checkpoint.gob")), iters}
//	res, err := learn.Run(ctx, g, seqs, cfg, &learn.RunSettings{Settings: learn.Settings{Observer: obs}})
//
// Tables are opened for appending: a resumed run continues them, and the
// header line is written only into a new file. Values are written with
// %.17g where they are objective values, so that a table reproduces them
// bitwise.
package runlog
