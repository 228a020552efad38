package runlog

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/dataset"
	"github.com/gmlg/gmlg/learn/rundir"
)

// LearnRun is the record of a learning run on a grid or a graph (gmlg
// learn) as its params.json holds it: everything the run depends on, so
// that it can be resumed, redrawn, and its metric used under its own
// model.
type LearnRun struct {
	Command   string     `json:"command"`
	Version   string     `json:"version"`
	Data      Data       `json:"data"`
	Model     Model      `json:"model"`
	Optimizer Optimizer  `json:"optimizer"`
	Kernel    KernelInfo `json:"kernel"`
	Resumed   int        `json:"resumed"`
}

// ReadLearnRun reads the params.json of the learning run in dir into p,
// whose values stay where the file has no member, checking its checksum
// and that gmlg learn wrote it.
func ReadLearnRun(dir string, p *LearnRun) error {
	path := filepath.Join(dir, "params.json")
	if err := rundir.ReadChecked(path, p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s is not a run folder: %w", dir, err)
		}
		return err
	}
	if p.Command != "learn" {
		return fmt.Errorf("%s was not written by gmlg learn", path)
	}
	return nil
}

// Data describes a run's input frames: the folder, how its frames were
// read, their checksums and the grid or graph they live on.
type Data struct {
	Dir       string           `json:"dir"`
	Pattern   string           `json:"pattern"`
	Floor     float64          `json:"floor"`
	Checksum  string           `json:"checksum"`
	Files     []rundir.FileSum `json:"files"`
	Dim       int              `json:"dim"` // grid dimension; 0 for a graph folder
	Side      int              `json:"n"`   // grid side; 0 for a graph folder
	Vertices  int              `json:"N"`
	Edges     int              `json:"edges,omitempty"` // edges of a graph folder (edges.npy)
	Sequences []int            `json:"frames_per_sequence"`
	// Gaps lists the frame numbers missing inside each sequence
	// ("sequence 00: frames 03, 04 missing"); see dataset.Set.Gaps.
	Gaps []string `json:"gaps,omitempty"`
}

// Describe records in d what the frames of set on sp are: the checksum
// and list of their files (with the edge list of a graph folder), the
// grid (Dim, Side) or graph (Edges), the vertices and the frames per
// sequence.
func (d *Data) Describe(set *dataset.Set, sp dataset.Space) error {
	files := set.Files()
	if sp.IsGraph() {
		files = append(files, filepath.Join(set.Dir, dataset.EdgesFile))
	}
	sum, fs, err := rundir.Checksum(files)
	if err != nil {
		return err
	}
	d.Checksum, d.Files, d.Vertices = sum, fs, sp.Graph.N()
	d.Dim, d.Side, d.Edges = 0, 0, 0
	if sp.IsGraph() {
		d.Edges = sp.Graph.NumEdges()
	} else {
		d.Dim, d.Side = sp.GridSize()
	}
	d.Sequences = d.Sequences[:0]
	for _, s := range set.Sequences {
		d.Sequences = append(d.Sequences, len(s.Frames))
	}
	return nil
}

// Space returns the grid that d describes, or the graph of its folder
// (checked against the recorded number of edges), reading no more than
// memory allows.
func (d *Data) Space(memory dataset.MemoryCheck) (dataset.Space, error) {
	if d.Edges > 0 {
		sp, err := dataset.ReadGraphFolder(d.Dir, memory)
		if err == nil && sp.Graph.NumEdges() != d.Edges {
			err = fmt.Errorf("%s has %d edges, the run learned on %d", filepath.Join(d.Dir, dataset.EdgesFile), sp.Graph.NumEdges(), d.Edges)
		}
		if err != nil {
			return dataset.Space{}, fmt.Errorf("the run's graph: %w", err)
		}
		return sp, nil
	}
	g, err := kernel.Cube(d.Dim, d.Side)
	if err != nil {
		return dataset.Space{}, fmt.Errorf("the run's grid (%d-D, side %d): %w", d.Dim, d.Side, err)
	}
	return dataset.Space{Graph: g}, nil
}

