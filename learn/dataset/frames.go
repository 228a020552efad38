package dataset

import (
	"cmp"
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
	// DefaultPattern, or the images when no file matches it.
	Pattern   string
	Floor     float64 // if > 0, Floor·max(I)/N is added to a frame I before normalising
	MinFrames int     // the fewest frames a sequence may have; 0 means 3
	// Memory, when not nil, vets the memory of reading each file and of
	// all the frames together, from the headers, before the data are read.
	Memory MemoryCheck
	// Length, when positive, reads histograms on the vertices of a graph:
	// 1-D .npy arrays of Length values; images are refused.
	Length int
}

// Frame is one normalised observation.
type Frame struct {
	Path string    // the file the frame was read from
	Data []float64 // the N values in C order, non-negative, summing to one
}

// Sequence is an ordered series of frames observed on the same grid.
type Sequence struct {
	ID string // the SS of array-SS-TT names, "" for a single sequence
	// Frames are in the numeric order of their names; the first and last
	// are the poles.
	Frames []Frame
}

// Set is everything Load read from a folder.
type Set struct {
	Dir       string     // the folder given to Load ("" for LoadFiles)
	Shape     []int      // [n, n] or [n, n, n], or [N] on a graph
	Sequences []Sequence // ordered by the value of their ID
	// Gaps describes, one line per sequence, the frame numbers missing
	// between its first and last frame ("sequence 00: frames 03, 04
	// missing"); nil when there are none.
	Gaps []string
	// Colour is the first frame file that is a colour image, whose colours
	// are lost in its grey levels ("" when none); the caller may warn.
	Colour string
}

// Dim returns the grid dimension d, 2 or 3 (1 for histograms on a graph).
func (s *Set) Dim() int { return len(s.Shape) }

// Side returns the grid side n (the number of vertices on a graph).
func (s *Set) Side() int { return s.Shape[0] }

// N returns the number of vertices, the length of every frame.
func (s *Set) N() int { return numElems(s.Shape) }

// Graph returns the grid the frames live on. Histograms on a graph
// (Options.Length) give an error: their graph comes from its edge list.
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
	for i, f := range s.Frames() {
		out[i].Frames = f
	}
	return out
}

// Frames returns the data of every frame, sequence by sequence.
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
	opt = cmp.Or(opt, &Options{})
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
	paths, err := glob(dir, cmp.Or(opt.Pattern, DefaultPattern))
	if err == nil && len(paths) == 0 && opt.Pattern == "" && opt.Length == 0 {
		paths, err = glob(dir, imagePatterns...)
	}
	switch {
	case err != nil:
		return nil, err
	case len(paths) > 0:
	case opt.Pattern != "":
		return nil, fmt.Errorf("dataset: no file in folder %s matches %q", dir, opt.Pattern)
	case opt.Length > 0:
		return nil, fmt.Errorf("dataset: folder %s has no %s files", dir, DefaultPattern)
	default:
		return nil, fmt.Errorf("dataset: folder %s has no %s, %s files",
			dir, DefaultPattern, strings.Join(imagePatterns, ", "))
	}
	Sort(paths)
	set, err := LoadFiles(paths, opt)
	if err != nil {
		return nil, err
	}
	set.Dir = dir
	return set, nil
}

// glob returns the files matching the patterns inside dir. Every match
// must be a regular file (or a link to one): anything else named like a
// frame is an error, never skipped, since leaving it out would silently
// change the sequence.
func glob(dir string, patterns ...string) ([]string, error) {
	var all []string
	for _, pattern := range patterns {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, fmt.Errorf("dataset: pattern %q: %w", pattern, err)
		}
		for _, p := range m {
			if err := rundir.CheckInput(p); err != nil {
				return nil, fmt.Errorf("dataset: a file matches the pattern %q but %w; move it away or give another pattern", pattern, err)
			}
		}
		all = append(all, m...)
	}
	return all, nil
}

