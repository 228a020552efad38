package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"io"
	"path/filepath"
	"strings"

	"github.com/gmlg/gmlg/learn/limits"
	"github.com/gmlg/gmlg/learn/rundir"
	"github.com/gmlg/gmlg/learn/runlog"
	"github.com/gmlg/gmlg/ot/color"
	"github.com/gmlg/gmlg/ot/draw"
)

// colorTransferOutputs are the files transfer writes in its -o folder.
var colorTransferOutputs = []string{"params.json", "transfer-*.png", "lut-*.cube", "transfers.png"}

// colorTransferOptions are transfer's flags.
type colorTransferOptions struct {
	out           string
	force         bool
	bins          int
	L             int
	sigmaGamma    float64
	gamma         float64
	dropSaturated bool
	noBilateral   bool
	interpolate   bool
	lutSize       int
	quiet         bool
}

func init() {
	register(&command{
		name:    "transfer",
		summary: "transfer the colours of source images onto target images by optimal transport",
		usage: `[options] TARGET SOURCE [SOURCE...]

Direct OT colour transfer without interpolation (docs/method.md,
"Direct transfer"): the RGB histograms of TARGET and of each SOURCE at n
bins per channel, a Sinkhorn plan under the Euclidean kernel
exp(−|x−x'|²/γ) (γ = -gamma, or 2·σ² with σ = -sigma-gamma), barycentric
projection of the bins, cross-bilateral smoothing guided by TARGET. For
source j it writes transfer-JJ.png and lut-JJ.cube (the colour correction
as a 3-D LUT for video tools) into -o, and transfers.png, a strip of
thumbnails, with params.json. A folder that is not empty is refused unless
-force, which replaces a previous gmlg output there as a whole and never a
file that gmlg did not write.
The defaults follow the reference's ml_direct_transfer (n = 32, L = 100).`,
		setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
			o := &colorTransferOptions{}
			fs.StringVar(&o.out, "o", "transfer-out", "output `directory`")
			fs.BoolVar(&o.force, "force", false, "write into a folder that is not empty, replacing the previous gmlg output there (other files stay)")
			fs.IntVar(&o.bins, "n", 32, "histogram `bins` per channel, 2 to "+fmt.Sprint(limits.MaxBins))
			fs.IntVar(&o.L, "L", color.DefaultIterations, "Sinkhorn `iterations`")
			fs.Float64Var(&o.sigmaGamma, "sigma-gamma", 0.05, "σ of the Euclidean kernel, γ = 2σ² (used when -gamma is 0)")
			fs.Float64Var(&o.gamma, "gamma", 0, "γ of the Euclidean kernel (0: from -sigma-gamma)")
			fs.BoolVar(&o.dropSaturated, "drop-saturated", false, "drop pixels with a channel equal to 255 (reference-compatible histograms)")
			fs.BoolVar(&o.noBilateral, "no-bilateral", false, "no cross-bilateral smoothing of the colour correction")
			fs.BoolVar(&o.interpolate, "interpolate", false, "interpolate the per-bin correction between bins (gmlg extension)")
			fs.IntVar(&o.lutSize, "lut-size", 0, "`nodes` per axis of the .cube LUTs (0: n)")
			fs.BoolVar(&o.quiet, "q", false, "no progress output")
			return func(ctx context.Context, args []string) error {
				if len(args) < 2 {
					return usagef("want a target image and at least one source image, got %d arguments", len(args))
				}
				_, logw := outputs(ctx)
				if o.quiet {
					logw = io.Discard
				}
				return colorTransfer(ctx, args[0], args[1:], o, logw)
			}
		},
	})
}

// colorTransfer runs transfer.
func colorTransfer(ctx context.Context, targetPath string, sources []string, o *colorTransferOptions, logw io.Writer) error {
	gamma := o.gamma
	if gamma == 0 {
		gamma = color.GammaFromSigma(o.sigmaGamma)
	}
	switch {
	case o.bins < 2:
		return usagef("-n must be at least 2, got %d", o.bins)
	case o.bins > limits.MaxBins:
		return checkBins("-n", o.bins)
	case o.L < 1:
		return usagef("-L must be at least 1, got %d", o.L)
	case !(gamma > 0) || o.gamma < 0:
		return usagef("-gamma (or -sigma-gamma) must be positive")
	case o.lutSize < 0 || o.lutSize == 1 || o.lutSize > 256:
		return usagef("-lut-size must be 0 or in 2..256, got %d", o.lutSize)
	}
	inputs := append([]string{targetPath}, sources...)
	if err := checkInputs(o.out, inputs...); err != nil {
		return err
	}
	what := fmt.Sprintf("the transfer at %d³ bins", o.bins)
	if err := limits.Memory(what, limits.ColourBytes(o.bins, 2, false), "pass a smaller -n"); err != nil {
		return err
	}
	target, err := colorLoadImage(targetPath, limits.ColourTransferPixelBytes)
	if err != nil {
		return err
	}
	d, err := color.NewDirect(target, color.DirectOptions{Bins: o.bins, Gamma: gamma, DropSaturated: o.dropSaturated,
		Transfer: color.TransferOptions{Iterations: o.L, NoBilateral: o.noBilateral, Interpolate: o.interpolate}})
	if err != nil {
		return fmt.Errorf("%s: %w", targetPath, err)
	}
	od, err := takeOutDir(ctx, o.out, transferSpec, o.force, inputs...)
	if err != nil {
		return err
	}
	defer od.Close()
	if err := rundir.WriteChecked(filepath.Join(o.out, "params.json"), map[string]any{
		"command": "transfer", "version": rundir.Version(), "target": targetPath, "sources": sources,
		"n": o.bins, "L": o.L, "gamma": gamma, "drop_saturated": o.dropSaturated, "bilateral": !o.noBilateral,
		"interpolate": o.interpolate,
	}); err != nil {
		return err
	}
	thumbs := make([]image.Image, len(sources))
	for j, sp := range sources {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := colorLoadImage(sp, 0)
		if err != nil {
			return err
		}
		out, m, err := d.From(src)
		if err != nil {
			return fmt.Errorf("transfer from %s: %w", sp, err)
		}
		name := filepath.Join(o.out, fmt.Sprintf("transfer-%02d.png", j))
		rgba := out.NRGBA()
		if err := colorSaveFrame(name, rgba); err != nil {
			return err
		}
		thumbs[j] = draw.Thumbnail(rgba, 200)
		title := "gmlg transfer from " + strings.ReplaceAll(filepath.Base(sp), `"`, "")
		if err := colorWriteLUT(filepath.Join(o.out, fmt.Sprintf("lut-%02d.cube", j)), m, o.lutSize, title); err != nil {
			return err
		}
		fmt.Fprintf(logw, "%s → %s (marginal error %.3g)\n", sp, name, m.MarginalErr)
	}
	return runlog.SavePicture(filepath.Join(o.out, "transfers.png"), draw.Row(thumbs...))
}
