package kernel

import (
	"os"
	"strings"
	"testing"
)

// TestSuggestCore checks which OpenBLAS kernels BLASInfo.Suggest flags and
// what it suggests in their place.
func TestSuggestCore(t *testing.T) {
	for _, tc := range []struct {
		core        string
		fma, avx512 bool
		want        string
	}{
		{"Prescott", true, true, "SkylakeX"},
		{"Prescott", true, false, "Haswell"},
		{"Sandybridge", true, false, "Haswell"},
		{"Nehalem", true, true, "SkylakeX"},
		{"Prescott", false, false, ""}, // a processor without FMA: nothing better to pick
		{"Haswell", true, true, ""},    // AVX2 kernels on an AVX-512 processor use FMA
		{"SkylakeX", true, true, ""},
		{"SKYLAKEX", true, true, ""},
		{"Zen", true, false, ""},
		{"", true, true, ""}, // not OpenBLAS
	} {
		if got := suggestCore(tc.core, tc.fma, tc.avx512); got != tc.want {
			t.Errorf("suggestCore(%q, fma %v, avx512 %v) = %q, want %q", tc.core, tc.fma, tc.avx512, got, tc.want)
		}
	}
}

// TestBLASAdvice checks that the advice names the kernels and the setting,
// and is empty where there is nothing to suggest.
func TestBLASAdvice(t *testing.T) {
	if a := (BLASInfo{Core: "Haswell"}).Advice(); a != "" {
		t.Errorf("Advice() with nothing to suggest = %q", a)
	}
	a := BLASInfo{Core: "Prescott", Suggest: "SkylakeX"}.Advice()
	for _, want := range []string{"Prescott", "OPENBLAS_CORETYPE=SkylakeX"} {
		if !strings.Contains(a, want) {
			t.Errorf("Advice() = %q, want it to name %q", a, want)
		}
	}
	b := BLAS()
	if b.Suggest != "" && b.Core == "" {
		t.Errorf("BLAS() = %+v: a suggestion without OpenBLAS's kernels", b)
	}
	if v := os.Getenv("OPENBLAS_CORETYPE"); v != "" && b.Suggest != "" {
		t.Errorf("BLAS() = %+v with OPENBLAS_CORETYPE=%s set: a suggestion of what is set already", b, v)
	}
}
