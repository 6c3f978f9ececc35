"""Slice assignment in kernels (a[i:j] = x): numbers and broadcast arrays,
checked against the same assignment done by NumPy."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def fill_range(a, lo, hi, v):
    if cuda.grid(1) == 0:
        a[lo:hi] = v


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128, np.bool_])
def test_fill_with_a_number(backend, rng, dtype):
    a = (rng.random(40) * 100).astype(dtype)
    want = a.copy()
    want[3:-5] = 7
    fill_range[1, 32](a, 3, -5, 7)
    np.testing.assert_array_equal(a, want)


def test_fill_converts_the_number(backend, rng):
    a = rng.integers(-50, 50, 16).astype(np.int32)
    want = a.copy()
    want[::3] = np.int32(2.75)

    @cuda.jit
    def fill_step(a, v):
        a[::3] = v

    fill_step[1, 1](a, 2.75)
    np.testing.assert_array_equal(a, want)


@cuda.jit
def rows_and_columns(a, b, col, block):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, :] = b          # a 1-d source into a row
        a[i, 1:3] = -1.5
    cuda.syncthreads()
    if i == 0:
        a[:, 0] = col        # a source of extent 1 repeats
        a[1:3, 3:] = block   # (1, 3) broadcast to (2, 3)


def test_2d_rows_broadcast(backend, rng):
    a = poisoned((9, 6), np.float64)
    b = rng.standard_normal(6).astype(np.float32)
    col = rng.standard_normal(1)
    block = rng.integers(-9, 9, (1, 3))
    want = np.empty((9, 6))
    want[:, :] = b
    want[:, 1:3] = -1.5
    want[:, 0] = col
    want[1:3, 3:] = block
    rows_and_columns[1, 16](a, b, col, block)
    np.testing.assert_array_equal(a, want)


@cuda.jit
def copy_into_local(src, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        tmp = cuda.local.array((2, 4), np.float64)
        tmp[:] = 0
        tmp[1, ::-1] = src[i]
        tmp[0] = src[i, :]
        out[i, :, :] = tmp[:, :]


def test_local_arrays_and_reversed_views(backend, rng):
    src = rng.standard_normal((5, 4))
    out = poisoned((5, 2, 4), np.float64)
    copy_into_local[1, 8](src, out)
    want = np.stack([src, src[:, ::-1]], axis=1)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def shift(a, d):
    if cuda.grid(1) == 0:
        if d > 0:
            a[d:] = a[:-d]
        else:
            a[:d] = a[-d:]


@pytest.mark.parametrize("d", [1, 3, -1, -4])
def test_overlapping_1d_source_is_copied_as_numpy_does(backend, rng, d):
    a = rng.standard_normal(20)
    want = a.copy()
    if d > 0:
        want[d:] = want[:-d]
    else:
        want[:d] = want[-d:]
    shift[1, 1](a, d)
    np.testing.assert_array_equal(a, want)


@cuda.jit
def reversed_self(a):
    if cuda.grid(1) == 0:
        a[::-1] = a[:]


def test_overlap_that_cannot_be_copied_in_place_raises(backend, rng):
    a = rng.standard_normal(10)
    with pytest.raises(ValueError, match="shares memory"):
        reversed_self[1, 1](a)
        cuda.synchronize()


@cuda.jit
def mismatched(a, b):
    if cuda.grid(1) == 0:
        a[0:4] = b


def test_shape_mismatch_raises_value_error(backend, rng):
    a = poisoned(8, np.float32)
    with pytest.raises(ValueError, match="broadcast"):
        mismatched[1, 1](a, rng.standard_normal(3).astype(np.float32))
        cuda.synchronize()


def test_complex_into_real_slice_is_a_typing_error(backend):
    @cuda.jit
    def k(a, z):
        a[1:] = z

    with pytest.raises(errors.TypingError, match="complex"):
        k[1, 1](np.zeros(4), 1j)


def test_more_source_dimensions_is_a_typing_error(backend):
    @cuda.jit
    def k(a, b):
        a[1:] = b

    with pytest.raises(errors.TypingError, match="dimension"):
        k[1, 1](np.zeros(4), np.zeros((2, 3)))
