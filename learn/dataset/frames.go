package dataset

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gmlg/gmlg/kernel"
	"github.com/gmlg/gmlg/learn"
	"github.com/gmlg/gmlg/learn/rundir"
)

// DefaultPattern is the glob tried first when Options.Pattern is empty.
const DefaultPattern = "array-*.npy"

// imagePatterns are tried, together, when DefaultPattern matches nothing.
var imagePatterns = []string{"*.png", "*.jpg", "*.jpeg"}

// Options controls Load. The zero value (or nil) gives the defaults.
type Options struct {
	// Pattern is a filepath.Match glob inside the folder. Empty means
	// DefaultPattern, or the images *.png, *.jpg and *.jpeg when no file
	// matches it.
	Pattern string
	// Floor, when positive, adds Floor·max(I)/N to every value of a frame I
	// before normalising it (the reference's data use 1e-6). Zero adds
	// nothing.
	Floor float64
	// MinFrames is the smallest accepted number of frames per sequence.
	// Zero means 3.
	MinFrames int
	// Memory, when not nil, vets the memory of reading each file and of
	// all the frames together, from the headers, before the data are
	// read. nil bounds only the grid (MaxVertices) and the image size.
	Memory MemoryCheck
	// Length, when positive, reads histograms on the vertices of a graph:
	// every frame must be a 1-D .npy array of exactly Length values (one
	// per vertex, in the graph's vertex order), and images are refused.
	// Zero reads 2-D or 3-D grid frames.
	Length int
}

// Frame is one normalised observation.
type Frame struct {
	// Path is the file the frame was read from.
	Path string
	// Data holds the N = n^d values in C order; they are non-negative,
	// finite and sum to one.
	Data []float64
}

// Sequence is an ordered series of frames observed on the same grid.
type Sequence struct {
	// ID is the SS field of array-SS-TT names, or "" for a folder holding a
	// single sequence.
	ID string
	// Frames are in the numeric order of their names (see Sort); the
	// first and last are the poles.
	Frames []Frame
}

// Block returns the frames of q concatenated into one column-major block:
// frame k is Block()[k*N:(k+1)*N], the layout of the ot and cholmod
// packages. The result is a new slice.
func (q *Sequence) Block() []float64 {
	var out []float64
	for _, f := range q.Frames {
		out = append(out, f.Data...)
	}
	return out
}

// Set is everything Load read from a folder.
type Set struct {
	// Dir is the folder, as given to Load ("" for LoadFiles).
	Dir string
	// Shape is [n, n] or [n, n, n], the common shape of every frame, or
	// [N] for histograms on a graph (Options.Length).
	Shape []int
	// Sequences are ordered by the value of their ID.
	Sequences []Sequence
	// Gaps describes, one line per sequence, the frame numbers missing
	// between a sequence's first and last frame ("sequence 00: frames 03,
	// 04 missing"); nil when every sequence is numbered without gaps.
	Gaps []string
	// Colour is the first frame file that is a colour image (a pixel whose
	// red, green and blue differ): its values, like every image's, are the
	// grey levels (R+G+B)/3, so the colours themselves are lost. "" when no
	// frame is a colour image. Load does not warn; the caller decides.
	Colour string
}

// Dim returns the grid dimension d, 2 or 3 (1 for histograms on a graph).
func (s *Set) Dim() int { return len(s.Shape) }

// Side returns the grid side n (the number of vertices on a graph).
func (s *Set) Side() int { return s.Shape[0] }

// N returns the number of vertices (n^d on a grid), the length of every
// frame.
func (s *Set) N() int {
	n := 1
	for _, d := range s.Shape {
		n *= d
	}
	return n
}

// Graph returns the grid the frames live on: n^d vertices, each joined to
// its neighbour along every axis. The error is nil for a Set of grid frames
// that Load or LoadFiles returned; histograms on a graph (Options.Length)
// give an error, since their graph comes from its edge list (ReadEdges).
func (s *Set) Graph() (*kernel.Graph, error) {
	if s.Dim() < 2 {
		return nil, fmt.Errorf("dataset: frames of shape %s lie on a graph, not a grid; build it from its edge list", ShapeString(s.Shape))
	}
	return kernel.Cube(s.Dim(), s.Side())
}

// LearnSequences returns the sequences as the learner takes them, frame
// times evenly spaced on [0, 1]. The frames share the Set's memory.
func (s *Set) LearnSequences() []learn.Sequence {
	out := make([]learn.Sequence, len(s.Sequences))
	for i, q := range s.Sequences {
		for _, f := range q.Frames {
			out[i].Frames = append(out[i].Frames, f.Data)
		}
	}
	return out
}

