"""Helpers for tests/kernels."""
import numpy as np


def poisoned(shape, dtype):
    """An output buffer filled with a value no kernel should produce."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return np.full(shape, np.nan, dtype)
    if dtype.kind == "b":
        return np.zeros(shape, dtype)  # only bool outputs compare both values
    if dtype.kind in "mM":  # a count no kernel should produce (not NaT)
        return np.full(shape, np.iinfo(np.int64).min + 7, np.int64).view(dtype)
    if dtype.kind in "SU":  # every character 0x7f
        n = dtype.itemsize // (4 if dtype.kind == "U" else 1)
        return np.full(shape, ("\x7f" * n).encode() if dtype.kind == "S" else "\x7f" * n,
                       dtype)
    return np.full(shape, np.iinfo(dtype).min + 7, dtype)
