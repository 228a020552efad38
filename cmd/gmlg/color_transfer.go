package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"path/filepath"
	"strings"

	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/ot/color"
	"github.com/gmlg/gmlg/ot/draw"
)

// transferSpec names every file transfer writes (see learnSpec).
var transferSpec = rundir.Spec{Command: "transfer", Outputs: []string{"params.json", "transfer-*.png", "lut-*.cube", "transfers.png"}}

// transferParams are transfer's settings, recorded in its params.json.
type transferParams struct {
	Command string   `json:"command"`
	Version string   `json:"version"`
	Target  string   `json:"target"`
	Sources []string `json:"sources"`
	Bins    int      `json:"bins"`
	colourTransfer
}

// colourTransfer are the settings of the colour transfer that sunset and
// transfer share, last in their params.json.
type colourTransfer struct {
	TransferSigma float64 `json:"transfer_sigma"`
	TransferIters int     `json:"transfer_iters"`
	DropSaturated bool    `json:"drop_saturated"`
	NoBilateral   bool    `json:"no_bilateral"`
	Interpolate   bool    `json:"interpolate"`
	LUTSize       int     `json:"lut_size"`
}

// flags declares the options of the colour transfer, with the paper's
// σ = 0.05 and L = 500 (Fig. 18); lutZero is the LUT size that
// --lut-size 0 gives.
func (c *colourTransfer) flags(fs *flag.FlagSet, lutZero string) {
	fs.Float64Var(&c.TransferSigma, "transfer-sigma", color.DefaultSigmaTransfer, "σ of the colour transfer's Euclidean kernel, γ = 2σ²")
	fs.IntVar(&c.TransferIters, "transfer-iters", 500, "Sinkhorn `iterations` of the colour transfer, ≥ 1")
	dropSaturatedFlag(fs, &c.DropSaturated)
	fs.BoolVar(&c.NoBilateral, "no-bilateral", false, "no cross-bilateral smoothing of the colour correction")
	fs.BoolVar(&c.Interpolate, "interpolate", false, "interpolate the per-bin correction between bins (gmlg extension) instead of the nearest bin")
	fs.IntVar(&c.LUTSize, "lut-size", 0, "`nodes` per axis of the .cube LUTs (0: "+lutZero+")")
}

// options are the library's settings of the transfer.
func (c *colourTransfer) options() color.TransferOptions {
	return color.TransferOptions{Iterations: c.TransferIters, NoBilateral: c.NoBilateral, Interpolate: c.Interpolate}
}

func init() {
	register(&command{
		name:    "transfer",
		summary: "transfer the colours of source images onto target images by optimal transport",
		usage: `[options] TARGET SOURCE [SOURCE...]

Direct OT colour transfer without interpolation (docs/method.md,
"Direct transfer"): the RGB histograms of TARGET and of each SOURCE at
--bins bins per channel, a Sinkhorn plan under the Euclidean kernel
exp(−|x−x'|²/γ) (γ = 2σ², σ = --transfer-sigma), barycentric projection of
the bins, cross-bilateral smoothing guided by TARGET. For source j it
writes transfer-JJ.png and lut-JJ.cube (the colour correction as a 3-D LUT
for video tools) into -o, and transfers.png, a strip of thumbnails, with
params.json. The defaults are those of the paper's Fig. 18 (n = 16,
L = 500, σ = 0.05).`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			p := &transferParams{}
			var out, progress string
			var force bool
			outFlags(fs, &out, &force, "transfer", "output `folder`")
			binsFlag(fs, &p.Bins)
			p.flags(fs, "n")
			progressFlag(fs, &progress)
			return func(ctx context.Context, args []string) error {
				if len(args) < 2 {
					return usagef("want a target image and at least one source image, got %d arguments", len(args))
				}
				if err := checkProgress(progress); err != nil {
					return err
				}
				p.Target, p.Sources = args[0], args[1:]
				return colorTransfer(ctx, p, out, force, progressWriter(ctx, progress))
			}
		},
	})
}

// colorTransfer runs transfer.
func colorTransfer(ctx context.Context, p *transferParams, out string, force bool, logw io.Writer) error {
	switch {
	case p.Bins < 2:
		return usagef("--bins must be at least 2, got %d", p.Bins)
	case p.TransferIters < 1:
		return usagef("--transfer-iters must be at least 1, got %d", p.TransferIters)
	case !(p.TransferSigma > 0):
		return usagef("--transfer-sigma must be positive")
	case p.LUTSize < 0 || p.LUTSize == 1 || p.LUTSize > 256:
		return usagef("--lut-size must be 0 or in 2..256, got %d", p.LUTSize)
	}
	if err := checkBins("--bins", p.Bins); err != nil {
		return err
	}
	inputs := append([]string{p.Target}, p.Sources...)
	if err := checkInputs(out, inputs...); err != nil {
		return err
	}
	what := fmt.Sprintf("the transfer at %d³ bins", p.Bins)
	if err := limits.Memory(what, limits.ColourBytes(p.Bins, 2, false), "pass a smaller --bins"); err != nil {
		return err
	}
	target, err := colorLoadImage(p.Target, limits.ColourTransferPixelBytes)
	if err != nil {
		return err
	}
	d, err := color.NewDirect(target, color.DirectOptions{Bins: p.Bins, Gamma: color.GammaFromSigma(p.TransferSigma), DropSaturated: p.DropSaturated,
		Transfer: p.options()})
	if err != nil {
		return fmt.Errorf("%s: %w", p.Target, err)
	}
	p.Command, p.Version = "transfer", rundir.Version()
	od, err := takeOutDir(ctx, out, transferSpec, force, p, inputs...)
	if err != nil {
		return err
	}
	defer od.Close()
	for j, sp := range p.Sources {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := colorLoadImage(sp, 0)
		if err != nil {
			return err
		}
		img, m, err := d.From(src)
		if err != nil {
			return fmt.Errorf("transfer from %s: %w", sp, err)
		}
		name := filepath.Join(out, fmt.Sprintf("transfer-%02d.png", j))
		if err := colorSaveFrame(name, img.NRGBA()); err != nil {
			return err
		}
		title := "gmlg transfer from " + strings.ReplaceAll(filepath.Base(sp), `"`, "")
		if err := colorWriteLUT(filepath.Join(out, fmt.Sprintf("lut-%02d.cube", j)), m, p.LUTSize, title); err != nil {
			return err
		}
		fmt.Fprintf(logw, "%s → %s (marginal error %.3g)\n", sp, name, m.MarginalErr)
	}
	return thumbnailStrip(filepath.Join(out, "transfers.png"), filepath.Join(out, "transfer-*.png"))
}

// thumbnailStrip draws the images matching pattern, in the numeric order
// of their names, as a row of thumbnails into path.
func thumbnailStrip(path, pattern string) error {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		return fmt.Errorf("%s: no images %s to draw", path, filepath.Base(pattern))
	}
	dataset.Sort(files)
	thumbs := make([]image.Image, len(files))
	for i, f := range files {
		img, err := colorLoadImage(f, 0)
		if err != nil {
			return err
		}
		thumbs[i] = draw.Thumbnail(img, 200)
	}
	return dataset.SavePicture(path, draw.Row(thumbs...))
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
