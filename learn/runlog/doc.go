// Package runlog is a learning run and the folder it writes: the record of
// the run ([Record], its params.json), the [Job] that learns into a run
// folder, and the observers of learn.Run that write the folder's other
// files. gmlg learn runs a [Job]; a Go program that runs one writes the
// same folder.
//
// A [Record] holds everything a run depends on: its [Data] (frames on a
// grid or a graph, [Frames], or colour images read as RGB histograms,
// [Colour]), its [Model], its [Optimizer] settings and the [KernelInfo] it
// ran on. [ReadRecord] reads params.json back, checksum checked, so that a
// run can be resumed or redrawn and its metric used under the model it was
// learned with; every checkpoint carries [Record.Identity] ([CheckRun]).
//
// [NewJob] reads a record's data and checks the model against them;
// [Job.Run] learns, writing the files that [Outputs] lists as it goes; the
// caller holds the folder (package rundir), and a cancelled context stops
// the run after a last checkpoint ([ErrInterrupted]). [ResumeJob]
// continues a folder's run from its checkpoint:
//
//	rec := &runlog.Record{
//		Data:      runlog.Data{Kind: runlog.Frames, Dir: "data"}, // colour: {Kind: runlog.Colour, Dir: "images", Bins: 16}
//		Model:     runlog.DefaultModel(),
//		Optimizer: runlog.DefaultOptimizer(),
//	}
//	rec.Model.T, rec.Model.Steps, rec.Model.LambdaS = 3e-3, 10, 0.01
//	if err := errors.Join(rec.Model.Check(), rec.Optimizer.Check(&rec.Model)); err != nil {
//		...
//	}
//	d, err := rundir.Create("run", rundir.Spec{Command: "learn", Outputs: runlog.Outputs},
//		rundir.Options{Inputs: []string{"data"}})
//	...
//	defer d.Close()
//	j, err := runlog.NewJob(rec, "run")
//	...
//	err = j.Run(ctx, nil, nil) // from the uniform metric; the result is run/metric.npy
//
// A program calling learn.Run itself composes the folder's observers
// (learn.Observer) with [Observers]: [CheckpointFile], [Log], [Snapshots],
// [Bar] and the tables of a tolerance-mode run ([IterationTable],
// [TrialTable], [ScoreTable]), as in
// Observers{CheckpointFile(filepath.Join(dir, CheckpointName)), iters}
// with iters from [NewIterationTable], closed after the run.
package runlog
