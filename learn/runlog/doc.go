// Package runlog is a learning run and the folder it writes: the record of
// the run ([Record], its params.json), the [Job] that learns into a run
// folder, and the observers of learn.Run that write the folder's other
// files. gmlg learn runs a [Job]; a Go program that runs one writes the
// same folder.
//
// # The record
//
// A [Record] holds everything a run depends on: the command and version,
// its [Data] (a folder of frames on a grid or a graph, kind [Frames], or of
// colour images read as RGB histograms, kind [Colour]), its [Model] (the
// heat kernel, the barycenter model, the loss and the regularisers), its
// [Optimizer] settings and levels, and the [KernelInfo] of the
// factorisation it ran on. params.json holds it with a checksum, and
// [ReadRecord] reads it back, so that a run can be resumed or redrawn and
// its metric used under the model it was learned with ([Model.Line] names
// that model). [Record.Identity] is what every checkpoint of the run
// carries: a checkpoint belongs to its run ([CheckRun]).
//
// # The job
//
// [NewJob] reads the data of a record and checks the model against them;
// [Job.Run] learns, writing as it goes params.json, the structured log
// log.txt, the metric at the first iteration and every SaveEvery
// iterations (metric-IIII.npy and .png, [Snapshots]), checkpoint.gob,
// then the final metric, the loss, the reconstructions and result.json
// ([Result]); in tolerance mode also the tables below ([Outputs] lists
// every file). The caller holds the folder (package rundir) while the job
// runs; a cancelled context stops it after a last checkpoint
// ([ErrInterrupted]). [ResumeJob] continues the run of a folder from its
// checkpoint, letting the caller change only what a resumed run may change
// ([ResumeFlags]):
//
//	rec := &runlog.Record{
//		Data:      runlog.Data{Kind: runlog.Frames, Dir: "data"},
//		Model:     runlog.DefaultModel(),
//		Optimizer: runlog.DefaultOptimizer(),
//	}
//	rec.Model.T, rec.Model.Steps, rec.Model.LambdaS = 3e-3, 10, 0.01
//	if err := rec.Model.Check(); err != nil {
//		...
//	}
//	if err := rec.Optimizer.Check(rec.Model.Mode); err != nil {
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
// A colour run differs in its data only: runlog.Data{Kind: runlog.Colour,
// Dir: "images", Bins: 16}.
//
// # Observers and tables
//
// A run's files, and its progress on a terminal, come from observers
// (learn.Observer): the checkpoint file ([CheckpointFile]), the structured
// log ([Log]), the snapshots ([Snapshots]), a progress bar ([Bar]) and the
// tab-separated
// tables of a tolerance-mode run, one row per accepted iteration of every
// level ([IterationTable], iterations.tsv), per line-search evaluation
// ([TrialTable], linesearch.tsv) and, with a polish, per exact score
// ([ScoreTable], exact.tsv). [Observers] fans the reports out to several,
// so that a program that calls learn.Run itself composes the record it
// wants:
//
//	clock := runlog.NewClock()
//	iters, err := runlog.NewIterationTable(filepath.Join(dir, runlog.IterationsName), clock)
//	...
//	defer iters.Close()
//	obs := runlog.Observers{runlog.CheckpointFile(filepath.Join(dir, runlog.CheckpointName)), iters}
//	res, err := learn.Run(ctx, g, seqs, cfg, &learn.RunSettings{Settings: learn.Settings{Observer: obs}})
//
// Tables are opened for appending: a resumed run continues them, and the
// header line is written only into a new file. Values are written with
// %.17g where they are objective values, so that a table reproduces them
// bitwise.
package runlog
