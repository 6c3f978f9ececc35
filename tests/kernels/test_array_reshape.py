"""a.reshape(...) in kernels: a C-ordered view of a contiguous array (an
int, a tuple, or several ints; one -1 is inferred); a shape of another size
raises ValueError."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors

from gpu_util import poisoned


@cuda.jit
def reshape2d(arr, shape, got):
    y = arr.reshape(shape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            got[i, j] = y[i, j]


@pytest.mark.parametrize("src, shape", [
    ((24,), (4, 6)), ((24,), (8, 3)), ((1, 8, 1, 1, 3, 1), (4, 6)),
    ((5, 5), (-1, 5)), ((5, 5), (25, -1)), ((0,), (0, 3)),
])
def test_reshape_tuple_shapes(src, shape, rng):
    arr = rng.integers(-1000, 1000, size=src)
    want = arr.reshape(shape)
    got = poisoned(want.shape, np.int64)
    reshape2d[1, 1](arr, shape, got)
    np.testing.assert_array_equal(got, want)


@cuda.jit
def reshape_args(arr, got):
    # literal ints, then a view written through
    y = arr.reshape(3, 4)
    z = y.reshape(12)
    for i in range(z.shape[0]):
        got[i // 4, i % 4] = z[i] * 2
    y[0, 0] = -1


def test_reshape_int_arguments_share_memory(rng):
    arr = rng.standard_normal(12)
    first = arr[0]
    got = poisoned((3, 4), np.float64)
    reshape_args[1, 1](arr, got)
    np.testing.assert_array_equal(got.ravel()[1:], arr[1:] * 2)
    assert got[0, 0] == first * 2 and arr[0] == -1


def test_reshape_to_another_size_raises(backend):
    if backend == "cuda":
        pytest.skip("a device-side ValueError traps the context on the GPU")
    with pytest.raises(errors.KernelValueError, match="cannot reshape"):
        reshape2d[1, 1](np.arange(24), (5, 5), np.zeros((5, 5), np.int64))


def test_reshape_needs_a_contiguous_array():
    @cuda.jit
    def k(arr, got):
        y = arr[:, ::2].reshape(4)
        got[0] = y[0]

    with pytest.raises(errors.TypingError, match="C-contiguous"):
        k[1, 1](np.ones((2, 4)), np.zeros(1))
