"""A stand-in for scikit-sparse's cholmod module, for run.sh only.

It offers the one call the reference implementation makes,
cholesky(A, ordering_method=...).solve_A(b), on CHOLMOD through shim.c.
"""
import ctypes
import os

import numpy as np
import scipy.sparse

_lib = ctypes.CDLL(os.environ["GMLG_REF_SHIM"])
_lib.shim_new.restype = ctypes.c_void_p
_lib.shim_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
_lib.shim_status.argtypes = [ctypes.c_void_p]
_lib.shim_solve.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
_lib.shim_free.argtypes = [ctypes.c_void_p]


class CholmodError(Exception):
    pass


class Factor:
    def __init__(self, A, ordering_method):
        low = scipy.sparse.tril(scipy.sparse.csc_matrix(A)).tocsc()
        low.sort_indices()
        # The arrays stay referenced: CHOLMOD reads them only during the
        # factorisation, but keeping them costs nothing.
        self._p = np.ascontiguousarray(low.indptr, dtype=np.int32)
        self._i = np.ascontiguousarray(low.indices, dtype=np.int32)
        self._x = np.ascontiguousarray(low.data, dtype=np.float64)
        self.n = low.shape[0]
        self._h = _lib.shim_new(self.n, self._p.ctypes.data, self._i.ctypes.data,
                                self._x.ctypes.data, int(ordering_method == "metis"))
        if not self._h or _lib.shim_status(self._h) != 0:
            raise CholmodError("factorisation failed")

    def solve_A(self, b):
        b = np.asarray(b, dtype=np.float64)
        bf = np.asfortranarray(b.reshape(self.n, -1))
        x = np.empty(bf.shape, dtype=np.float64, order="F")
        if _lib.shim_solve(self._h, bf.ctypes.data, x.ctypes.data, bf.shape[1]) != 0:
            raise CholmodError("solve failed")
        return x.reshape(b.shape)

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.shim_free(self._h)
            self._h = None


def cholesky(A, beta=0, mode="auto", ordering_method="default", use_long=None):
    if beta != 0:
        raise NotImplementedError("beta != 0")
    return Factor(A, ordering_method)
