"""Closures in kernels: a lambda or nested def that reads variables of the
function defining it, called there (inlined as a device function that gets
the captured values as leading arguments)."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def axpb(x, a, b, out):
    i = cuda.grid(1)
    f = lambda v: a * v + b  # noqa: E731
    if i < x.size:
        out[i] = f(x[i]) + f(1.0)


def test_lambda_captures_arguments(rng):
    n = 333
    x = rng.standard_normal(n)
    out = poisoned(n, np.float64)
    axpb[3, 128](x, 2.5, -0.75, out)
    np.testing.assert_allclose(out, 2.5 * x - 0.75 + 2.5 - 0.75, rtol=1e-12)


@cuda.jit
def stencil2(x, w, out):
    i = cuda.grid(1)
    n = x.size

    def tap(k):
        j = i + k
        if j < 0 or j >= n:
            return 0.0
        return x[j] * w[k + 1]

    if i < n:
        acc = 0.0
        for k in range(-1, 2):
            acc += tap(k)
        out[i] = acc


def test_nested_def_reads_captured_arrays_and_locals(rng):
    n = 300
    x = rng.standard_normal(n)
    w = rng.standard_normal(3)
    out = poisoned(n, np.float64)
    stencil2[3, 128](x, w, out)
    xp = np.concatenate([[0.0], x, [0.0]])
    want = w[0] * xp[:-2] + w[1] * xp[1:-1] + w[2] * xp[2:]
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-14)


@cuda.jit(device=True)
def poly(c0, c1, c2, x):
    # in a device function: nested defs calling each other
    def p(t):
        return c0 + t * (c1 + t * c2)

    def dp(t):
        return c1 + 2 * t * c2

    return p(x) - p(x) / dp(x) if dp(x) != 0 else p(x)


@cuda.jit
def newton_step(c, x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = poly(c[0], c[1], c[2], x[i])


def test_in_device_function(rng):
    n = 200
    c = rng.standard_normal(3)
    x = rng.standard_normal(n)
    out = poisoned(n, np.float64)
    newton_step[2, 128](c, x, out)
    p = c[0] + x * (c[1] + x * c[2])
    dp = c[1] + 2 * x * c[2]
    np.testing.assert_allclose(out, np.where(dp != 0, p - p / dp, p), rtol=1e-9)


def make_kernel(scale):
    # the kernel is itself a closure; its lambda captures the kernel's
    # closure variable (a compile-time value) and a run-time local
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            y = x[i] + 1
            g = lambda v: v * scale + y  # noqa: E731
            out[i] = g(x[i])
    return k


def test_captures_enclosing_python_scope(rng):
    n = 100
    x = rng.integers(-50, 50, n).astype(np.int32)
    for scale in (3, -2):
        out = poisoned(n, np.int64)
        make_kernel(scale)[1, 128](x, out)
        np.testing.assert_array_equal(out, x.astype(np.int64) * scale + x + 1)


@cuda.jit
def writes_through_capture(x, out):
    # writing array elements through a captured array is allowed (the
    # array is not rebound)
    i = cuda.grid(1)

    def put(v):
        out[i] = v

    if i < x.size:
        put(math.sqrt(abs(x[i])))


def test_writes_through_captured_array(rng):
    n = 130
    x = rng.standard_normal(n)
    out = poisoned(n, np.float64)
    writes_through_capture[2, 128](x, out)
    np.testing.assert_allclose(out, np.sqrt(np.abs(x)), rtol=1e-15)


@cuda.jit
def late_assign(x, out):
    f = lambda: y  # noqa: E731
    y = x[0]
    out[0] = f()


@cuda.jit
def recursive(x, out):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    out[0] = fact(x[0])


@cuda.jit
def with_default(x, out):
    f = lambda v, w=x[1]: v * w  # noqa: E731
    out[0] = f(x[0])


@cuda.jit
def constant_defaults(x, out):
    i = cuda.grid(1)
    c = 0.5

    def g(v, w=2.0, k=3):
        return v * w + k + c

    if i < x.size:
        out[i] = g(x[i]) + g(x[i], 1.0) + g(x[i], k=-1) + g(k=2, v=x[i], w=x[i])


def test_constant_default_values(rng):
    n = 150
    x = rng.standard_normal(n)
    out = poisoned(n, np.float64)
    constant_defaults[2, 128](x, out)
    want = (x * 2.0 + 3 + 0.5) + (x + 3 + 0.5) + (x * 2.0 - 1 + 0.5) + (x * x + 2 + 0.5)
    np.testing.assert_allclose(out, want, rtol=1e-14)


@cuda.jit(device=True)
def apply(fn, v):
    return fn(v)


@cuda.jit
def passes_closure(x, out):
    a = x[1]
    out[0] = apply(lambda v: v + a, x[0])


@cuda.jit
def passes_plain_lambda(x, out):
    out[0] = apply(lambda v: v * 3.0, x[0])


@cuda.jit
def returns_closure(x, out):
    def make():
        return lambda v: v
    out[0] = make()(x[0])


@cuda.jit
def nonlocal_write(x, out):
    t = 0.0

    def bump():
        nonlocal t
        t = 1.0
    bump()
    out[0] = t


def test_unsupported_closures_are_clear_errors():
    x = np.array([3.0, 4.0])
    out = np.zeros(1)
    cases = [
        (late_assign, errors.UnsupportedError, "assigned after the function is defined", "y = x[0]"),
        (recursive, errors.UnsupportedError, "refers to itself", "def fact(n):"),
        (with_default, errors.UnsupportedError, "default values of nested functions", "f = lambda v, w=x[1]"),
        (passes_closure, errors.TypingError, "which is not a constant", "apply(lambda v: v + a"),
        (nonlocal_write, errors.UnsupportedError, "modifying closure variables", "t = 1.0"),
    ]
    for kernel, cls, msg, line in cases:
        with pytest.raises(cls, match=msg) as e:
            kernel[1, 1](x, out)
        assert line in str(e.value), (kernel, str(e.value))


def test_returning_a_function_is_an_error():
    x = np.array([3.0, 4.0])
    out = np.zeros(1)
    with pytest.raises(errors.TypingError, match="cannot return a function") as e:
        returns_closure[1, 1](x, out)
    assert "return lambda v: v" in str(e.value)


def test_lambda_without_captures_can_be_passed():
    x = np.array([3.0, 4.0])
    out = poisoned(1, np.float64)
    passes_plain_lambda[1, 1](x, out)
    assert out[0] == 9.0
