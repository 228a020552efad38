package main

import (
	"fmt"

	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/draw"
)

// drawStrip draws the frames of every part on the d-dimensional grid of
// side n (draw.GridStrip).
func drawStrip(path string, parts []draw.Frames, d, n int, title string) error {
	img, err := draw.GridStrip(parts, d, n, title)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return runlog.SavePicture(path, img)
}

// framesPicture draws the frames of every part on sp (Space.FramesImage).
func framesPicture(sp space, path string, parts []draw.Frames, title string) (bool, error) {
	img, err := sp.FramesImage(parts, title)
	return runlog.WriteImage(path, img, err)
}

// recsPicture draws the observed frames above the reconstructed ones on sp
// (Space.RecsImage).
func recsPicture(sp space, path string, obs, recs [][][]float64, title string) (bool, error) {
	img, err := sp.RecsImage(obs, recs, title)
	return runlog.WriteImage(path, img, err)
}

// metricPicture draws θ of kind k on sp (Space.MetricImage).
func metricPicture(sp space, path string, k learn.MetricKind, theta []float64, title string) (bool, error) {
	img, err := sp.MetricImage(k, theta, title)
	return runlog.WriteImage(path, img, err)
}

// truthPicture draws, when the data folder holds the true metric
// (dataset.ReadTruth), the true and the learned metric side by side, axis
// by axis, into path. It returns false when there is no usable truth.
func truthPicture(path, dataDir string, learned []float64, d, n int, title string) (bool, error) {
	truth, ok := dataset.ReadTruth(dataDir, d, len(learned)/d)
	if !ok {
		return false, nil
	}
	img, err := draw.CompareMetrics(truth, learned, d, n, title)
	return runlog.WriteImage(path, img, err)
}

// lossPicture draws the loss curve.
func lossPicture(path string, loss []float64, title string) error {
	img, err := draw.LossPlot(loss, &draw.LossOptions{Title: title})
	if err != nil {
		return err
	}
	return runlog.SavePicture(path, img)
}