// Frames returns the data of every frame, sequence by sequence: the
// frames as learn.Sequence holds them and the pictures draw them.
func (s *Set) Frames() [][][]float64 {
	out := make([][][]float64, len(s.Sequences))
	for i, q := range s.Sequences {
		for _, f := range q.Frames {
			out[i] = append(out[i], f.Data)
		}
	}
	return out
}

// Files returns the paths of all frames, sequence by sequence.
func (s *Set) Files() []string {
	var out []string
	for _, q := range s.Sequences {
		for _, f := range q.Frames {
			out = append(out, f.Path)
		}
	}
	return out
}

// Load reads, checks and normalises the frames in folder dir.
func Load(dir string, opt *Options) (*Set, error) {
	if opt == nil {
		opt = &Options{}
	}
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("dataset: folder %s does not exist", dir)
		}
		return nil, fmt.Errorf("dataset: folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("dataset: %s is not a folder", dir)
	}
	var paths []string
	if opt.Pattern != "" {
		if paths, err = glob(dir, opt.Pattern); err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("dataset: no file in folder %s matches %q", dir, opt.Pattern)
		}
	} else {
		if paths, err = glob(dir, DefaultPattern); err != nil {
			return nil, err
		}
		if len(paths) == 0 && opt.Length > 0 {
			return nil, fmt.Errorf("dataset: folder %s has no %s files", dir, DefaultPattern)
		}
		if len(paths) == 0 {
			for _, p := range imagePatterns {
				m, err := glob(dir, p)
				if err != nil {
					return nil, err
				}
				paths = append(paths, m...)
			}
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("dataset: folder %s has no %s, %s files",
				dir, DefaultPattern, strings.Join(imagePatterns, ", "))
		}
	}
	Sort(paths)
	set, err := LoadFiles(paths, opt)
	if err != nil {
		return nil, err
	}
	set.Dir = dir
	return set, nil
}

// glob returns the files matching pattern inside dir, sorted. Every match
// must be a regular file (or a link to one): a folder, FIFO, device or
// socket named like a frame is an error naming it, never skipped, since
// leaving it out would silently change the sequence.
func glob(dir, pattern string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return nil, fmt.Errorf("dataset: pattern %q: %w", pattern, err)
	}
	for _, p := range m {
		if err := rundir.CheckInput(p); err != nil {
			return nil, fmt.Errorf("dataset: a file matches the pattern %q but %w; move it away or give another pattern", pattern, err)
		}
	}
	sort.Strings(m)
	return m, nil
}

// LoadFiles reads, checks and normalises the given files, in the given
// order, grouping them into sequences by their names as Load does. Two
// files whose names give the same sequence and frame numbers are an
// error; numbers missing within a sequence are reported in Set.Gaps.
func LoadFiles(paths []string, opt *Options) (*Set, error) {
	if opt == nil {
		opt = &Options{}
	}
	if len(paths) == 0 {
		return nil, errors.New("dataset: no files given")
	}
	if !(opt.Floor >= 0) || math.IsInf(opt.Floor, 0) {
		return nil, fmt.Errorf("dataset: Floor must be a finite non-negative number, not %v", opt.Floor)
	}
	minFrames := opt.MinFrames
	if minFrames == 0 {
		minFrames = 3
	}
	names, err := parseNames(paths)
	if err != nil {
		return nil, err
	}
	if err := checkDuplicates(paths, names); err != nil {
		return nil, err
	}
	set := &Set{Gaps: findGaps(names)}
	var shapePath string
	index := map[string]int{}
	for i, path := range paths {
		a, colour, err := readFrame(path, opt)
		if err != nil {
			return nil, err
		}
		if colour && set.Colour == "" {
			set.Colour = path
		}
		if set.Shape == nil {
			set.Shape, shapePath = a.Shape, path
			if err := checkTotal(len(paths), a, opt.Memory); err != nil {
				return nil, err
			}
		} else if !slices.Equal(a.Shape, set.Shape) {
			return nil, fmt.Errorf("dataset: %s has shape %s but %s has shape %s; all frames must have the same shape",
				path, ShapeString(a.Shape), shapePath, ShapeString(set.Shape))
		}
		if err := normalise(path, a, opt.Floor); err != nil {
			return nil, err
		}
		id := names[i].seq
		k, ok := index[numKey(id)]
		if !ok {
			k = len(set.Sequences)
			index[numKey(id)] = k
			set.Sequences = append(set.Sequences, Sequence{ID: id})
		}
		set.Sequences[k].Frames = append(set.Sequences[k].Frames, Frame{Path: path, Data: a.Data})
	}
	sort.SliceStable(set.Sequences, func(i, j int) bool {
		a, b := set.Sequences[i].ID, set.Sequences[j].ID
		return a == "" && b != "" || a != "" && b != "" && compareDigits(a, b) < 0
	})
	for _, q := range set.Sequences {
		if len(q.Frames) < minFrames {
			where := filepath.Dir(q.Frames[0].Path)
			name := "the sequence"
			if q.ID != "" {
				name = fmt.Sprintf("sequence %s", q.ID)
			}
			return nil, fmt.Errorf("dataset: %s in %s has %d frame(s); at least %d are needed (first pole, one observation, last pole)",
				name, where, len(q.Frames), minFrames)
		}
	}
	return set, nil
}

