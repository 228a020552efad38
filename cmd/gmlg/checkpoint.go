package main

// checkpointName is the checkpoint file of a run's folder (learn and
// colorlearn), which runlog.CheckpointFile writes.
const checkpointName = "checkpoint.gob"
