package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-rows", "9"},
		{"bench", "-rows", "2:50"},
		{"bench", "-iters", "-1"},
		{"bench", "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("gmlg %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), code, errb.String())
		}
	}
}
