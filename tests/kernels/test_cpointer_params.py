"""types.CPointer(T) kernel parameters: a raw device address passed to the
launch as an int (numba-cuda's ex_cpointer), read and written with p[i];
checked by the values the kernel computes through the pointers."""
import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, errors, types
from pycuda_jit.types import float32, float64, int32, int64, uint8, uint32, void


def _addr(devary):
    return devary.__cuda_array_interface__["data"][0]


def test_axpy_through_int32_pointers(rng):
    ptr = types.CPointer(int32)

    @cuda.jit(void(ptr, int32, ptr, ptr, uint32))
    def axpy(r, a, x, y, n):
        i = cuda.grid(1)
        if i < n:
            r[i] = a * x[i] + y[i]

    n = 300
    hx = rng.integers(-1000, 1000, n).astype(np.int32)
    hy = rng.integers(-1000, 1000, n).astype(np.int32)
    dx, dy = cuda.to_device(hx), cuda.to_device(hy)
    dr = cuda.to_device(poisoned(n, np.int32))
    a = int(rng.integers(-9, 9))
    axpy[3, 128](_addr(dr), a, _addr(dx), _addr(dy), n)
    np.testing.assert_array_equal(dr.copy_to_host(), a * hx + hy)


def test_augmented_assignment_and_offsets(rng):
    @cuda.jit(void(types.CPointer(uint8), uint32))
    def add_one(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] += 1

    h = rng.integers(0, 256, 77).astype(np.uint8)
    d = cuda.to_device(h)
    # Start 5 elements in: the pointer is an address, not an array.
    add_one[1, 128](_addr(d) + 5, 72)
    want = h.copy()
    want[5:] = (want[5:].astype(np.int32) + 1).astype(np.uint8)  # wraps at 256
    np.testing.assert_array_equal(d.copy_to_host(), want)


def test_float_pointer_stores_convert(rng):
    @cuda.jit(void(types.CPointer(float32), types.CPointer(float64), int64))
    def halve(out, x, n):
        i = cuda.grid(1)
        if i < n:
            out[i] = x[n - 1 - i] / 2  # float64 stored through a float32 pointer

    x = rng.standard_normal(129)
    dx = cuda.to_device(x)
    dout = cuda.to_device(poisoned(129, np.float32))
    halve[2, 128](_addr(dout), _addr(dx), 129)
    np.testing.assert_array_equal(dout.copy_to_host(), (x[::-1] / 2).astype(np.float32))


def test_negative_index_is_an_offset(rng):
    @cuda.jit(void(types.CPointer(int64), types.CPointer(int64)))
    def back(out, p):
        i = cuda.grid(1)
        out[i] = p[-i - 1]  # C semantics: no wrap-around

    h = rng.integers(-10**12, 10**12, 64)
    d = cuda.to_device(h)
    dout = cuda.to_device(poisoned(32, np.int64))
    back[1, 32](_addr(dout), _addr(d) + 8 * 64)  # one past the end
    np.testing.assert_array_equal(dout.copy_to_host(), h[::-1][:32])


def test_pointer_parameter_needs_an_int():
    @cuda.jit(void(types.CPointer(float32)))
    def k(p):
        p[0] = 1.0

    with pytest.raises(TypeError, match="No matching definition"):
        k[1, 1](cuda.to_device(np.zeros(1, np.float32)))


def test_voidptr_cannot_be_indexed():
    def k(p):
        p[0] = 1

    with pytest.raises(errors.TypingError, match="voidptr cannot be indexed"):
        cuda.jit(void(types.voidptr))(k)


def test_pointer_index_must_be_an_int():
    def k(p, x):
        p[x] = 1

    with pytest.raises(errors.TypingError, match="pointer indices must be integers"):
        cuda.jit(void(types.CPointer(int32), float64))(k)


def test_complex_store_through_float_pointer_is_refused():
    def k(p):
        p[0] = 1j

    with pytest.raises(errors.TypingError, match="through a pointer to float32"):
        cuda.jit(void(types.CPointer(float32)))(k)


def test_carray_and_farray_views(rng):
    from pycuda_jit import carray, farray

    @cuda.jit(void(types.CPointer(float64), types.CPointer(float64), int64, int64))
    def transpose_into(out, x, rows, cols):
        a = carray(x, (rows, cols))             # C order: a[i, j] = x[i * cols + j]
        b = farray(out, (cols, rows), dtype=float64)  # F order: b[j, i] = out[j + i * cols]
        i, j = cuda.grid(2)
        if i < rows and j < cols:
            b[j, i] = a[i, j] * 2 + a.shape[1] - b.shape[1]

    rows, cols = 13, 7
    x = rng.standard_normal((rows, cols))
    dx = cuda.to_device(x)
    dout = cuda.to_device(poisoned(rows * cols, np.float64))
    transpose_into[(1, 1), (16, 8)](_addr(dout), _addr(dx), rows, cols)
    got = dout.copy_to_host().reshape((rows, cols))  # out[j + i * cols]
    np.testing.assert_array_equal(got, x * 2 + cols - rows)


def test_carray_of_a_voidptr_needs_its_dtype(rng):
    from pycuda_jit import carray

    @cuda.jit(void(types.voidptr, int32))
    def negate(p, n):
        a = carray(p, n, dtype=np.int32)
        i = cuda.grid(1)
        if i < a.size:
            a[i] = -a[i]

    h = rng.integers(-10**6, 10**6, 50).astype(np.int32)
    d = cuda.to_device(h)
    negate[1, 64](_addr(d), 50)
    np.testing.assert_array_equal(d.copy_to_host(), -h)

    def untyped(p):
        a = carray(p, 4)
        a[0] = 1

    with pytest.raises(errors.TypingError, match="voidptr needs dtype="):
        cuda.jit(void(types.voidptr))(untyped)


def test_carray_dtype_must_match_the_pointer():
    from pycuda_jit import carray

    def k(p):
        a = carray(p, 4, dtype=np.float64)
        a[0] = 1

    with pytest.raises(errors.TypingError, match="differs from the pointer's float32"):
        cuda.jit(void(types.CPointer(float32)))(k)


def test_carray_is_kernel_only():
    from pycuda_jit import carray
    with pytest.raises(RuntimeError, match="inside a @cuda.jit kernel"):
        carray(0, 4)


def test_cffi_from_buffer_points_at_the_array(rng):
    cffi = pytest.importorskip("cffi")
    from pycuda_jit import carray
    ffi = cffi.FFI()

    @cuda.jit
    def k(out, x):
        p = ffi.from_buffer(x)
        a = carray(ffi.from_buffer(out), out.size)
        i = cuda.grid(1)
        if i < x.size:
            a[i] = p[i] + 1

    x = rng.integers(-100, 100, 40).astype(np.int64)
    out = poisoned(40, np.int64)
    k[1, 64](out, x)
    np.testing.assert_array_equal(out, x + 1)
