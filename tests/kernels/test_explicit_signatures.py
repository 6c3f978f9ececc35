"""Explicit signatures: which one a call picks (numba's rule: the fewest
conversions that lose information, then the fewest other conversions,
then the fewest promotions; a tie is an error), and device functions with a
signature convert their arguments and result to the declared types."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


def add_into(a, b, out):
    out[0] = a + b


def test_python_scalars_pick_the_overload_that_loses_nothing(backend):
    # (int, float): float32 would lose digits of 0.1; float64 holds both.
    k = cuda.jit(["void(float32, float32, float64[:])",
                  "void(float64, float64, float64[:])"])(add_into)
    out = poisoned(1, np.float64)
    k[1, 1](1, 0.1, out)
    assert out[0] == 1 + 0.1
    # The order of the signatures does not matter.
    k = cuda.jit(["void(float64, float64, float64[:])",
                  "void(float32, float32, float64[:])"])(add_into)
    out = poisoned(1, np.float64)
    k[1, 1](1, 0.1, out)
    assert out[0] == 1 + 0.1


def test_exact_match_and_promotion_win(backend):
    k = cuda.jit(["void(int64, int64, float64[:])",
                  "void(int32, int32, float64[:])",
                  "void(float64, float64, float64[:])"])(add_into)
    out = poisoned(1, np.float64)
    # int32 arguments: the int32 signature (exact), whose sum wraps.
    k[1, 1](np.int32(2**31 - 1), np.int32(1), out)
    assert out[0] == -(2**31)
    # float32 arguments: the promotion to float64 beats the conversions to ints.
    out = poisoned(1, np.float64)
    k[1, 1](np.float32(0.5), np.float32(0.25), out)
    assert out[0] == 0.75
    # int16 arguments: a promotion (to int32) beats a safe conversion (to
    # float64); with both int32 and int64 there, it would be ambiguous.
    k = cuda.jit(["void(float64, float64, float64[:])",
                  "void(int32, int32, float64[:])"])(add_into)
    out = poisoned(1, np.float64)
    k[1, 1](np.int16(2**15 - 1), np.int16(2**15 - 1), out)
    assert out[0] == 2 * (2**15 - 1)
    k = cuda.jit(["void(int64, int64, float64[:])",
                  "void(int32, int32, float64[:])"])(add_into)
    with pytest.raises(TypeError, match="ambiguous"):
        k[1, 1](np.int16(1), np.int16(1), out)


def test_ambiguous_overloads_are_an_error(backend):
    k = cuda.jit(["void(float32, float64, float64[:])",
                  "void(float64, float32, float64[:])"])(add_into)
    out = poisoned(1, np.float64)
    with pytest.raises(TypeError, match="ambiguous") as info:
        k[1, 1](1.5, 2.5, out)
    assert "(float32, float64, array(float64, 1d, A))" in str(info.value)
    assert "(float64, float32, array(float64, 1d, A))" in str(info.value)
    # Exact arguments are not ambiguous.
    k[1, 1](np.float32(1.5), 2.5, out)
    assert out[0] == 4.0


@cuda.jit("int64(int64, int64)", device=True)
def iadd(a, b):
    return a + b


@cuda.jit("float32(float32)", device=True)
def third(x):
    return x / 3


@cuda.jit(["int32(int32)", "float64(float64)"], device=True)
def twice(x):
    return x + x


@cuda.jit
def use_signatures(x, out, iout):
    i = cuda.grid(1)
    if i < x.size:
        iout[i, 0] = iadd(1.5, 2.5)              # 1 + 2, as numba
        iout[i, 1] = iadd(x[i], -x[i])           # each truncates toward zero
        out[i, 0] = third(x[i])                  # computed in float32
        out[i, 1] = twice(x[i])                  # float64 overload
        iout[i, 2] = twice(np.int32(2**30))      # int32 overload: wraps
        iout[i, 3] = twice(np.int16(7))          # int32 by promotion


def test_device_function_signatures_convert(backend, rng):
    n = 100
    x = rng.uniform(-10, 10, n)
    out = poisoned((n, 2), np.float64)
    iout = poisoned((n, 4), np.int64)
    use_signatures[1, 128](x, out, iout)
    np.testing.assert_array_equal(iout[:, 0], 3)
    np.testing.assert_array_equal(iout[:, 1], np.trunc(x).astype(np.int64) + np.trunc(-x).astype(np.int64))
    np.testing.assert_array_equal(out[:, 0], (x.astype(np.float32) / np.float32(3)).astype(np.float64))
    np.testing.assert_array_equal(out[:, 1], 2 * x)
    np.testing.assert_array_equal(iout[:, 2], -(2**31))
    np.testing.assert_array_equal(iout[:, 3], 14)


def test_device_function_without_a_matching_signature():
    @cuda.jit("float32(float32)", device=True)
    def f(x):
        return x

    def k(out, arr):
        out[0] = f(arr)

    with pytest.raises(errors.TypingError, match="no matching signature"):
        cuda.compile_ptx(k, "void(float32[:], float32[:])")