// parseNames applies the naming rule of the package documentation and
// returns each file's sequence and frame numbers.
func parseNames(paths []string) ([]frameName, error) {
	names := make([]frameName, len(paths))
	count := -1
	var first string
	for i, p := range paths {
		nums := digitFields(p)
		switch {
		case len(nums) > 2:
			return nil, fmt.Errorf("dataset: %s: %d numeric '-' fields in the name; want one (array-TT) or two (array-SS-TT)", p, len(nums))
		case count >= 0 && len(nums) != count:
			return nil, fmt.Errorf("dataset: %s has %d numeric '-' field(s) in its name but %s has %d; name all frames alike (array-TT or array-SS-TT)",
				p, len(nums), first, count)
		}
		count, first = len(nums), paths[0]
		switch len(nums) {
		case 1:
			names[i].frame = nums[0]
		case 2:
			names[i] = frameName{seq: nums[0], frame: nums[1]}
		}
	}
	return names, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ReadFrame reads one frame file without normalising it and checks its
// shape: a 2-D [n,n] or 3-D [n,n,n] .npy array, or a square PNG or JPEG
// image converted to grey levels in [0,1]. Values are not checked. The
// size is checked from the file's header, before the data are read,
// against MaxVertices and opt.Memory (nil opt: no memory check). With
// opt.Length > 0 the frame must instead be a 1-D .npy array of that many
// values.
func ReadFrame(path string, opt *Options) (*Array, error) {
	if opt == nil {
		opt = &Options{}
	}
	a, _, err := readFrame(path, opt)
	return a, err
}

// readFrame is ReadFrame that also reports whether the file is a colour
// image (see Set.Colour).
func readFrame(path string, opt *Options) (*Array, bool, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".npy":
		a, err := readNpyFile(path, func(shape []int) error { return checkFrameHeader(path, shape, opt) })
		if err != nil {
			return nil, false, err
		}
		return a, false, nil
	case ".png", ".jpg", ".jpeg":
		if opt.Length > 0 {
			return nil, false, fmt.Errorf("dataset: %s: an image cannot be a histogram on a graph; want a 1-D .npy array of %d values", path, opt.Length)
		}
		return readImage(path, opt.Memory)
	default:
		return nil, false, fmt.Errorf("dataset: %s: unsupported file type %q; want .npy, .png, .jpg or .jpeg", path, ext)
	}
}

// checkFrameHeader checks the shape in the header of a .npy frame, the
// grid size and the memory of reading it: the decoded values, npyio's
// copy of them and, for a Fortran-order file, the transposed copy. The
// size of a histogram on a graph (opt.Length) is the graph's, which the
// caller bounds.
func checkFrameHeader(path string, shape []int, opt *Options) error {
	if err := checkShape(path, shape, opt.Length); err != nil {
		return err
	}
	if opt.Length == 0 {
		where := fmt.Sprintf("dataset: %s: shape %s", path, ShapeString(shape))
		if err := CheckVertices(where, len(shape), shape[0]); err != nil {
			return err
		}
	}
	if opt.Memory == nil {
		return nil
	}
	n := float64(numElems(shape))
	return opt.Memory(fmt.Sprintf("dataset: reading %s (shape %s)", path, ShapeString(shape)), 24*n, "use smaller frames")
}

// checkShape checks that a frame is a 2-D square or 3-D cubic array of
// side at least 2, or, when length > 0, a 1-D array of length values.
func checkShape(path string, s []int, length int) error {
	if length > 0 {
		if len(s) != 1 || s[0] != length {
			return fmt.Errorf("dataset: %s: shape %s; a histogram on this graph is a 1-D array of shape (%d,), one value per vertex",
				path, ShapeString(s), length)
		}
		return nil
	}
	switch {
	case len(s) != 2 && len(s) != 3:
		return fmt.Errorf("dataset: %s: shape %s is %d-D; want a 2-D [n,n] or 3-D [n,n,n] array",
			path, ShapeString(s), len(s))
	case len(s) == 2 && s[0] != s[1]:
		return fmt.Errorf("dataset: %s: 2-D frame of shape %s is not square", path, ShapeString(s))
	case len(s) == 3 && (s[0] != s[1] || s[1] != s[2]):
		return fmt.Errorf("dataset: %s: 3-D frame of shape %s is not cubic", path, ShapeString(s))
	case s[0] < 2:
		return fmt.Errorf("dataset: %s: shape %s is too small; the grid side must be at least 2", path, ShapeString(s))
	}
	return nil
}

