"""tuple() and tuple(t) in kernels: tuple(t) of a tuple (uniform or mixed,
a namedtuple, a tuple of CUDA vectors) is a plain tuple of the same
elements; tuple() is empty; other arguments are a TypingError at the
user's line."""
from collections import namedtuple

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, errors

Point = namedtuple("Point", ["x", "y", "z"])


@cuda.jit
def k_uniform(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        t = tuple((x[i, 0], x[i, 1], x[i, 2]))
        out[i, 0] = t[2]
        out[i, 1] = t[0] * t[1]
        out[i, 2] = len(tuple(t)) + len(tuple())


def test_uniform_tuple(backend, rng):
    x = rng.standard_normal((70, 3))
    out = poisoned((70, 3), np.float64)
    k_uniform[2, 64](out, x)
    np.testing.assert_array_equal(out[:, 0], x[:, 2])
    np.testing.assert_array_equal(out[:, 1], x[:, 0] * x[:, 1])
    np.testing.assert_array_equal(out[:, 2], 3.0)


@cuda.jit
def k_mixed(fo, io, f, n):
    i = cuda.grid(1)
    if i < f.shape[0]:
        t = tuple((f[i], n[i], np.float32(f[i])))
        u = tuple(t)
        fo[i] = u[0] + u[2]
        io[i] = u[1] * 3


def test_mixed_tuple(backend, rng):
    f = rng.standard_normal(90).astype(np.float32)
    n = rng.integers(-1000, 1000, 90)
    fo = poisoned(90, np.float32)
    io = poisoned(90, np.int64)
    k_mixed[2, 64](fo, io, f, n)
    np.testing.assert_array_equal(fo, f + f)
    np.testing.assert_array_equal(io, n * 3)


@cuda.jit
def k_namedtuple(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        p = Point(x[i, 0], x[i, 1], x[i, 2])
        t = tuple(p)  # a plain tuple: indexed, not named
        out[i] = t[0] - t[1] + t[2] * p.z


def test_namedtuple_to_tuple(backend, rng):
    x = rng.integers(-50, 50, (40, 3))
    out = poisoned(40, np.int64)
    k_namedtuple[1, 64](out, x)
    np.testing.assert_array_equal(out, x[:, 0] - x[:, 1] + x[:, 2] * x[:, 2])


@cuda.jit
def k_vectors(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = cuda.float32x2(x[i, 0], x[i, 1])
        b = cuda.float32x2(x[i, 2], x[i, 3])
        j = 0
        for v in tuple((a, b)):
            out[i, j] = v.x
            out[i, j + 1] = v.y
            j += 2


def test_tuple_of_vectors(backend, rng):
    x = rng.standard_normal((33, 4)).astype(np.float32)
    out = poisoned((33, 4), np.float32)
    k_vectors[1, 64](out, x)
    np.testing.assert_array_equal(out, x)


def _tuple_of_array(a):
    t = tuple(a)
    a[0] = t[0]


def _tuple_two_args(a):
    t = tuple((1,), (2,))
    a[0] = t[0]


@pytest.mark.parametrize("fn, match", [
    (_tuple_of_array, r"tuple\(\) in kernels takes a tuple, not array"),
    (_tuple_two_args, r"tuple"),
])
def test_tuple_misuse_is_a_typing_error(fn, match):
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(fn, "void(float64[::1])")
    assert "test_tuple_ctor.py" in str(info.value)
