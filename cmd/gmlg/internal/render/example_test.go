package render_test

import (
	"fmt"
	"log"
	"math"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/render"
)

func ExampleHeatMaps() {
	// A 2-D metric in the reference's [d,N] layout, n = 10.
	n := 10
	metric := make([]float64, 2*n*n)
	for i := range metric {
		metric[i] = 1 + 0.5*math.Sin(float64(i)/7)
	}
	panels, err := render.MetricPanels(metric, 2, n)
	if err != nil {
		log.Fatal(err)
	}
	img, err := render.HeatMaps(panels, &render.HeatMapOptions{Size: 100})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(panels[0].Title, panels[1].Title, img.Bounds().Dx() > 200)
	// Output: Horizontal Vertical true
}

func ExampleStrip() {
	frame := func(shift int) render.Field {
		f := render.Field{Rows: 4, Cols: 4, Data: make([]float64, 16)}
		f.Data[5+shift] = 1
		return f
	}
	obs := []render.Field{frame(0), frame(1), frame(2)}
	rec := []render.Field{frame(0), frame(2), frame(2)}
	img, err := render.Strip([][]render.Field{obs, rec}, &render.StripOptions{
		RowLabels: []string{"observed", "reconstructed"},
		Colormap:  render.Grey,
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
	img, err := render.LossPlot(loss, &render.LossOptions{Width: 640, Height: 300})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds())
	// Output: (0,0)-(640,300)
}
