package main

// Helpers shared by the colour subcommands (colorlearn, sunset, transfer).
// Their names start with "color" so that they cannot clash with the helpers
// of the other subcommands.

import (
	"fmt"
	"image"
	_ "image/jpeg" // input images may be JPEG
	"image/png"
	"io"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
)

// colorParamsFile is the name of the parameters file of a colorlearn run.
const colorParamsFile = "params.json"

// colorCheckpointFile holds the optimiser state of a colorlearn run.
const colorCheckpointFile = checkpointName

// colorLearnOutputs are the files colorlearn writes in its run folder, in
// either mode (fast mode's polish tags its snapshots metric-polish-XXXX.*).
var colorLearnOutputs = []string{
	colorParamsFile, colorCheckpointFile, "metric.npy", "metric-*.npy", "metric-*.png", "hists-*.png", "loss.npy", "loss.png",
	colorIterationsFile, colorExactFile, colorLinesearchFile, colorResultFile,
}

// colorLearnParams is what colorlearn records in params.json and what sunset
// reads back to rebuild the heat kernel of a learned metric.
type colorLearnParams struct {
	Command       string   `json:"command"`
	Version       string   `json:"version"`
	Input         string   `json:"input"`
	Pattern       string   `json:"pattern"`
	Files         []string `json:"files"`
	DataSHA256    string   `json:"data_sha256"`
	Bins          int      `json:"n"`
	N             int      `json:"N"`
	Dim           int      `json:"dim"`
	Alpha         float64  `json:"alpha"`
	DropSaturated bool     `json:"drop_saturated"`
	THeat         float64  `json:"t_heat"`
	KHeat         int      `json:"k_heat"`
	L             int      `json:"L"`
	Loss          string   `json:"loss"`
	LambdaC       float64  `json:"lambda_c"`
	LambdaS       float64  `json:"lambda_s"`
	MaxIter       int      `json:"max_iter"`
	SaveEvery     int      `json:"save_every"`
	Backend       string   `json:"backend"`
	// Mode is "exact" (the reference; empty in runs made before fast mode)
	// or "fast"; Tol, Coarse, CoarseIters, Adjoint, Anderson, Polish and
	// PolishEvery are fast mode's settings. Adjoint and Anderson choose
	// solvers, not the model: a run may resume with others (params.json
	// then records the new ones).
	Mode        string  `json:"mode,omitempty"`
	Tol         float64 `json:"tol,omitempty"`
	Coarse      int     `json:"coarse_levels,omitempty"`
	CoarseIters int     `json:"coarse_iters,omitempty"`
	Adjoint     string  `json:"adjoint,omitempty"`
	Anderson    int     `json:"anderson,omitempty"`
	// Polish is the number of exact-objective iterations that end a fast
	// run (learn.Polish), PolishEvery the spacing of the exact scores of
	// the finest level's iterates that choose their start; both 0 without
	// --polish.
	Polish      int `json:"polish,omitempty"`
	PolishEvery int `json:"polish_every,omitempty"`
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

// colorReadParams reads the params.json of a colorlearn run, checking its
// checksum and that colorlearn wrote it.
func colorReadParams(path string) (*colorLearnParams, error) {
	p := new(colorLearnParams)
	if err := rundir.ReadChecked(path, p); err != nil {
		return nil, err
	}
	if p.Command != "colorlearn" {
		return nil, fmt.Errorf("%s was not written by gmlg colorlearn (command %q)", path, p.Command)
	}
	return p, nil
}
