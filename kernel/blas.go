package kernel

import (
	"fmt"
	"os"
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
	// processor's AVX2 and FMA units, where Core's kernels do not and the
	// setting can change them: OpenBLAS built with DYNAMIC_ARCH picks its
	// kernels by the processor's model and, for a model it does not know
	// (one newer than its release, or one a virtual machine hides), falls
	// back to old ones such as "Prescott", on which a large factorisation
	// takes about twice as long. "" otherwise, and where OPENBLAS_CORETYPE
	// is set already.
	Suggest string
}

// BLAS describes the process's BLAS.
func BLAS() BLASInfo {
	b := BLASInfo{Core: blasCore()}
	if os.Getenv("OPENBLAS_CORETYPE") == "" && strings.Contains(blasConfig(), "DYNAMIC_ARCH") {
		avx512 := cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL
		b.Suggest = suggestCore(b.Core, cpu.X86.HasAVX2 && cpu.X86.HasFMA, avx512)
	}
	return b
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
	return fmt.Sprintf("OpenBLAS runs its %s kernels, which leave out this processor's AVX2 and FMA units (OpenBLAS does not know its model: one newer than the release, or one a virtual machine hides), so backends cholmod and go factorise at up to half the speed they could, a small share of a learning run's time; OPENBLAS_CORETYPE=%s in the environment selects kernels for its units, and changes the factor's last bits", b.Core, b.Suggest)
}

// OnBLAS reports whether the backend name (as Backend takes it) factorises
// on the BLAS that BLAS describes (OpenBLAS through package cholmod's
// linking).
func OnBLAS(name string) bool {
	f, err := Backend(name)
	return err == nil && onBLAS(f)
}
