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

// BLASCore returns OpenBLAS's name for the kernels it chose for this
// processor (openblas_get_corename: "Haswell", "SkylakeX", "Zen", …), or ""
// when OpenBLAS is not the BLAS in the process. OpenBLAS chooses by the
// processor's model; where it does not know the model, as behind some
// virtual machines, it falls back to generic kernels (such as "Prescott"),
// which package kernel's BLAS reports.
func BLASCore() string { return blasCore() }
