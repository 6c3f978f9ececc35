"""Device functions: @cuda.jit(device=True), specialized per argument types."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit(device=True)
def clamp(x, lo=0.0, hi=1.0):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit(device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@cuda.jit(device=True, inline="always")
def qr(a, b):
    return a // b, a % b


@cuda.jit(device=True)
def norm2(v, i):
    # arrays pass by value (data pointer, shape, strides)
    return math.sqrt(v[i, 0] * v[i, 0] + v[i, 1] * v[i, 1])


@cuda.jit(device=True)
def nested(x):
    return clamp(x * 3.0, hi=2.0) + clamp(x)


@cuda.jit
def use_all(x, v, out, iout):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = clamp(x[i], hi=0.5) + clamp(x[i] * 2)
        out[i, 1] = norm2(v, i)
        out[i, 2] = nested(x[i])
        q, r = qr(i + 7, 3)
        iout[i] = fact(i % 7) + q * 10 + r


def py_clamp(x, lo=0.0, hi=1.0):
    return lo if x < lo else hi if x > hi else x


def test_device_functions(backend, rng):
    n = 300
    x = rng.uniform(-0.5, 1.5, n).astype(np.float32)
    v = rng.standard_normal((n, 2))
    out = poisoned((n, 3), np.float64)
    iout = poisoned(n, np.int64)
    use_all[3, 128](x, v, out, iout)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(out[:, 0], [py_clamp(a, hi=0.5) + py_clamp(2 * a) for a in x], rtol=1e-6)
    np.testing.assert_allclose(out[:, 1], np.hypot(v[:, 0], v[:, 1]))
    np.testing.assert_allclose(out[:, 2], [py_clamp(3 * a, hi=2.0) + py_clamp(a) for a in xd], rtol=1e-6)
    np.testing.assert_array_equal(
        iout, [math.factorial(i % 7) + ((i + 7) // 3) * 10 + (i + 7) % 3 for i in range(n)])


@cuda.jit(device=True)
def ping(n):
    return pong(n - 1) if n > 0 else 0


@cuda.jit(device=True)
def pong(n):
    return ping(n - 1) + 1 if n > 0 else 0


def test_mutual_recursion_is_a_clear_error():
    def k(out):
        out[0] = ping(3)
    with pytest.raises(errors.UnsupportedError, match="recursion between device functions"):
        cuda.compile_ptx(k, "void(int64[:])")


def test_device_function_cannot_run_on_the_host():
    with pytest.raises(RuntimeError, match="can only be called from a kernel"):
        clamp(0.5)


def plain_helper(x):
    return x + 1


def test_plain_python_function_gets_a_hint():
    def k(out):
        out[0] = plain_helper(1)
    # numba-cuda's class and leading phrase: a TypingError, "Untyped global name".
    with pytest.raises(errors.TypingError,
                       match=r"^Untyped global name 'plain_helper': .*@cuda.jit\(device=True\)"):
        cuda.compile_ptx(k, "void(int64[:])")


def test_device_function_cannot_be_launched_or_disassembled():
    # As numba-cuda: a clear RuntimeError, not "object is not subscriptable".
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        clamp[1, 1](0.5)
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        clamp.inspect_sass("float64(float64)")


def test_numba_jit_functions_are_device_functions(rng):
    # numba-cuda compiles a numba @jit / @njit function called from a kernel
    # for the device (its py_func); with explicit signatures it cannot.
    numba = pytest.importorskip("numba")

    @numba.njit
    def axpy(a, x, y):
        return a * x + y

    @numba.njit("(i4, i4)")
    def fixed(a, b):
        return a + b

    @cuda.jit
    def k(r, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = axpy(2.5, x[i], y[i])

    x, y = rng.standard_normal(100), rng.standard_normal(100)
    r = poisoned(100, np.float64)
    k[1, 128](r, x, y)
    np.testing.assert_allclose(r, 2.5 * x + y, rtol=1e-13, atol=1e-15)  # a fused a*x+y

    @cuda.jit
    def k2(r):
        r[0] = fixed(1, 2)
    with pytest.raises(errors.TypingError,
                       match="Untyped global name 'fixed': a numba @jit function with explicit"):
        k2[1, 1](np.zeros(1, np.int32))
