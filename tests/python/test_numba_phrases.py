"""Errors whose text carries the phrase a numba-cuda user knows (and code
or tests written for numba-cuda match), next to pycuda_jit's own precise
part: the kernel's return type, runaway and non-converging recursion.
Device-array messages: tests/kernels/test_devicearray_messages.py."""
import inspect

import numpy as np
import pytest

from pycuda_jit import cuda, errors

HERE = __file__


def line_of(func, needle):
    lines, start = inspect.getsourcelines(func)
    for k, text in enumerate(lines):
        if needle in text:
            return start + k
    raise AssertionError(needle)


def k_returns_sum(x, y):
    return x[0] + y[0]


def test_kernel_return_type_says_void():
    with pytest.raises(errors.TypingError) as info:
        cuda.compile_ptx(k_returns_sum, "void(uint32[::1], uint32[::1])")
    err = info.value
    assert isinstance(err, TypeError)
    assert "a kernel must have void return type: it returns uint32" in str(err)
    assert err.file == HERE and err.line == line_of(k_returns_sum, "return x[0]")
    assert "write results into an array argument" in err.hint


@cuda.jit(device=True)
def runaway(x):
    return runaway(x)


@cuda.jit(device=True)
def growing(n):
    if n <= 0:
        return None
    return (n, growing(n - 1))


@cuda.jit(device=True)
def mixed_recursive(n):
    if n <= 0:
        return 1.5
    return (n, 2)


def k_runaway(out):
    out[0] = runaway(out[1])


def k_growing(out):
    growing(out[0])


def test_runaway_recursion():
    with pytest.raises(errors.TypingError) as info:
        cuda.compile_ptx(k_runaway, "void(int64[:])")
    err = info.value
    assert "cannot type infer runaway recursion" in str(err)
    assert "no return path that does not call the function itself" in str(err)
    assert err.line == line_of(runaway.py_func, "return runaway(x)")


def test_growing_return_type_of_recursion():
    with pytest.raises(errors.TypingError) as info:
        cuda.compile_ptx(k_growing, "void(int64[:])")
    text = str(info.value)
    assert "Return type of recursive function does not converge" in text
    # The types that did not unify are still named.
    assert "Tuple(int64, none)" in text and "none" in text
    assert "(one type nests the other)" in text
    assert info.value.line in (line_of(growing.py_func, "return (n, growing"),
                               line_of(growing.py_func, "return None"))


def k_mixed(out):
    mixed_recursive(out[0])


def test_non_recursive_mismatch_keeps_its_message():
    # Not recursive: the plain "returns X on one path and Y here" message.
    with pytest.raises(errors.TypingError) as info:
        cuda.compile_ptx(k_mixed, "void(int64[:])")
    text = str(info.value)
    assert "does not converge" not in text
    assert "on one path and" in text
