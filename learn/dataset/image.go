package dataset

import (
	"cmp"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // register the JPEG decoder
	_ "image/png"  // register the PNG decoder
	"io"

	"github.com/gmlg/gmlg/learn/rundir"
)

// MaxImageSamples bounds width × height × channels of a decoded image
// (16384 × 16384 RGBA), whatever the memory budget.
const MaxImageSamples = 1 << 30

// MemoryCheck vets an allocation before it is made: need is its estimated
// size in bytes, what names it ("data/array-03.npy (shape (50, 50))") and
// hint says which sizes to reduce. Its error is returned unchanged.
type MemoryCheck func(what string, need float64, hint string) error

// ImageOptions tells DecodeImage what the caller will do with the image.
// The zero value (or nil) checks only MaxImageSamples.
type ImageOptions struct {
	// BytesPerPixel is what the caller allocates per pixel after decoding
	// (8 for one float64 grey level), added to the decoder's own memory.
	BytesPerPixel int
	// Check, when not nil, vets the header (e.g. a square shape) before
	// the size checks and the decoding; its error is returned as is.
	Check func(cfg image.Config, format string) error
	// Memory, when not nil, vets the memory of decoding the image.
	Memory MemoryCheck
}

// DecodeImage decodes the PNG or JPEG file at path after checking, from its
// header alone, that its width × height × channels is at most
// MaxImageSamples and that opt.Memory accepts the memory of decoding it,
// so that a small file with a huge header cannot exhaust memory. It returns
// the image and its format ("png" or "jpeg"). Errors name the file.
func DecodeImage(path string, opt *ImageOptions) (image.Image, string, error) {
	opt = cmp.Or(opt, &ImageOptions{})
	f, err := rundir.OpenInput(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	if err != nil {
		return nil, "", fmt.Errorf("decode %s: not a readable PNG or JPEG image: %w", path, err)
	}
	if opt.Check != nil {
		if err := opt.Check(cfg, format); err != nil {
			return nil, "", err
		}
	}
	if err := CheckImage(path, cfg, format, opt.BytesPerPixel, opt.Memory); err != nil {
		return nil, "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, "", fmt.Errorf("%s: corrupt or truncated %s image: %w", path, format, err)
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, "", fmt.Errorf("%s: the %s header says %d×%d but the pixels are %d×%d",
			path, format, cfg.Width, cfg.Height, b.Dx(), b.Dy())
	}
	return img, format, nil
}

// CheckImage checks an image header: a non-empty size, at most
// MaxImageSamples samples, and, when memory is not nil, the memory of
// decoding it plus extraPerPixel bytes per pixel.
func CheckImage(path string, cfg image.Config, format string, extraPerPixel int, memory MemoryCheck) error {
	w, h := cfg.Width, cfg.Height
	if w < 1 || h < 1 {
		return fmt.Errorf("%s: empty %d×%d %s image", path, w, h, format)
	}
	channels, sampleBytes := layout(cfg.ColorModel)
	pixels := float64(w) * float64(h)
	if samples := pixels * float64(channels); samples > MaxImageSamples {
		return fmt.Errorf("%s: %d×%d %s image with %d channel(s) has %.4g samples; at most %d (16384×16384 RGBA) are read; scale the image down",
			path, w, h, format, channels, samples, MaxImageSamples)
	}
	if memory == nil {
		return nil
	}
	// The decoder holds the image and, for a PNG, the same again (an
	// interlaced PNG decodes its passes into separate images); a
	// progressive JPEG also keeps a 4-byte coefficient per sample.
	decode := 2 * channels * sampleBytes
	if format == "jpeg" {
		decode = channels*sampleBytes + 4*channels
	}
	return memory(fmt.Sprintf("%s (%d×%d %s)", path, w, h, format), pixels*float64(decode+extraPerPixel), "scale the image down")
}

// layout returns the channels per pixel and bytes per channel of the
// decoded form of an image whose header gives colour model m.
func layout(m color.Model) (channels, sampleBytes int) {
	if _, ok := m.(color.Palette); ok {
		return 1, 1
	}
	switch m {
	case color.GrayModel:
		return 1, 1
	case color.Gray16Model:
		return 1, 2
	case color.YCbCrModel:
		return 3, 1
	case color.RGBA64Model, color.NRGBA64Model:
		return 4, 2
	default: // RGBA, NRGBA, CMYK and anything else
		return 4, 1
	}
}
