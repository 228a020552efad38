package kernel

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sys/cpu"
)

// BLASInfo describes the BLAS on which backends cholmod and go (in cgo
// builds) factorise.
type BLASInfo struct {
	// Core is OpenBLAS's name for the kernels it chose for this processor
	// ("Haswell", "SkylakeX", "Zen", …); "" where OpenBLAS is not the
	// process's BLAS, and in builds without cgo.
	Core string
	// Suggest is the OPENBLAS_CORETYPE that selects kernels using the
	// processor's AVX2 and FMA units, where Core's kernels do not: OpenBLAS
	// picks its kernels by the processor's model and, for a model it does
	// not know (as some virtual machines report), falls back to generic
	// ones such as "Prescott", on which a large factorisation takes about
	// twice as long. "" otherwise.
	Suggest string
}

// BLAS describes the process's BLAS.
func BLAS() BLASInfo {
	core := blasCore()
	avx512 := cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL
	return BLASInfo{Core: core, Suggest: suggestCore(core, cpu.X86.HasAVX2 && cpu.X86.HasFMA, avx512)}
}

// fmaCores are OpenBLAS's x86-64 kernels that use AVX2 and FMA.
var fmaCores = []string{"Haswell", "Zen", "Excavator", "SkylakeX", "Cooperlake", "SapphireRapids"}

// suggestCore returns the OPENBLAS_CORETYPE for a processor with AVX2 and
// FMA (fma) and AVX-512 (avx512) whose OpenBLAS chose the kernels core, or
// "" where core uses those units already, is unknown ("") or the processor
// lacks them.
func suggestCore(core string, fma, avx512 bool) string {
	switch {
	case core == "" || !fma || slices.ContainsFunc(fmaCores, func(c string) bool { return strings.EqualFold(c, core) }):
		return ""
	case avx512:
		return "SkylakeX"
	}
	return "Haswell"
}

// Advice returns a sentence for the user where Suggest is set: what the
// kernels cost and what to set. It returns "" otherwise.
func (b BLASInfo) Advice() string {
	if b.Suggest == "" {
		return ""
	}
	return fmt.Sprintf("OpenBLAS runs its generic %s kernels on this processor, which has AVX2 and FMA (OpenBLAS does not know its model, as behind some virtual machines), so backends cholmod and go factorise at up to half the speed they could (a small share of a learning run's time); OPENBLAS_CORETYPE=%s in the environment selects kernels for its units", b.Core, b.Suggest)
}

// OnBLAS reports whether the backend name factorises on the BLAS that
// BLAS describes (OpenBLAS through package cholmod's linking).
func OnBLAS(name string) bool { return onBLAS(backends[name]) }
