package cholmod

// SetBLASThreads sets the number of threads OpenBLAS uses
// (openblas_set_num_threads) and reports whether OpenBLAS was found in the
// process. The setting is process-wide: it affects every BLAS call, not only
// CHOLMOD's. n < 1 is treated as 1.
//
// With another BLAS it does nothing and returns false; set that library's own
// environment variable instead (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS,
// MKL_NUM_THREADS, ...).
func SetBLASThreads(n int) bool {
	return blasSetThreads(max(n, 1))
}

// BLASThreads returns OpenBLAS's current thread count, or 0 when OpenBLAS is
// not the BLAS in the process.
func BLASThreads() int { return blasThreads() }

// BLASCore returns OpenBLAS's name for the kernels it runs on this
// processor (openblas_get_corename: "Haswell", "SkylakeX", "Zen", …), or ""
// when OpenBLAS is not the BLAS in the process. A build of OpenBLAS with
// DYNAMIC_ARCH (see BLASConfig) chooses them by the processor's model at
// start-up, or by OPENBLAS_CORETYPE; for a model it does not know (one
// newer than the release, or one a virtual machine hides) it falls back to
// old kernels such as "Prescott". Package kernel's BLAS reports that case.
func BLASCore() string { return blasCore() }

// BLASConfig returns OpenBLAS's description of its build
// (openblas_get_config: its version and options, such as "DYNAMIC_ARCH"),
// or "" when OpenBLAS is not the BLAS in the process.
func BLASConfig() string { return blasConfig() }
