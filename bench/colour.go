package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gmlg/gmlg/learn/runlog"
)

// Synthetic is Row.Colour for the synthetic colour sequence of
// WriteColourSequence, ColourFrames images.
const (
	Synthetic    = "synthetic"
	ColourFrames = 10
)

// ColourRun is the outcome of a colour row. Seconds is the wall time of its
// child process from start to exit, CPUSeconds its user and system time
// and MaxRSS its peak resident set size in bytes (getrusage of the reaped
// child); the others are the run's own (runlog.Result): F is the fast
// objective at the final metric, FExact that metric's exact score.
type ColourRun struct {
	Row                     Row
	Images                  string // the folder of images; empty for the synthetic sequence
	Threads                 int    // GOMAXPROCS of the child (set by Run)
	Seconds, CPUSeconds     float64
	MaxRSS                  int64
	Iterations, Evaluations int
	F, FExact               float64
	Status                  string // the run's status, or why the row was skipped
}

// DataRoot is the folder of the image folders of colour rows
// (colour:n:NAME): $GMLG_DATA when set, else ../shared/data beside the
// module root (the nearest folder above the working directory with a
// go.mod), else ../shared/data.
func DataRoot() string {
	if d := os.Getenv("GMLG_DATA"); d != "" {
		return d
	}
	for d, _ := os.Getwd(); d != "" && d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "data")
		}
	}
	return filepath.Join("..", "shared", "data")
}

// WriteColourSequence writes the synthetic colour sequence into the folder
// dir (made if missing): ColourFrames PNG images of 96×64 pixels,
// frame-00.png to frame-09.png, from day to night (colourFrame). The bytes
// depend on nothing else.
func WriteColourSequence(dir string) error {
	err := os.MkdirAll(dir, 0o755)
	for k := 0; k < ColourFrames && err == nil; k++ {
		var b bytes.Buffer
		if err = png.Encode(&b, colourFrame(float64(k)/(ColourFrames-1))); err == nil {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("frame-%02d.png", k)), b.Bytes(), 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// colourFrame is the image at the time of day s in [0, 1]: a sky that
// darkens from blue to navy above a horizon at 70% of the height, over
// ground that goes from green to dark olive; a sun that sets from the
// upper left, turning from yellow to red; a green and a magenta blob that
// cross the picture in opposite directions, and a window light that comes
// on. Every pixel is a smooth function of its place and of s, so that the
// colour histograms move gradually.
func colourFrame(s float64) *image.NRGBA {
	blobs := []struct{ x, y, r, on, c0, c1, c2 float64 }{ // centre and radius in heights, strength, colour
		{0.2 + 0.6*s, 0.15 + 0.5*s, 0.12, 1, 1, 0.85 - 0.6*s, 0.3 - 0.2*s},
		{1.4 - 1.1*s, 0.82, 0.1, 1, 0.2, 0.6, 0.25},
		{0.1 + 1.1*s, 0.9, 0.08, 1, 0.75, 0.2, 0.55},
		{1.2, 0.55, 0.05, s * s, 0.95, 0.85, 0.45},
	}
	img := image.NewNRGBA(image.Rect(0, 0, 96, 64))
	for y := range 64 {
		for x := range 96 {
			u, v := float64(x)/63, float64(y)/63
			g := 1 / (1 + math.Exp(-30*(v-0.7))) // 0 in the sky, 1 on the ground
			c := [3]float64{
				(1-s)*((1-g)*(0.45+0.2*v)+g*(0.3+0.15*u)) + s*((1-g)*0.03+g*0.1),
				(1-s)*((1-g)*(0.65+0.2*v)+g*0.55) + s*((1-g)*(0.04+0.05*v)+g*0.12),
				(1-s)*((1-g)*0.95+g*0.2) + s*((1-g)*(0.15+0.1*v)+g*0.06),
			}
			for _, b := range blobs {
				w := b.on * math.Exp(-((u-b.x)*(u-b.x)+(v-b.y)*(v-b.y))/(b.r*b.r))
				c = [3]float64{(1-w)*c[0] + w*b.c0, (1-w)*c[1] + w*b.c1, (1-w)*c[2] + w*b.c2}
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(255*c[0] + 0.5), uint8(255*c[1] + 0.5), uint8(255*c[2] + 0.5), 255})
		}
	}
	return img
}

// runColour runs the colour row r, gmlg learn --preset colour --mode fast
// --bins n (with --max-iter opt.Iters when positive) on the row's images,
// writing into a temporary folder that it removes. A row whose folder is
// missing is skipped: its Status says so.
func runColour(ctx context.Context, opt *Options, r Row) (*ColourRun, error) {
	c := &ColourRun{Row: r}
	if r.Colour != Synthetic {
		c.Images = filepath.Join(DataRoot(), r.Colour)
		if fi, err := os.Stat(c.Images); err != nil || !fi.IsDir() {
			c.Status = "skipped: no folder " + c.Images
			return c, nil
		}
	}
	tmp, err := os.MkdirTemp("", "gmlg-bench-colour-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	images, out := cmp.Or(c.Images, filepath.Join(tmp, "images")), filepath.Join(tmp, "run")
	if c.Images == "" {
		if err := WriteColourSequence(images); err != nil {
			return nil, err
		}
	}
	args := []string{"learn", "--preset", "colour", "--mode", "fast", "--bins", strconv.Itoa(r.N), "--progress", "none", "-o", out}
	if opt.Iters > 0 {
		args = append(args, "--max-iter", strconv.Itoa(opt.Iters))
	}
	cmd, start := opt.Command(ctx, append(args, images)...), time.Now()
	if _, err := runChild(cmd, opt.Threads); err != nil {
		return nil, fmt.Errorf("bench: %v: %w", r, err)
	}
	c.Seconds, c.MaxRSS = time.Since(start).Seconds(), maxRSS(cmd.ProcessState)
	c.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	var res runlog.Result
	b, err := os.ReadFile(filepath.Join(out, runlog.ResultName))
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		return nil, fmt.Errorf("bench: %v: %w", r, err)
	}
	c.Iterations, c.Evaluations, c.F, c.Status = res.Iterations, res.Evaluations, res.F, res.Status
	if res.FExact != nil {
		c.FExact = *res.FExact
	}
	return c, nil
}