// checkTotal checks that count frames shaped like first fit the memory
// budget, before the others are read.
func checkTotal(count int, first *Array, memory MemoryCheck) error {
	if memory == nil {
		return nil
	}
	what := fmt.Sprintf("dataset: the %d frames of shape %s", count, ShapeString(first.Shape))
	return memory(what, 8*float64(count)*float64(len(first.Data)), "use fewer or smaller frames")
}

// MaxVertices bounds the vertices n^d of a frame (side 4096 in 2-D, 256 in
// 3-D), whatever the memory budget.
const MaxVertices = 1 << 24

// maxImageSide bounds the side of an image frame (4096² = MaxVertices).
const maxImageSide = 4096

// readImage reads a square PNG or JPEG frame as grey levels, checking its
// size from the header first (DecodeImage).
func readImage(path string, memory MemoryCheck) (*Array, bool, error) {
	square := func(cfg image.Config, format string) error {
		if cfg.Width != cfg.Height {
			return fmt.Errorf("dataset: %s: %d×%d %s image is not square", path, cfg.Width, cfg.Height, format)
		}
		if cfg.Width < 2 || cfg.Width > maxImageSide {
			return fmt.Errorf("dataset: %s: %d×%d image; the side must be between 2 and %d", path, cfg.Width, cfg.Height, maxImageSide)
		}
		return nil
	}
	img, _, err := DecodeImage(path, &ImageOptions{BytesPerPixel: 8, Check: square, Memory: memory})
	if err != nil {
		if strings.HasPrefix(err.Error(), "dataset: ") {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("dataset: %w", err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	a := &Array{Shape: []int{h, w}, Data: make([]float64, w*h)}
	colour := false
	for y := range h {
		for x := range w {
			v, c := grey(img.At(b.Min.X+x, b.Min.Y+y))
			a.Data[y*w+x] = v
			colour = colour || c
		}
	}
	return a, colour, nil
}

// grey returns the mean of the non-premultiplied R, G and B of c, in [0,1],
// and whether they differ (a colour, not a grey). Non-premultiplied colours
// are read directly so that a translucent pixel keeps its exact colour.
func grey(c color.Color) (float64, bool) {
	var r, g, b uint32
	switch c := c.(type) {
	case color.NRGBA:
		r, g, b = uint32(c.R)*0x101, uint32(c.G)*0x101, uint32(c.B)*0x101
	case color.NRGBA64:
		r, g, b = uint32(c.R), uint32(c.G), uint32(c.B)
	default:
		n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
		r, g, b = uint32(n.R), uint32(n.G), uint32(n.B)
	}
	return float64(r+g+b) / (3 * 65535), r != g || g != b
}

// normalise checks the values of a frame and rescales it in place to unit
// sum, adding the optional floor first.
func normalise(path string, a *Array, floor float64) error {
	maxv := 0.0
	for i, v := range a.Data {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("dataset: %s: value %v at %s; frames must be finite", path, v, index(a.Shape, i))
		case v < 0:
			return fmt.Errorf("dataset: %s: negative value %v at %s; frames are histograms and must be non-negative", path, v, index(a.Shape, i))
		}
		maxv = max(maxv, v)
	}
	if maxv == 0 {
		return fmt.Errorf("dataset: %s: all values are zero; a frame needs positive mass", path)
	}
	if floor > 0 {
		add := floor * maxv / float64(len(a.Data))
		for i := range a.Data {
			a.Data[i] += add
		}
	}
	sum := 0.0
	for _, v := range a.Data {
		sum += v
	}
	if math.IsInf(sum, 0) {
		return fmt.Errorf("dataset: %s: the values sum to +Inf in float64; rescale the data", path)
	}
	for i := range a.Data {
		a.Data[i] /= sum
	}
	return nil
}

// index formats the multi-index of flat C-order position i.
func index(shape []int, i int) string {
	idx := make([]string, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		idx[k] = fmt.Sprint(i % shape[k])
		i /= shape[k]
	}
	return "[" + strings.Join(idx, ", ") + "]"
}
