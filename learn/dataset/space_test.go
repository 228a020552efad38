package dataset

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmlg/gmlg/learn"
)

// TestLoadSpace reads a graph folder (a path of four vertices with
// coordinates) and a grid folder, and checks what their spaces say.
func TestLoadSpace(t *testing.T) {
	graph := t.TempDir()
	files := map[string]*Array{
		EdgesFile:  {Shape: []int{3, 2}, Data: []float64{0, 1, 1, 2, 2, 3}},
		CoordsFile: {Shape: []int{4, 2}, Data: []float64{0, 0, 1, 0, 2, 0, 3, 0}},
	}
	for j := range 3 {
		files[fmt.Sprintf("array-%02d.npy", j)] = &Array{Shape: []int{4}, Data: []float64{1, 2, 3, float64(j + 1)}}
	}
	for name, a := range files {
		if err := WriteNpyFile(filepath.Join(graph, name), a); err != nil {
			t.Fatal(err)
		}
	}
	sp, set, err := LoadSpace(graph, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sp.IsGraph() || sp.Graph.N() != 4 || sp.Coords == nil || set.N() != 4 || sp.Alpha() != 1 ||
		!slices.Equal(sp.HistShape(), []int{4}) || sp.MetricKind(learn.VertexMetric) != learn.EdgeMetric {
		t.Errorf("graph folder: graph %v, coords %v, N %d, α %g, shape %v", sp.IsGraph(), sp.Coords != nil, set.N(), sp.Alpha(), sp.HistShape())
	}
	if !slices.Equal(sp.Edges(), [][2]int{{0, 1}, {1, 2}, {2, 3}}) {
		t.Errorf("edges %v", sp.Edges())
	}
	path := filepath.Join(t.TempDir(), "w.npy")
	if err := sp.WriteMetric(path, learn.EdgeMetric, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if w, err := sp.ReadMetric(path, learn.EdgeMetric); err != nil || !slices.Equal(w, []float64{1, 2, 3}) {
		t.Errorf("metric read back as %v, %v", w, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.npy")
	WriteNpyFile(bad, &Array{Shape: []int{4}, Data: []float64{1, 1, 1, 1}})
	if _, err := sp.ReadMetric(bad, learn.EdgeMetric); err == nil || !strings.Contains(err.Error(), "one weight per edge") {
		t.Errorf("a metric of 4 values on 3 edges: %v", err)
	}

	grid := t.TempDir()
	for j := range 3 {
		WriteNpyFile(filepath.Join(grid, fmt.Sprintf("array-%02d.npy", j)), &Array{Shape: []int{5, 5}, Data: make25(j)})
	}
	gs, _, err := LoadSpace(grid, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, n := gs.GridSize(); gs.IsGraph() || d != 2 || n != 5 || gs.Alpha() != 16 || gs.MetricKind(learn.VertexMetric) != learn.VertexMetric {
		t.Errorf("grid folder: graph %v, %d-D side %d, α %g", gs.IsGraph(), d, n, gs.Alpha())
	}
}

// make25 returns a 5×5 frame with mass at cell j.
func make25(j int) []float64 {
	f := make([]float64, 25)
	f[j] = 1
	return f
}

// TestGraphFolderChecked: coordinates that are not finite, and an edge
// list that is a FIFO, are errors naming the file at load.
func TestGraphFolderChecked(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		dir := t.TempDir()
		WriteNpyFile(filepath.Join(dir, EdgesFile), &Array{Shape: []int{1, 2}, Data: []float64{0, 1}})
		WriteNpyFile(filepath.Join(dir, CoordsFile), &Array{Shape: []int{2, 2}, Data: []float64{0, 0, 1, bad}})
		if _, err := ReadGraphFolder(dir, nil); err == nil || !strings.Contains(err.Error(), CoordsFile) || !strings.Contains(err.Error(), "vertex 1") {
			t.Errorf("coordinate %v: %v, want an error naming %s and vertex 1", bad, err, CoordsFile)
		}
	}
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, EdgesFile), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadGraphFolder(dir, nil); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), EdgesFile) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("a FIFO as the edge list: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a FIFO edge list")
	}
}
