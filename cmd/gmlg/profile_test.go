package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStartProfile: with GMLG_CPUPROFILE set, a profile file is written;
// without it nothing is; an unwritable path is reported, not fatal.
func TestStartProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv("GMLG_CPUPROFILE", path)
	var stderr bytes.Buffer
	stop := startProfile(&stderr)
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 || stderr.Len() != 0 {
		t.Errorf("profile %v (%v), stderr %q: want a non-empty file and no message", fi, err, stderr.String())
	}
	t.Setenv("GMLG_CPUPROFILE", filepath.Join(t.TempDir(), "missing", "cpu.prof"))
	startProfile(&stderr)()
	if stderr.Len() == 0 {
		t.Error("an unwritable profile path gave no message")
	}
	t.Setenv("GMLG_CPUPROFILE", "")
	stderr.Reset()
	startProfile(&stderr)()
	if stderr.Len() != 0 {
		t.Errorf("without GMLG_CPUPROFILE: %q", stderr.String())
	}
}
