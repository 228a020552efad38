package main

// Helpers shared by the colour subcommands (sunset, transfer). Their names
// start with "color" so that they cannot clash with the helpers of the
// other subcommands.

import (
	"flag"
	"image"
	_ "image/jpeg" // input images may be JPEG
	"image/png"
	"io"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot/color"
)

// transferFlags declares the options of the colour transfer: σ of its
// Euclidean kernel and its Sinkhorn iterations, with the paper's values
// for Fig. 18 (σ = 0.05, L = 500).
func transferFlags(fs *flag.FlagSet, sigma *float64, iters *int) {
	fs.Float64Var(sigma, "transfer-sigma", color.DefaultSigmaTransfer, "σ of the colour transfer's Euclidean kernel, γ = 2σ²")
	fs.IntVar(iters, "transfer-iters", 500, "Sinkhorn `iterations` of the colour transfer, ≥ 1")
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
