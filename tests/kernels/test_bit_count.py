"""int.bit_count() in kernels: the number of ones in |x|, as Python's
int.bit_count, for every integer dtype (the most negative values too)."""
import numpy as np
import pytest

from pycuda_jit import cuda

from gpu_util import poisoned

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@cuda.jit
def bit_counts(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i].bit_count()


@pytest.mark.parametrize("dtype", DTYPES)
def test_bit_count_matches_python(dtype, rng):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=200, dtype=dtype, endpoint=True)
    x[:4] = [info.min, info.max, 0, 1 if info.min == 0 else -1]
    out = poisoned(x.size, np.int64)
    bit_counts[1, 256](x, out)
    np.testing.assert_array_equal(out, [int(v).bit_count() for v in x])


def test_bit_count_of_literals_and_bools():
    @cuda.jit
    def k(out, flag):
        out[0] = (-12345).bit_count()
        out[1] = flag.bit_count()

    out = poisoned(2, np.int64)
    k[1, 1](out, True)
    np.testing.assert_array_equal(out, [(-12345).bit_count(), 1])