// Optimizer is a run's L-BFGS settings, its starting point and how often
// it saves; FTol and GTol 0 disable their test.
type Optimizer struct {
	MaxIter       int     `json:"max_iter"`
	History       int     `json:"history"`
	MaxLinesearch int     `json:"max_linesearch"`
	FTol          float64 `json:"ftol"`
	GTol          float64 `json:"gtol"`
	SaveEvery     int     `json:"save_every"`
	Init          string  `json:"init"`
	// Coarse > 0 (fast mode) starts the run from a metric learned coarse
	// to fine on the grid halved Coarse times, CoarseIters iterations per
	// coarse level (learn.RunSettings.Coarse), prolonged to the data's grid.
	Coarse      int `json:"coarse,omitempty"`
	CoarseIters int `json:"coarse_iters,omitempty"`
}

// DefaultOptimizer returns scipy's L-BFGS-B defaults as the reference uses
// them (500 iterations, 20 pairs, 20 evaluations per line search, factr
// 1e7 and pgtol 1e-5), saving at every iteration from the uniform metric.
func DefaultOptimizer() Optimizer {
	return Optimizer{MaxIter: 500, History: 20, MaxLinesearch: 20, FTol: 1e7 * 2.220446049250313e-16, GTol: 1e-5,
		SaveEvery: 1, Init: "ones"}
}

// Check validates the settings (errors name the options as gmlg learn
// spells them) and clears CoarseIters without Coarse.
func (o *Optimizer) Check() error {
	switch {
	case o.MaxIter < 1:
		return fmt.Errorf("--max-iter must be at least 1, got %d", o.MaxIter)
	case o.SaveEvery < 1:
		return fmt.Errorf("--save-every must be at least 1, got %d", o.SaveEvery)
	case o.History < 1:
		return fmt.Errorf("--history must be at least 1, got %d", o.History)
	case o.MaxLinesearch < 1:
		return fmt.Errorf("--max-linesearch must be at least 1, got %d", o.MaxLinesearch)
	case !(o.FTol >= 0) || math.IsInf(o.FTol, 0):
		return fmt.Errorf("--ftol must be a finite number ≥ 0, got %g", o.FTol)
	case !(o.GTol >= 0) || math.IsInf(o.GTol, 0):
		return fmt.Errorf("--gtol must be a finite number ≥ 0, got %g", o.GTol)
	case o.Init == "":
		return fmt.Errorf("--init must be ones or a .npy file")
	case o.Coarse < 0:
		return fmt.Errorf("--coarse must be ≥ 0, got %d", o.Coarse)
	case o.Coarse > 0 && o.CoarseIters < 1:
		return fmt.Errorf("--coarse-iters must be at least 1, got %d", o.CoarseIters)
	case o.Coarse > 0 && o.Init != "ones":
		return fmt.Errorf("--coarse and --init both set the starting metric; give one of them")
	}
	if o.Coarse == 0 {
		o.CoarseIters = 0
	}
	return nil
}

// Settings returns learn's optimiser settings for o, reporting to obs
// (a disabled tolerance, 0 here, is negative there).
func (o *Optimizer) Settings(obs learn.Observer) learn.Settings {
	disabled := func(v float64) float64 {
		if v == 0 {
			return -1
		}
		return v
	}
	return learn.Settings{MaxIter: o.MaxIter, History: o.History, MaxLinesearch: o.MaxLinesearch,
		FTol: disabled(o.FTol), GTol: disabled(o.GTol), Observer: obs}
}

// KernelInfo records the factorisation an objective used, the Laplacian's
// scale, the number of metric parameters and the threads the evaluations
// ran on (GOMAXPROCS: the solves and the elementwise phases alike; the
// results do not depend on it with CHOLMOD, and with the pure-Go backend
// only at rounding level).
type KernelInfo struct {
	Backend  string  `json:"backend"`
	Ordering string  `json:"ordering"`
	NNZL     int     `json:"nnz_l"`
	Alpha    float64 `json:"alpha"`
	Params   int     `json:"metric_params"`
	Threads  int     `json:"threads"`
	// Kernels names the backend's solve kernels where its results depend
	// on them (factor.Info.Kernels: the engine's "avx512-fma", "avx2-fma"
	// or "scalar"); omitted otherwise.
	Kernels string `json:"solve_kernels,omitempty"`
}

// NewKernelInfo returns the record of obj's kernel, with the Laplacian's
// scale alpha, as it runs now.
func NewKernelInfo(obj *learn.Objective, alpha float64) KernelInfo {
	info := obj.Heat().Info()
	return KernelInfo{Backend: info.Backend, Ordering: info.Ordering, NNZL: info.NNZL, Alpha: alpha, Params: obj.Dim(),
		Threads: runtime.GOMAXPROCS(0), Kernels: info.Kernels}
}