// LoadFiles reads, checks and normalises the given files, in the given
// order, grouping them into sequences by their names as Load does.
func LoadFiles(paths []string, opt *Options) (*Set, error) {
	opt = cmp.Or(opt, &Options{})
	if len(paths) == 0 {
		return nil, errors.New("dataset: no files given")
	}
	if !(opt.Floor >= 0) || math.IsInf(opt.Floor, 0) {
		return nil, fmt.Errorf("dataset: Floor must be a finite non-negative number, not %v", opt.Floor)
	}
	minFrames := cmp.Or(opt.MinFrames, 3)
	names, err := parseNames(paths)
	if err != nil {
		return nil, err
	}
	gaps, err := checkNames(paths, names)
	if err != nil {
		return nil, err
	}
	set := &Set{Gaps: gaps}
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
			if opt.Memory != nil {
				what := fmt.Sprintf("dataset: the %d frames of shape %s", len(paths), ShapeString(a.Shape))
				if err := opt.Memory(what, 8*float64(len(paths))*float64(len(a.Data)), "use fewer or smaller frames"); err != nil {
					return nil, err
				}
			}
		} else if !slices.Equal(a.Shape, set.Shape) {
			return nil, fmt.Errorf("dataset: %s has shape %s but %s has shape %s; all frames must have the same shape",
				path, ShapeString(a.Shape), shapePath, ShapeString(set.Shape))
		}
		if err := normalise(path, a, opt.Floor); err != nil {
			return nil, err
		}
		id := names[i].seq
		k, ok := index[trimZeros(id)]
		if !ok {
			k = len(set.Sequences)
			index[trimZeros(id)] = k
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

// ReadFrame reads one frame file, checking its shape (see Options.Length)
// and, from its header, its size against MaxVertices and opt.Memory; its
// values are neither checked nor normalised.
func ReadFrame(path string, opt *Options) (*Array, error) {
	opt = cmp.Or(opt, &Options{})
	a, _, err := readFrame(path, opt)
	return a, err
}

// ReadHistogram reads one frame file (ReadFrame) and checks and normalises
// it as Load does, with the given floor; it returns the values and shape.
func ReadHistogram(path string, floor float64, opt *Options) ([]float64, []int, error) {
	a, err := ReadFrame(path, opt)
	if err != nil {
		return nil, nil, err
	}
	if err := normalise(path, a, floor); err != nil {
		return nil, nil, err
	}
	return a.Data, a.Shape, nil
}

// readFrame is ReadFrame that also reports a colour image (Set.Colour).
func readFrame(path string, opt *Options) (*Array, bool, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".npy":
		a, err := readNpyFile(path, func(shape []int) error { return checkFrameHeader(path, shape, opt) })
		return a, false, err
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
// copy and, for a Fortran-order file, the transposed copy (24 bytes a
// value). A graph's size is bounded by the caller.
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

// checkShape checks a frame's shape (see Options.Length).
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

// MaxVertices bounds the vertices n^d of a frame (side 4096 in 2-D, 256 in
// 3-D), whatever the memory budget.
const MaxVertices = 1 << 24

// CheckVertices checks a grid of side n in d dimensions against
// MaxVertices; where says where the size comes from.
func CheckVertices(where string, d, n int) error {
	if d < 1 || n < 1 {
		return nil
	}
	v := math.Pow(float64(n), float64(d))
	if v <= MaxVertices {
		return nil
	}
	side := int(math.Pow(MaxVertices, 1/float64(d)) + 1e-9)
	return fmt.Errorf("%s: a grid of side %d in %d-D has %.4g vertices; at most %d (the side at most %d) are accepted",
		where, n, d, v, MaxVertices, side)
}

// maxImageSide bounds the side of an image frame (4096² = MaxVertices).
const maxImageSide = 4096

// readImage reads a square PNG or JPEG frame as grey levels.
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

// normalise checks a frame's values and rescales it in place to unit sum.
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
