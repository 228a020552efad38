package main

// Helpers shared by the colour subcommands (colorlearn, sunset, transfer).
// Their names start with "color" so that they cannot clash with the helpers
// of the other subcommands.

import (
	"image"
	_ "image/jpeg" // input images may be JPEG
	"image/png"
	"io"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
)

// colorParamsFile is the name of the parameters file of a colorlearn run.
const colorParamsFile = "params.json"

// colorLearnOutputs are the files colorlearn writes in its run folder, in
// either mode (fast mode's polish tags its snapshots metric-polish-XXXX.*).
var colorLearnOutputs = []string{
	colorParamsFile, runlog.CheckpointName, "metric.npy", "metric-*.npy", "metric-*.png", "hists-*.png", "loss.npy", "loss.png",
	colorIterationsFile, colorExactFile, colorLinesearchFile, colorResultFile,
}

// colorLoadImage decodes a PNG (or JPEG) file once its header has passed
// the size checks of package limits, counting perPixel bytes that the
// caller allocates per pixel afterwards.
func colorLoadImage(path string, perPixel int) (image.Image, error) {
	img, _, err := dataset.DecodeImage(path, &dataset.ImageOptions{BytesPerPixel: perPixel, Memory: limits.Memory})
	return img, err
}

// colorSaveFrame writes a full-size image atomically, favouring speed.
func colorSaveFrame(path string, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return rundir.Write(path, 0o644, func(w io.Writer) error { return enc.Encode(w, img) })
}
