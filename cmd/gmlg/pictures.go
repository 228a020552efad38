package main

import (
	"fmt"

	"github.com/gmlg/gmlg/learn"
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

// metricPicture draws θ of kind k on sp (Space.MetricImage).
func metricPicture(sp space, path string, k learn.MetricKind, theta []float64, title string) (bool, error) {
	img, err := sp.MetricImage(k, theta, title)
	return runlog.WriteImage(path, img, err)
}
