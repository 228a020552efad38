package draw_test

import (
	"bytes"
	"fmt"
	"image/png"
	"log"
	"math"

	"github.com/gmlg/gmlg/ot/color"
	"github.com/gmlg/gmlg/ot/draw"
)

func ExampleHeatMaps() {
	// A 2-D metric in the reference's [d,N] layout, n = 10.
	n := 10
	metric := make([]float64, 2*n*n)
	for i := range metric {
		metric[i] = 1 + 0.5*math.Sin(float64(i)/7)
	}
	panels, err := draw.MetricPanels(metric, 2, n)
	if err != nil {
		log.Fatal(err)
	}
	img, err := draw.HeatMaps(panels, &draw.HeatMapOptions{Size: 100})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(panels[0].Title, panels[1].Title, img.Bounds().Dx() > 200)
	// Output: Horizontal Vertical true
}

func ExampleStrip() {
	frame := func(shift int) draw.Field {
		f := draw.Field{Rows: 4, Cols: 4, Data: make([]float64, 16)}
		f.Data[5+shift] = 1
		return f
	}
	obs := []draw.Field{frame(0), frame(1), frame(2)}
	rec := []draw.Field{frame(0), frame(2), frame(2)}
	img, err := draw.Strip([][]draw.Field{obs, rec}, &draw.StripOptions{
		RowLabels: []string{"observed", "reconstructed"},
		Colormap:  draw.Grey,
		Size:      16,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds().Dy())
	// Output: 66
}

func ExampleLossPlot() {
	loss := []float64{9.8, 4.1, 2.2, 1.6, 1.4, 1.35}
	img, err := draw.LossPlot(loss, &draw.LossOptions{Width: 640, Height: 300})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds())
	// Output: (0,0)-(640,300)
}

func ExampleFramePicture() {
	// A 2×3 frame, each cell drawn as a 2×2 block of grey levels
	// uint8(v/max·255).
	f := draw.Field{Rows: 2, Cols: 3, Data: []float64{0, 1, 2, 3, 4, 8}}
	img, err := draw.FramePicture(f, draw.Grey, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds(), img.RGBAAt(0, 0), img.RGBAAt(5, 3))
	// Output: (0,0)-(6,4) {0 0 0 255} {255 255 255 255}
}

func ExampleHistogram() {
	const n = 4
	h := make([]float64, n*n*n)
	h[color.Index(3, 1, 0, n)] = 0.7 // orange
	h[color.Index(0, 1, 3, n)] = 0.3 // blue
	img, err := draw.Histogram(h, n, &draw.HistogramOptions{Size: 160, Title: "two colours"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds())
	// Output: (0,0)-(160,160)
}

func ExampleHistogramStrip() {
	const n = 4
	a := make([]float64, n*n*n)
	b := make([]float64, n*n*n)
	a[color.Index(3, 0, 0, n)] = 1 // red
	b[color.Index(0, 0, 3, n)] = 1 // blue
	img, err := draw.HistogramStrip([][]float64{a, b}, n, []string{"t=0", "t=1"}, &draw.HistogramOptions{Size: 120})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds())
	// Output: (0,0)-(240,120)
}

func ExampleStack() {
	// A title band above two thumbnails side by side.
	f := draw.Field{Rows: 40, Cols: 60, Data: make([]float64, 40*60)}
	big, err := draw.FramePicture(f, nil, 10) // 600×400
	if err != nil {
		log.Fatal(err)
	}
	row := draw.Row(draw.Thumbnail(big, 200), draw.Thumbnail(big, 200))
	img := draw.Stack(draw.Label("two thumbnails", row.Bounds().Dx()), row)
	fmt.Println(row.Bounds(), img.Bounds())
	// Output: (0,0)-(400,133) (0,0)-(400,151)
}

func ExampleEncodePNG() {
	img, err := draw.LossPlot([]float64{3, 2, 1.5}, &draw.LossOptions{Width: 320, Height: 200})
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := draw.EncodePNG(&buf, img); err != nil {
		log.Fatal(err)
	}
	back, err := png.Decode(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Bounds())
	// Output: (0,0)-(320,200)
}
