"""GPU ufuncs (vectorize) and generalized ufuncs (guvectorize): computed
values against NumPy for every kind of argument."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, guvectorize, vectorize
from pycuda_jit.devicearray import DeviceNDArray

from gpu_util import poisoned

SIGS = ["int32(int32, int32)", "float32(float32, float32)", "float64(float64, float64)"]


@vectorize(SIGS)
def vadd(a, b):
    return a + b


@cuda.jit(device=True)
def scaled(x, s):
    return x * s if x >= 0 else -x


@vectorize(["float64(float64, float64)", "float32(float32, float32)"])
def uses_device_function(x, s):
    return scaled(x, s) + 1


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 100, 1025, 100001])
def test_1d_host_arrays(dtype, n, rng):
    a = (rng.random(n) * 100).astype(dtype)
    b = (rng.random(n) * 100).astype(dtype)
    got = vadd(a, b)
    assert isinstance(got, np.ndarray) and got.dtype == dtype
    np.testing.assert_array_equal(got, a + b)


@pytest.mark.parametrize("order", ["C", "F"])
def test_nd_and_mixed_orders(order, rng):
    for nd in range(1, 6):
        a = rng.random((3,) * nd).astype(np.float32)
        b = np.array(a.T, order=order)
        np.testing.assert_array_equal(vadd(a, b), a + b)


def test_broadcasting_host_and_device(rng):
    a = rng.standard_normal((20, 3, 1))
    b = a.transpose(2, 1, 0)
    np.testing.assert_array_equal(vadd(a, b), a + b)
    got = vadd(cuda.to_device(a), cuda.to_device(b))
    assert isinstance(got, DeviceNDArray)
    np.testing.assert_array_equal(got.copy_to_host(), a + b)
    row = rng.random(7)
    m = rng.random((4, 7))
    np.testing.assert_array_equal(vadd(m, row), m + row)
    np.testing.assert_array_equal(vadd(row[:, None], m[:1]), row[:, None] + m[:1])


def test_scalar_arguments(rng):
    a = rng.random(10)
    np.testing.assert_array_equal(vadd(a, 2.5), a + 2.5)
    np.testing.assert_array_equal(vadd(np.float32(1.5), a.astype(np.float32)),
                                  np.float32(1.5) + a.astype(np.float32))
    d = cuda.to_device(np.arange(10, dtype=np.float64))
    np.testing.assert_array_equal(vadd(1.0, d).copy_to_host(), np.arange(1, 11))
    # All scalars: a one-element array, as numba-cuda returns.
    got = vadd(1.25, 2.5)
    assert got.shape == (1,) and got[0] == 3.75 and got.dtype == np.float64
    # An int scalar with int32 arrays takes the int32 signature.
    i32 = np.arange(5, dtype=np.int32)
    np.testing.assert_array_equal(vadd(i32, 3), i32 + 3)
    assert vadd(i32, 3).dtype == np.int32


def test_out_argument_host_and_device(rng):
    a = rng.random(50).astype(np.float32)
    out = poisoned(50, np.float32)
    assert vadd(a, a, out=out) is out
    np.testing.assert_array_equal(out, a + a)
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    dx = cuda.to_device(x)
    assert vadd(dx, dx, out=dx) is dx
    np.testing.assert_array_equal(dx.copy_to_host(), x + x)
    with pytest.raises(ValueError, match="shape"):
        vadd(a, a, out=np.zeros(49, np.float32))
    with pytest.raises(TypeError, match="dtype"):
        vadd(a, a, out=np.zeros(50, np.float64))


def test_stream_and_device_inputs_stay_on_device(rng):
    stream = cuda.stream()
    a = rng.random(100001)
    d = cuda.to_device(a, stream=stream)
    got = vadd(d, d, stream=stream)
    assert isinstance(got, DeviceNDArray)
    stream.synchronize()
    np.testing.assert_array_equal(got.copy_to_host(), a + a)
    mixed = vadd(np.arange(10, dtype=np.int32), cuda.to_device(np.arange(10, dtype=np.int32)))
    np.testing.assert_array_equal(mixed.copy_to_host(), 2 * np.arange(10))


class Interface:
    """A foreign array: only __cuda_array_interface__ (zero-copy)."""

    def __init__(self, dev):
        self._dev = dev
        self.__cuda_array_interface__ = dev.__cuda_array_interface__


def test_cuda_array_interface_inputs_are_used_in_place(rng):
    a = rng.random(64)
    d = cuda.to_device(a)
    out = cuda.device_array(64)
    returned = vadd(Interface(d), 1.0, out=Interface(out))
    np.testing.assert_array_equal(out.copy_to_host(), a + 1)
    # A foreign out comes back as a device array viewing it (numba-cuda's).
    assert isinstance(returned, DeviceNDArray)
    assert returned.device_ctypes_pointer_value == out.device_ctypes_pointer_value
    returned = vadd(a, 2.0, out=Interface(out))
    np.testing.assert_array_equal(returned.copy_to_host(), a + 2)

    @guvectorize(["void(float64, float64, float64[:])"], "(),()->()")
    def gadd(x, y, res):
        res[0] = x + y

    returned = gadd(a, np.float64(7), out=Interface(out))
    assert returned.device_ctypes_pointer_value == out.device_ctypes_pointer_value
    np.testing.assert_array_equal(returned.copy_to_host(), a + 7)
    np.testing.assert_array_equal(gadd(Interface(d), np.float64(1)).copy_to_host(), a + 1)


def test_strided_views_and_tuples(rng):
    a = rng.random((6, 8))
    d = cuda.to_device(a)
    got = vadd(d[::2, 1::3], d[1::2, ::3])
    np.testing.assert_array_equal(got.copy_to_host(), a[::2, 1::3] + a[1::2, ::3])
    np.testing.assert_array_equal(vadd((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)), [5.0, 7.0, 9.0])
    arr = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(vadd((arr, arr + 1), (arr, arr)), [2 * arr, 2 * arr + 1])


def test_device_functions_complex_and_empty(rng):
    x = rng.standard_normal(300)
    want = np.where(x >= 0, x * 3.0, -x) + 1
    np.testing.assert_array_equal(uses_device_function(x, 3.0), want)

    @vectorize(["complex128(complex128)"])
    def vcomp(a):
        return a * a + 1.0

    z = rng.standard_normal(20) + 1j * rng.standard_normal(20)
    np.testing.assert_allclose(vcomp(z), z * z + 1.0, rtol=1e-15)
    assert vadd(np.zeros(0), np.zeros(0)).shape == (0,)


def test_signature_choice_is_exact_for_arrays():
    @vectorize(["float64(float64)", "float32(float32)"])
    def sinc(x):
        if x == 0.0:
            return 1.0
        return math.sin(x * math.pi) / (math.pi * x)

    x64 = np.arange(100, dtype=np.float64) / 7
    np.testing.assert_allclose(sinc(x64), np.sinc(x64), rtol=1e-12, atol=1e-15)
    assert sinc(x64.astype(np.float32)).dtype == np.float32
    with pytest.raises(TypeError, match="no signature"):
        sinc(np.arange(4, dtype=np.int64))


# ---- guvectorize ------------------------------------------------------------------------------

@guvectorize(["void(float32[:, :], float32[:, :], float32[:, :])",
              "void(float64[:, :], float64[:, :], float64[:, :])"], "(m,n),(n,p)->(m,p)")
def matmul(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


def test_gufunc_matmul_stacks(rng):
    for lead in [(), (1,), (7,), (4, 5)]:
        A = rng.random(lead + (2, 4)).astype(np.float32)
        B = rng.random(lead + (4, 3)).astype(np.float32)
        got = matmul(A, B)
        assert got.shape == lead + (2, 3)
        np.testing.assert_allclose(got, A @ B, rtol=1e-5)
    X = rng.standard_normal((10, 3, 3))
    Y = rng.standard_normal((3, 3))
    np.testing.assert_allclose(matmul(X, Y), X @ Y, rtol=1e-12)
    dX = cuda.to_device(X)
    got = matmul(dX, Y)
    assert isinstance(got, DeviceNDArray)
    np.testing.assert_allclose(got.copy_to_host(), X @ Y, rtol=1e-12)


def test_gufunc_out_stream_and_scalars(rng):
    @guvectorize(["void(float32, float32[:], float32[:], float32[:])"], "(),(t),(t)->(t)")
    def saxpy(a, x, y, out):
        for i in range(out.shape[0]):
            out[i] = a * x[i] + y[i]

    X = rng.random((5, 2)).astype(np.float32)
    Y = rng.random((5, 2)).astype(np.float32)
    np.testing.assert_allclose(saxpy(np.float32(2), X, Y), 2 * X + Y, rtol=1e-6)
    A = rng.random(5).astype(np.float32)
    np.testing.assert_allclose(saxpy(A, X, Y), A[:, None] * X + Y, rtol=1e-6)
    stream = cuda.stream()
    dout = cuda.device_array((5, 2), np.float32, stream=stream)
    r = saxpy(np.float32(3), cuda.to_device(X, stream=stream), cuda.to_device(Y, stream=stream),
              out=dout, stream=stream)
    assert r is dout
    stream.synchronize()
    np.testing.assert_allclose(dout.copy_to_host(), 3 * X + Y, rtol=1e-6)
    out = poisoned((5, 2), np.float32)
    saxpy(np.float32(1), X, Y, out)
    np.testing.assert_allclose(out, X + Y, rtol=1e-6)


def test_gufunc_scalar_outputs_and_casts(rng):
    @guvectorize(["void(int32[:], int32[:])"], "(n)->()")
    def sum_row(inp, out):
        tmp = 0
        for i in range(inp.shape[0]):
            tmp += inp[i]
        out[0] = tmp

    inp = rng.integers(-50, 50, size=(100, 3)).astype(np.int32)
    np.testing.assert_array_equal(sum_row(inp), inp.sum(axis=1))
    dout = cuda.to_device(poisoned(100, np.int32))
    sum_row(cuda.to_device(inp), out=dout)
    np.testing.assert_array_equal(dout.copy_to_host(), inp.sum(axis=1))

    @guvectorize(["void(int32, int32[:])"], "()->()")
    def twice(x, out):
        out[0] = x * 2

    assert twice(10) == 20
    np.testing.assert_array_equal(twice(np.arange(10, dtype=np.int32)), 2 * np.arange(10))
    # A host int64 input is cast to the int32 signature; a device one cannot be.
    np.testing.assert_array_equal(twice(np.arange(4, dtype=np.int64)), [0, 2, 4, 6])
    with pytest.raises(TypeError, match="astype"):
        twice(cuda.to_device(np.arange(4, dtype=np.int64)))


def test_gufunc_multiple_outputs_and_old_style_scalars(rng):
    @guvectorize(["void(int32[:], int32[:], float64[:])"], "(x)->(x),(x)")
    def copy_and_scale(A, B, C):
        for i in range(B.size):
            B[i] = A[i]
            C[i] = A[i] * 1.5

    A = np.arange(10, dtype=np.int32) + 1
    B, C = copy_and_scale(A)
    np.testing.assert_array_equal(B, A)
    np.testing.assert_array_equal(C, A * 1.5)

    @guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)")
    def add_first(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y[0]

    a = np.array([1, 2, 3, 4], dtype=np.int32)
    res = poisoned(4, np.int32)
    add_first(a, np.array([2], dtype=np.int32), out=res)
    np.testing.assert_array_equal(res, a + 2)
    a2 = np.array([[1, 2, 3, 4]] * 2, dtype=np.int32)
    res2 = poisoned((2, 4), np.int32)
    add_first(a2, np.array([2, 10], dtype=np.int32), res2)
    np.testing.assert_array_equal(res2, a2 + np.array([[2], [10]]))


def test_gufunc_argument_errors():
    @guvectorize(["void(int32[:], int32[:], int32[:])"], "(m),(m)->(m)")
    def f(x, y, z):
        pass

    arr = np.arange(5, dtype=np.int32)
    with pytest.raises(TypeError, match="accepts 2 positional arguments .* or 3 positional "
                                        "arguments .* Got 1 positional argument."):
        f(arr)
    with pytest.raises(ValueError, match="both positional and keyword"):
        f(arr, arr, arr, out=arr)
    with pytest.raises(ValueError, match="mismatch"):
        f(arr, np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError, match="output shape mismatch"):
        f(arr, arr, out=np.zeros(4, np.int32))


def test_one_dimensional_device_calls_with_out(rng):
    # The short path for 1-d device arrays with out=: contiguous and strided
    # views, and the checks it leaves to the general path.
    a = rng.random(1000)
    d = cuda.to_device(a)
    out = cuda.to_device(poisoned(1000, np.float64))
    assert vadd(d, d, out=out) is out
    np.testing.assert_array_equal(out.copy_to_host(), a + a)
    half = cuda.to_device(poisoned(500, np.float64))
    vadd(d[::2], d[1::2], out=half)
    np.testing.assert_array_equal(half.copy_to_host(), a[::2] + a[1::2])
    with pytest.raises(TypeError, match="dtype"):
        vadd(d, d, out=cuda.device_array(1000, np.float32))
    with pytest.raises(ValueError, match="shape"):
        vadd(d, d, out=half)
    assert vadd(d[:0], d[:0], out=half[:0]).shape == (0,)


def test_short_path_follows_the_argument_dtypes(rng):
    # The 1-d short path remembers the last call's kernel: calls that
    # alternate signatures, and an out of another dtype after a good call,
    # still get their own kernel or the general path's error.
    f32, f64 = rng.random(300).astype(np.float32), rng.random(300)
    d32, d64 = cuda.to_device(f32), cuda.to_device(f64)
    o32 = cuda.to_device(poisoned(300, np.float32))
    o64 = cuda.to_device(poisoned(300, np.float64))
    for _ in range(2):
        vadd(d64, d64, out=o64)
        np.testing.assert_array_equal(o64.copy_to_host(), f64 + f64)
        vadd(d32, d32, out=o32)
        np.testing.assert_array_equal(o32.copy_to_host(), f32 + f32)
    with pytest.raises(TypeError, match="dtype"):
        vadd(d32, d32, out=o64)
