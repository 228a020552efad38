package limits

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1000", 1000},
		{"64G", 64 << 30},
		{"64GB", 64 << 30},
		{"64GiB", 64 << 30},
		{"512m", 512 << 20},
		{"1.5T", 3 << 39},
		{"800K", 800 << 10},
		{" 2 G ", 2 << 30},
		{"", 0},
		{"G", 0},
		{"-1G", 0},
		{"0", 0},
		{"lots", 0},
		{"99999999999T", 0},
	} {
		got, err := ParseBytes(tc.in)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("ParseBytes(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{{512, "512 bytes"}, {1536, "1.5 KiB"}, {14.4e9, "13.4 GiB"}, {3 << 40, "3.0 TiB"}} {
		if got := FormatBytes(tc.in); got != tc.want {
			t.Errorf("FormatBytes(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// wantLimit fails t unless err is an *Error whose message holds every
// fragment (or, with no fragments, unless err is nil).
func wantLimit(t *testing.T, name string, err error, fragments ...string) {
	t.Helper()
	if len(fragments) == 0 {
		if err != nil {
			t.Errorf("%s: unexpected error %v", name, err)
		}
		return
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("%s: error %v (%T), want a *limits.Error", name, err, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q does not mention %q", name, err, f)
		}
	}
}

func TestFixedLimits(t *testing.T) {
	cpus := runtime.NumCPU()
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"threads at the limit", Threads("--threads", MaxThreadsPerCPU*cpus), nil},
		{"threads above", Threads("--threads", 100000), []string{"--threads 100000: at most", "CPUs here", "pass a smaller --threads"}},
		{"frames at the limit", Count("--frames", MaxFrames, MaxFrames, "frames"), nil},
		{"frames above", Count("--frames", 100000, MaxFrames, "frames"), []string{"--frames 100000: at most 1000 frames"}},
		{"2-D side 4096", Vertices("f.npy", 2, 4096), nil},
		{"2-D side 4097", Vertices("f.npy", 2, 4097), []string{"f.npy", "at most 16777216", "side at most 4096"}},
		{"3-D side 256", Vertices("f.npy", 3, 256), nil},
		{"3-D side 300", Vertices("f.npy", 3, 300), []string{"side at most 256"}},
		{"huge side", Vertices("f.npy", 3, 1<<40), []string{"at most 16777216"}},
	} {
		wantLimit(t, tc.name, tc.err, tc.want...)
	}
}

func TestMemoryBudget(t *testing.T) {
	t.Setenv(MemoryEnv, "1M")
	wantLimit(t, "within", Memory("the thing", 1<<20, ""))
	wantLimit(t, "beyond", Memory("the thing", 3<<20, "use less"),
		"the thing needs about 3.0 MiB", "budget of 1.0 MiB (GMLG_MAX_MEMORY)", "use less", "set GMLG_MAX_MEMORY")

	t.Setenv(MemoryEnv, "a lot")
	if err := Memory("x", 1, ""); err == nil || !strings.Contains(err.Error(), MemoryEnv) {
		t.Errorf("bad %s: err = %v", MemoryEnv, err)
	}

	t.Setenv(MemoryEnv, "")
	b, source, err := Budget()
	if err != nil || (b != 0 && !strings.Contains(source, "physical")) {
		t.Errorf("Budget() = %d, %q, %v", b, source, err)
	}
	if _, statErr := os.Stat("/proc/meminfo"); statErr == nil && b <= 0 {
		t.Errorf("Budget() = %d with /proc/meminfo present", b)
	}
}

func TestCheckImage(t *testing.T) {
	t.Setenv(MemoryEnv, "1G")
	rgba := func(w, h int) image.Config { return image.Config{ColorModel: color.NRGBAModel, Width: w, Height: h} }
	for _, tc := range []struct {
		name  string
		cfg   image.Config
		extra int
		want  []string
	}{
		{"small", rgba(640, 480), 80, nil},
		{"header bomb", rgba(60000, 60000), 0, []string{"60000×60000", "at most 1073741824", "16384×16384"}},
		{"grey at the sample limit but over the budget", image.Config{ColorModel: color.GrayModel, Width: 32768, Height: 32768}, 0,
			[]string{"needs about 2.0 GiB", "budget of 1.0 GiB"}},
		{"fits alone, not with the caller's work", rgba(8000, 4000), 68, []string{"GMLG_MAX_MEMORY", "scale the image down"}},
	} {
		wantLimit(t, tc.name, CheckImage("im.png", tc.cfg, "png", tc.extra), tc.want...)
	}
	if err := CheckImage("im.png", rgba(0, 5), "png", 0); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty image: err = %v", err)
	}
}

func TestDecodeImage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "im.png")
	img := image.NewGray(image.Rect(0, 0, 3, 2))
	img.Pix[4] = 200
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, format, err := DecodeImage(path, nil)
	if err != nil || format != "png" || got.Bounds().Dx() != 3 || got.Bounds().Dy() != 2 {
		t.Fatalf("DecodeImage = %v, %q, %v", got, format, err)
	}
	if g := got.(*image.Gray); g.Pix[4] != 200 {
		t.Errorf("pixel 4 = %d, want 200", g.Pix[4])
	}

	refuse := errors.New("refused")
	var seen image.Config
	_, _, err = DecodeImage(path, &ImageOptions{Check: func(c image.Config, _ string) error { seen = c; return refuse }})
	if !errors.Is(err, refuse) || seen.Width != 3 || seen.Height != 2 {
		t.Errorf("Check saw %dx%d, err = %v", seen.Width, seen.Height, err)
	}

	t.Setenv(MemoryEnv, "100")
	if _, _, err := DecodeImage(path, &ImageOptions{BytesPerPixel: 24}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("over the budget: err = %v", err)
	}

	bad := filepath.Join(dir, "bad.png")
	os.WriteFile(bad, []byte("\x89PNG\r\n\x1a\nbroken"), 0o644)
	if _, _, err := DecodeImage(bad, nil); err == nil || !strings.Contains(err.Error(), "not a readable PNG or JPEG") {
		t.Errorf("corrupt file: err = %v", err)
	}
	if _, _, err := DecodeImage(filepath.Join(dir, "missing.png"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}
