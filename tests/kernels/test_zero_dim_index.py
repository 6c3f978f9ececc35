"""0-d integer arrays as array indices (NumPy reads their value), and 0-d
arrays read and written with a[()]: numba-cuda's cache use cases pass every
scalar as a 0-d array."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def gather(r, ary, i):
    r[()] = ary[i]


@pytest.mark.parametrize("idx_dtype", [np.int64, np.int32, np.uint8])
def test_zero_dim_int_array_as_index(backend, rng, idx_dtype):
    ary = rng.standard_normal(12)
    for i in (0, 5, 11):
        r = poisoned((), np.float64)
        gather[1, 1](r, ary, np.asarray(i, dtype=idx_dtype))
        assert r[()] == ary[i]


def test_zero_dim_negative_index_wraps(backend, rng):
    ary = rng.standard_normal(7)
    r = poisoned((), np.float64)
    gather[1, 1](r, ary, np.asarray(-2))
    assert r[()] == ary[-2]


@cuda.jit
def scatter(out, i, v):
    out[i] = v[()] * 2


def test_zero_dim_index_in_a_store(backend, rng):
    out = np.zeros(6, np.float32)
    v = np.asarray(rng.standard_normal(), np.float32)
    scatter[1, 1](out, np.asarray(4), v)
    want = np.zeros(6, np.float32)
    want[4] = v * 2
    np.testing.assert_array_equal(out, want)


@cuda.jit
def add_usecase(r, x, y):
    r[()] = x[()] + y[()] + 1


def test_zero_dim_arrays_read_and_written(backend):
    r = poisoned((), np.float64)
    add_usecase[1, 1](r, np.asarray(2.5), np.asarray(3.5))
    assert r[()] == 7.0


def test_zero_dim_float_index_is_a_typing_error(backend):
    with pytest.raises(errors.TypingError, match="indices"):
        gather[1, 1](poisoned((), np.float64), np.zeros(3), np.asarray(1.0))
