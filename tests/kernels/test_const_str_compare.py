"""Comparisons of strings known when the kernel compiles (literals, string
constants passed to device functions, string globals): answered at compile
time as Python answers them, so a string flag selects code
(numba-cuda's test_string_device_function_arg_compiles_quickly)."""
import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, errors

MODE = "scale"


@cuda.jit(device=True, forceinline=True)
def load(out, x, i, value):
    if value == "1":
        out[i] = x[i] * 2.0
    elif value != "zero":
        out[i] = -x[i]
    else:
        out[i] = 0.0


@cuda.jit
def k_flags(a, b, c, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        load(a, x, i, "1")
        load(b, x, i, "other")
        load(c, x, i, "zero")


def test_string_flags_select_code(backend, rng):
    x = rng.standard_normal(100).astype(np.float32)
    a, b, c = (poisoned(100, np.float32) for _ in range(3))
    k_flags[1, 128](a, b, c, x)
    np.testing.assert_array_equal(a, x * 2)
    np.testing.assert_array_equal(b, -x)
    np.testing.assert_array_equal(c, np.zeros(100, np.float32))


def ordered(out):
    out[0] = "abc" < "abd"
    out[1] = "b" >= "abc"
    out[2] = MODE == "scale"
    out[3] = "é" > "z"  # code points, as Python compares
    out[4] = "x" == b"x"
    out[5] = b"ab" <= b"ab"


def test_comparisons_are_pythons(backend):
    got = poisoned(6, np.bool_)
    want = np.zeros(6, np.bool_)
    cuda.jit(ordered)[1, 1](got)
    ordered(want)
    np.testing.assert_array_equal(got, want)


def _str_bytes_order(out):
    out[0] = "x" < b"y"


def test_str_bytes_ordering_is_an_error():
    with pytest.raises(errors.TypingError, match="not supported between str and bytes") as e:
        cuda.compile_ptx(_str_bytes_order, "void(bool[::1])")
    assert "test_const_str_compare.py" in str(e.value)
