package draw

import (
	"image"
	"image/color"
	imagedraw "image/draw"
)

// Stack puts pictures below each other, left aligned, on a white
// background as wide as the widest.
func Stack(imgs ...image.Image) *image.RGBA {
	return compose(imgs, true)
}

// Row puts pictures side by side, top aligned, on a white background as
// high as the highest.
func Row(imgs ...image.Image) *image.RGBA {
	return compose(imgs, false)
}

// compose places imgs one after the other on white, downwards or across.
func compose(imgs []image.Image, down bool) *image.RGBA {
	var size image.Point
	for _, im := range imgs {
		d := im.Bounds().Size()
		if down {
			size = image.Pt(max(size.X, d.X), size.Y+d.Y)
		} else {
			size = image.Pt(size.X+d.X, max(size.Y, d.Y))
		}
	}
	out := image.NewRGBA(image.Rectangle{Max: size})
	imagedraw.Draw(out, out.Bounds(), image.White, image.Point{}, imagedraw.Src)
	var at image.Point
	for _, im := range imgs {
		b := im.Bounds()
		imagedraw.Draw(out, image.Rectangle{Min: at, Max: at.Add(b.Size())}, im, b.Min, imagedraw.Over)
		if down {
			at.Y += b.Dy()
		} else {
			at.X += b.Dx()
		}
	}
	return out
}

// Thumbnail scales img down by the smallest whole factor f that makes it
// at most maxW pixels wide, averaging each f×f block of 8-bit channels
// (truncating); the result is opaque.
func Thumbnail(img image.Image, maxW int) *image.RGBA {
	b := img.Bounds()
	f := max((b.Dx()+maxW-1)/maxW, 1)
	w, h := b.Dx()/f, b.Dy()/f
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	n := uint32(f * f)
	for y := range h {
		for x := range w {
			var sr, sg, sb uint32
			for dy := range f {
				for dx := range f {
					r, g, bb, _ := img.At(b.Min.X+x*f+dx, b.Min.Y+y*f+dy).RGBA()
					sr += r >> 8
					sg += g >> 8
					sb += bb >> 8
				}
			}
			out.SetRGBA(x, y, color.RGBA{uint8(sr / n), uint8(sg / n), uint8(sb / n), 255})
		}
	}
	return out
}

// Label returns a white band 18 pixels high holding text in black bitmap
// type, at least w pixels wide and wider if the text needs it.
func Label(text string, w int) *image.RGBA {
	c := newCanvas(max(w, tagAdvance*len(text)+8), 18)
	c.tag(4, 13, text, color.RGBA{0, 0, 0, 255})
	return c.img
}
