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


# A 0-d NumPy array as a global or closure constant is frozen into constant
# memory as any global array is (numba-cuda's test_count_nonzero_basic
# unrolls a tuple holding one).
ZERO_DIM = np.asarray(np.random.default_rng(2024).standard_normal())
ZERO_DIM_INDEX = np.asarray(3, np.int32)


@cuda.jit
def read_zero_dim_global(r, ary):
    r[0] = ZERO_DIM[()]
    r[1] = ZERO_DIM.sum()
    r[2] = ZERO_DIM.size + ZERO_DIM.ndim
    r[3] = ary[ZERO_DIM_INDEX]
    r[4] = np.count_nonzero(ZERO_DIM)


def test_zero_dim_global_array_constant(backend, rng):
    ary = rng.standard_normal(8)
    r = poisoned(5, np.float64)
    read_zero_dim_global[1, 1](r, ary)
    np.testing.assert_array_equal(
        r, [ZERO_DIM[()], ZERO_DIM.sum(), 1, ary[3], np.count_nonzero(ZERO_DIM)])


def test_zero_dim_closure_constants_in_a_tuple(backend, rng):
    values = rng.integers(-5, 5, 3)
    cases = (np.asarray(values[0]), np.int64([values[1], 0, values[2]]),
             np.asarray(0.0), np.asarray(np.float32(values[2])))

    @cuda.jit
    def k(out):
        out[0] = np.count_nonzero(cases[0])
        out[1] = np.count_nonzero(cases[1])
        out[2] = np.count_nonzero(cases[2])
        out[3] = cases[0][()] * 10 + cases[3][()]

    out = poisoned(4, np.int64)
    k[1, 1](out)
    np.testing.assert_array_equal(
        out, [np.count_nonzero(c) for c in cases[:3]] + [values[0] * 10 + values[2]])


def test_zero_dim_global_array_is_read_only(backend):
    @cuda.jit
    def k(r):
        ZERO_DIM[()] = r[0]

    with pytest.raises(errors.TypingError, match="read-only|constant"):
        k[1, 1](np.zeros(1))


def test_zero_dim_global_array_compiles_for_the_gpu():
    # NVPTX folds the constant's loads: its bits are stored (no GPU needed).
    ptx, _ = cuda.compile_ptx(read_zero_dim_global.py_func,
                              "void(float64[::1], float64[::1])", cc=(9, 0))
    assert str(int(ZERO_DIM.view(np.int64)[()])) in ptx
