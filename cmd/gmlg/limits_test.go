package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// headerPNG returns a PNG file of a few dozen bytes whose header claims a
// w×h 8-bit RGBA image (decoding it for real would allocate 4·w·h bytes),
// followed by an empty IDAT and IEND.
func headerPNG(w, h uint32) []byte {
	chunk := func(kind string, data []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		b = append(append(b, kind...), data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8 bits, RGBA, deflate, no filter method, not interlaced
	out := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, chunk("IEND", nil)...)
}

// writeFile writes data to name inside dir and returns the path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSizeLimits gives every command a size far beyond its limits, from a
// flag or from a file's header, and checks that it answers with the exit
// status and a message naming the limit, allocating under 100 MB and
// within 10 s. The subtests run one at a time (no t.Parallel), so that
// TotalAlloc counts only the command's allocations.
func TestSizeLimits(t *testing.T) {
	tmp := t.TempDir()
	data := tinyData(t, "1")
	colours := filepath.Join(tmp, "colours")
	files := colorTestFrames(t, colours, 3)

	bomb := writeFile(t, tmp, "bomb.png", headerPNG(60000, 60000))
	bombDir := filepath.Join(tmp, "bombs")
	os.MkdirAll(bombDir, 0o755)
	for k := range 3 {
		writeFile(t, bombDir, fmt.Sprintf("array-%02d.png", k), headerPNG(60000, 60000))
	}
	npyDir := filepath.Join(tmp, "npy")
	os.MkdirAll(npyDir, 0o755)
	for k := range 3 {
		rawNpy(t, filepath.Join(npyDir, fmt.Sprintf("array-%02d.npy", k)), "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }", nil)
	}
	out := func(name string) string { return filepath.Join(tmp, "out-"+name) }
	learnOn := func(dir string, extra ...string) []string {
		return append(append([]string{"learn", dir, "-o", out("learn"), "--progress", "none"}, tinyModel...), extra...)
	}

	for _, tc := range []struct {
		name   string
		args   []string
		budget string // GMLG_MAX_MEMORY, "" for the machine's
		code   int
		want   []string
	}{
		{"learn --threads", learnOn(data, "--threads", "100000"), "", 2, []string{"--threads 100000: at most", "CPUs here"}},
		{"eval --threads", []string{"eval", data, "-o", out("eval"), "--threads", "100000"}, "", 2, []string{"--threads 100000: at most"}},
		{"synth --threads", []string{"synth", "-o", out("synth"), "--threads", "100000"}, "", 2, []string{"--threads 100000: at most"}},
		{"interp --threads", []string{"interp", data, "-o", out("interp"), "--threads", "100000"}, "", 2, []string{"--threads 100000: at most"}},
		{"bench -threads", []string{"bench", "-threads", "100000"}, "", 2, []string{"-threads 100000: at most"}},
		{"learn --resume --threads", []string{"learn", "--resume", data, "--threads", "100000"}, "", 2, []string{"--threads 100000: at most"}},
		{"interp --frames", []string{"interp", data, "-o", out("interp"), "--frames", "100000"}, "", 2, []string{"--frames 100000: at most 1000 frames"}},
		{"sunset -frames", []string{"sunset", "--progress=none", "-o", out("sunset"), "-frames", "100000", files[0], files[2]}, "", 2, []string{"-frames 100000: at most 1000"}},
		{"sunset -prolong", []string{"sunset", "--progress=none", "-o", out("sunset"), "--bins", "200", "-prolong", "2", files[0], files[2]}, "", 2, []string{"n_hi", "797", "at most 256"}},
		{"colorlearn --bins", []string{"colorlearn", "--progress=none", "-o", out("cl"), "--bins", "300", colours}, "", 2, []string{"--bins 300: at most 256 bins"}},
		{"transfer -n", []string{"transfer", "--progress=none", "-o", out("tr"), "--bins", "300", files[0], files[1]}, "", 2, []string{"--bins 300: at most 256 bins"}},
		{"transfer header bomb", []string{"transfer", "--progress=none", "-o", out("tr"), "--bins", "4", bomb, files[1]}, "", 1, []string{"bomb.png", "60000×60000", "at most 1073741824"}},
		{"transfer source bomb", []string{"transfer", "--progress=none", "-o", out("tr"), "--bins", "4", files[0], bomb}, "", 1, []string{"bomb.png", "at most 1073741824"}},
		{"sunset header bomb", []string{"sunset", "--progress=none", "-o", out("sunset"), "--bins", "4", files[0], bomb}, "", 1, []string{"bomb.png", "at most 1073741824"}},
		{"colorlearn header bomb", []string{"colorlearn", "--progress=none", "-o", out("cl"), "--bins", "4", "-pattern", "*.png", bombDir}, "", 1, []string{"array-00.png", "at most 1073741824"}},
		{"learn header bomb", learnOn(bombDir), "", 1, []string{"array-00.png", "60000×60000", "between 2 and 4096"}},
		{"interp header bomb", []string{"interp", "-o", out("interp"), bomb, bomb}, "", 1, []string{"bomb.png", "between 2 and 4096"}},
		{"learn npy shape", learnOn(npyDir), "", 1, []string{"array-00.npy", "(100000, 100000)", "side at most 4096"}},
		{"learn over the budget", learnOn(data), "64K", 1, []string{"the objective", "GMLG_MAX_MEMORY"}},
		{"colorlearn over the budget", []string{"colorlearn", "--progress=none", "-o", out("cl"), "--bins", "64", colours}, "64M", 1, []string{"the objective on the 3-D grid of side 64", "--bins", "GMLG_MAX_MEMORY"}},
		{"transfer image over the budget", []string{"transfer", "--progress=none", "-o", out("tr"), "--bins", "4", writeFile(t, tmp, "big.png", headerPNG(8000, 8000)), files[1]}, "1G", 1, []string{"big.png", "needs about", "1.0 GiB (GMLG_MAX_MEMORY)"}},
		{"interp over the budget", []string{"interp", data, "-o", out("interp"), "--frames", "1000"}, "16M", 1, []string{"1000 frames", "--frames"}},
		{"synth over the budget", []string{"synth", "-o", out("synth"), "--n", "512", "--frames", "100"}, "1G", 1, []string{"synth's interpolation", "GMLG_MAX_MEMORY"}},
		{"bad budget", learnOn(data), "plenty", 1, []string{"GMLG_MAX_MEMORY", "plenty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GMLG_MAX_MEMORY", tc.budget)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			code, _, errs := gmlg(t, context.Background(), tc.args...)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("exit %d in %v, %.1f MB allocated: %s", code, elapsed.Round(time.Microsecond), float64(alloc)/1e6, strings.TrimSpace(errs))
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, errs)
				}
			}
			if alloc > 100e6 {
				t.Errorf("allocated %.0f MB before answering, want under 100 MB", float64(alloc)/1e6)
			}
			if elapsed > 10*time.Second {
				t.Errorf("took %v, want under 10 s", elapsed)
			}
		})
	}
}
