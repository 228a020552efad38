package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestParseIterOverride(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]int
		wantErr bool
	}{
		{in: "2:50:20=2", want: map[string]int{"2:50:20": 2}},
		{in: "3:32:20=0, 1=4", want: map[string]int{"3:32:20": 0, "2:50:20": 4}},
		{in: "2:50:20", wantErr: true},
		{in: "2:50:20=-1", wantErr: true},
		{in: "all=2", wantErr: true},
		{in: "2:50:20=x", wantErr: true},
	}
	for _, tc := range tests {
		got, err := parseIterOverride(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("parseIterOverride(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("parseIterOverride(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("parseIterOverride(%q)[%s] = %d, want %d", tc.in, k, got[k], v)
			}
		}
	}
}

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-rows", "9"},
		{"bench", "-rows", "2:50"},
		{"bench", "-iters", "-1"},
		{"bench", "-iters-for", "2:50:20"},
		{"bench", "-backends-for", "2:50:20"},
		{"bench", "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("gmlg %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), code, errb.String())
		}
	}
}
