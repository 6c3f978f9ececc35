"""Array attributes and methods that give views: a.real, a.imag (complex
arrays, in place: writes and atomics reach the complex array) and
a.view(dtype), checked against NumPy."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def parts(z, re, im):
    i = cuda.grid(1)
    if i < z.shape[0]:
        re[i] = z.real[i]
        im[i] = z.imag[i]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_and_imag_read(backend, rng, dtype):
    n = 50
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    part = np.float32 if dtype == np.complex64 else np.float64
    re, im = poisoned(n, part), poisoned(n, part)
    parts[1, 64](z, re, im)
    np.testing.assert_array_equal(re, z.real)
    np.testing.assert_array_equal(im, z.imag)


@cuda.jit
def scale_parts(z):
    i, j = cuda.grid(2)
    if i < z.shape[0] and j < z.shape[1]:
        r = z.real
        r[i, j] = 2 * r[i, j]
        z.imag[i, j] -= 1


def test_real_and_imag_write_through_views_of_2d_slices(backend, rng):
    base = rng.standard_normal((6, 10)) + 1j * rng.standard_normal((6, 10))
    z = base.copy()
    scale_parts[(1, 1), (8, 8)](z[::2, 1:8])  # a strided view of the argument
    want = base.copy()
    want.real[::2, 1:8] *= 2
    want.imag[::2, 1:8] -= 1
    np.testing.assert_array_equal(z, want)


@cuda.jit
def atomic_on_parts(z):
    i = cuda.grid(1)
    cuda.atomic.add(z.real, i % 4, 1.0)
    cuda.atomic.add(z.imag, i % 4, 0.5)


def test_atomics_on_real_and_imag(backend, rng):
    z = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    want = z + 16 + 8j
    atomic_on_parts[1, 64](z)
    np.testing.assert_allclose(z, want, rtol=0, atol=1e-12)


@cuda.jit
def real_of_real(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a.real[i] + 1


def test_real_of_a_real_array_is_the_array(backend, rng):
    a = rng.integers(-9, 9, 20).astype(np.int16)
    out = poisoned(20, np.int16)
    real_of_real[1, 32](a, out)
    np.testing.assert_array_equal(out, a + 1)


def test_imag_of_a_real_array_is_a_typing_error(backend):
    @cuda.jit
    def k(a):
        a.imag[0] = 1

    with pytest.raises(errors.TypingError, match="imag"):
        k[1, 1](np.zeros(3))


@cuda.jit
def view_int32(byte_arr, start, stop, out):
    out[0] = byte_arr[start:stop].view(np.int32)[0]


def test_view_bytes_as_int32(backend):
    byte_arr = np.arange(256, dtype=np.uint8)
    for start in range(0, 256, 20):
        out = poisoned(1, np.int32)
        view_int32[1, 1](byte_arr, start, start + 4, out)
        assert out[0] == byte_arr[start:start + 4].view(np.int32)[0]


@cuda.jit
def view_rows(a, out):
    v = a.view(np.uint16)      # (rows, 2 * cols), last axis rescaled
    w = a.view(np.int32)       # same item size: same shape
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            out[i, j] = v[i, j] + (w[i, j // 2] & 1)


def test_view_rescales_the_last_axis(backend, rng):
    a = rng.standard_normal((3, 5)).astype(np.float32)
    out = poisoned((3, 10), np.int64)
    view_rows[1, 1](a, out)
    want = a.view(np.uint16).astype(np.int64) + np.repeat(a.view(np.int32) & 1, 2, axis=1)
    np.testing.assert_array_equal(out, want)


def test_view_of_a_non_contiguous_last_axis_raises(backend, rng):
    @cuda.jit
    def k(a, out):
        out[0] = a[::2].view(np.int64)[0]

    with pytest.raises(ValueError, match="contiguous"):
        k[1, 1](np.zeros(8, np.int32), np.zeros(1, np.int64))
        cuda.synchronize()


def test_view_at_a_misaligned_address_raises(backend):
    @cuda.jit
    def k(a, out):
        out[0] = a[1:5].view(np.int32)[0]

    with pytest.raises(ValueError, match="aligned"):
        k[1, 1](np.zeros(8, np.uint8), np.zeros(1, np.int32))
        cuda.synchronize()


def test_view_as_bool_is_a_typing_error(backend):
    @cuda.jit
    def k(a, out):
        out[0] = a.view(np.bool_)[0]

    with pytest.raises(errors.TypingError, match="view"):
        k[1, 1](np.zeros(8, np.uint8), np.zeros(1, np.bool_))


def test_view_of_a_0d_array_as_another_size_is_a_typing_error(backend):
    # NumPy refuses it; a kernel would read 8 bytes of a 1-byte array (review)
    @cuda.jit
    def k(a, out):
        out[0] = a.view(np.int64)[()]

    out = np.zeros(1, np.int64)
    with pytest.raises(errors.TypingError, match="0-d array"):
        k[1, 1](np.zeros((), np.int8), out)
    assert out[0] == 0
