"""abs() of the most negative integer is itself (it wraps, as in NumPy and
numba), so it is not a non-negative index: a[abs(b)] with b = int8(-128)
must wrap like a[-128].  The registry once declared abs's result
non-negative, and lowering then skipped the negative-index wrap-around: the
kernel read 128 elements before the array (found by review)."""
import numpy as np
import pytest

from pycuda_jit import cuda

from gpu_util import poisoned


@cuda.jit
def take_abs(a, b, out):
    i = cuda.grid(1)
    if i < b.size:
        out[i] = a[abs(b[i])]


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_abs_of_the_most_negative_value_indexes_from_the_end(backend, rng, dtype):
    # On the GPU, int16 once read outside the array here: after `abs.s16`,
    # ptxas took the 16-bit register for sign-extended and `cvt.s64.s16`
    # gave +32768 (the H200).  abs of an int8/int16 is now done on a 32-bit
    # register (codegen/WidenNarrowInts.cpp; golden narrow_abs).
    info = np.iinfo(dtype)
    a = rng.standard_normal(2 * (-int(info.min)) + 7)
    b = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    b[::5] = info.min
    out = poisoned(b.size, np.float64)
    take_abs[1, 64](a, b, out)
    with np.errstate(over="ignore"):
        idx = np.abs(b)  # int8(-128) stays -128: a[-128]
    np.testing.assert_array_equal(out, a[idx.astype(np.int64)])
