"""*args in kernels, as numba-cuda has them: a device function's *args
parameter receives the extra positional arguments as one tuple (one
specialization per call's argument types), and f(*t) spreads a tuple's
elements as the arguments of any call (device functions, builtins, math)."""
import cmath
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors, literal_unroll

from gpu_util import poisoned


@cuda.jit(device=True)
def scaled_sum(scale, *xs):
    s = 0.0
    for v in literal_unroll(xs):
        s += v
    return s * scale + len(xs)


@cuda.jit(device=True)
def apply(f, *args):
    return f(*args)


@cuda.jit(device=True)
def fma3(a, b, c):
    return a * b + c


@cuda.jit
def star_kernel(a, b, z, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = scaled_sum(2.0)
        out[i, 1] = scaled_sum(0.5, a[i])
        out[i, 2] = scaled_sum(3.0, a[i], b[i], np.int32(i), True)
        t = (a[i], b[i], 4.0)
        out[i, 3] = fma3(*t)
        out[i, 4] = apply(fma3, b[i], a[i], -1.0)
        out[i, 5] = math.hypot(*(a[i], b[i]))
        w = complex(*cmath.polar(z[i]))  # numba-cuda's polar_as_complex
        out[i, 6] = w.real
        out[i, 7] = w.imag

        def twice(x):
            return x + x

        out[i, 8] = apply(twice, a[i])


def test_star_parameters_and_spread_calls(rng):
    n = 200
    a = rng.standard_normal(n)
    b = rng.standard_normal(n)
    z = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    out = poisoned((n, 9), np.float64)
    star_kernel[2, 128](a, b, z, out)
    idx = np.arange(n)
    r, phi = np.abs(z), np.angle(z)
    want = np.stack([
        np.zeros(n),
        a * 0.5 + 1,
        (a + b + idx + 1) * 3.0 + 4,
        a * b + 4.0,
        b * a - 1.0,
        np.hypot(a, b),
        r, phi, 2 * a], axis=1)
    # a*b+c may be fused into one rounding (the contraction rule)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-13)


@cuda.jit(device=True)
def consumer(func, *args):
    return func(*args)


@cuda.jit
def escaping_closures(a, out):
    # numba-cuda's make_function_to_jit_function: nested functions that
    # capture constants (and have defaults) passed to a *args consumer
    i = cuda.grid(1)
    if i < a.size:
        y = 10
        scale = 0.5

        def inner(z, w=3):
            return y + z * scale + w

        out[i, 0] = consumer(inner, a[i])
        out[i, 1] = consumer(inner, a[i], 7)
        out[i, 2] = inner(a[i], 1)


def test_nested_functions_capturing_constants_escape(rng):
    n = 100
    a = rng.standard_normal(n)
    out = poisoned((n, 3), np.float64)
    escaping_closures[1, 128](a, out)
    want = np.stack([10 + a * 0.5 + 3, 10 + a * 0.5 + 7, 10 + a * 0.5 + 1], axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-14)


def test_escaping_closure_over_a_run_time_value_is_refused():
    @cuda.jit
    def k(a, out):
        y = a[0]

        def inner(z):
            return y + z

        out[0] = consumer(inner, 1.0)

    with pytest.raises(errors.TypingError, match="captures .*which is not a constant") as e:
        k[1, 1](np.zeros(1), np.zeros(1))
    assert "consumer(inner, 1.0)" in e.value.source_line()


def test_spreading_a_non_tuple_is_refused():
    @cuda.jit
    def k(a, out):
        out[0] = fma3(*a)

    with pytest.raises(errors.TypingError, match=r"f\(\*args\) in kernels takes a tuple") as e:
        k[1, 1](np.zeros(3), np.zeros(1))
    assert "fma3(*a)" in e.value.source_line()


def test_kwargs_parameters_stay_refused():
    @cuda.jit(device=True)
    def takes_kwargs(x, **kw):
        return x

    @cuda.jit
    def k(out):
        out[0] = takes_kwargs(1.0)

    with pytest.raises(errors.UnsupportedError, match=r"\*\*kwargs") as e:
        k[1, 1](np.zeros(1))
    assert "takes_kwargs(1.0)" in e.value.source_line()
