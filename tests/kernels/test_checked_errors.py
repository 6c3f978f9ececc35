"""Checked mode (debug=True, or PYCUDA_JIT_DEBUG=1) raises Python's
exceptions, as numba-cuda's debug mode does: ZeroDivisionError for /, // and
% by zero (ints, floats, complex numbers, divmod) and IndexError for a tuple
index out of range.  Without it, the same code gives defined values (NumPy's
inf/nan for floats, 0 for ints, 0 for a tuple index out of range).

The launch raises (KernelZeroDivisionError, KernelIndexError) on both
targets: a checked kernel's launch synchronizes and reads the GPU's error
record, and the context stays usable."""
import os

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

THIS_FILE = os.path.basename(__file__)


def divide_kernel(op, debug):
    which = ["/", "//", "%", "divmod"].index(op)

    @cuda.jit(debug=debug)
    def divide(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            if which == 0:
                out[i] = a[i] / b[i]
            elif which == 1:
                out[i] = a[i] // b[i]
            elif which == 2:
                out[i] = a[i] % b[i]
            else:
                q, r = divmod(a[i], b[i])
                out[i] = q + r
    return divide


MESSAGES = {
    ("f", "/"): "float division by zero",
    ("f", "//"): "float floor division by zero",
    ("f", "%"): "float modulo by zero",
    ("f", "divmod"): "float divmod()",
    ("i", "/"): "division by zero",
    ("i", "//"): "integer division or modulo by zero",
    ("i", "%"): "integer modulo by zero",
    ("i", "divmod"): "integer division or modulo by zero",
}


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.int32, np.uint16],
                         ids=lambda t: t.__name__)
@pytest.mark.parametrize("op", ["/", "//", "%", "divmod"])
def test_division_by_zero_raises_in_checked_mode(backend, rng, dt, op):
    n = 300
    a = rng.integers(1, 100, n).astype(dt)
    b = rng.integers(1, 9, n).astype(dt)
    b[137] = 0
    out_t = np.float64 if op == "/" else dt
    kern = divide_kernel(op, debug=True)
    with pytest.raises(errors.KernelZeroDivisionError) as info:
        kern[3, 128](a, b, np.zeros(n, out_t))
    assert isinstance(info.value, ZeroDivisionError)
    assert isinstance(info.value, errors.KernelError)
    msg = str(info.value)
    kind = "f" if np.dtype(dt).kind == "f" else "i"
    assert msg.startswith(MESSAGES[kind, op] + " in kernel 'divide_kernel.<locals>.divide' ("), msg
    assert THIS_FILE in msg and "thread (9, 0, 0) block (1, 0, 0)" in msg, msg
    # Without a zero divisor the checked kernel computes what the plain one does.
    b[137] = 3
    got = poisoned(n, out_t)
    kern[3, 128](a, b, got)
    want = poisoned(n, out_t)
    divide_kernel(op, debug=False)[3, 128](a, b, want)
    np.testing.assert_array_equal(got, want)


@cuda.jit(debug=True)
def complex_divide(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] / b[i]


@cuda.jit
def complex_divide_unchecked(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] / b[i]


def test_complex_division_by_zero(backend):
    a = np.array([1 + 2j, 1 + 0j, 0j, -1 - 1j])
    b = np.array([0j, -0j, 0j, 2 + 0j])
    if backend == "cpu":
        with pytest.raises(errors.KernelZeroDivisionError, match="complex division by zero"):
            complex_divide[1, 4](a, b, np.zeros(4, np.complex128))
    # Unchecked: each part divided by zero, as NumPy does.
    out = np.full(4, 12345 + 0j)
    complex_divide_unchecked[1, 4](a, b, out)
    with np.errstate(all="ignore"):
        want = a / b
    np.testing.assert_array_equal(out[:3].real, want[:3].real)
    np.testing.assert_array_equal(np.isnan(out.imag), np.isnan(want.imag))
    assert out[3] == -0.5 - 0.5j


def power_kernel(debug):
    @cuda.jit(debug=debug)
    def power(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = a[i] ** b[i]
            out[1, i] = pow(a[i], -2)
    return power


@pytest.mark.parametrize("dt", [np.int64, np.int32, np.int8])
def test_zero_to_a_negative_power_raises_in_checked_mode(backend, dt):
    # numba-cuda's debug mode (its "python" error model) raises
    # ZeroDivisionError("0 cannot be raised to a negative power") for an
    # integer 0 ** n, n < 0, as CPython does; unchecked, a negative
    # exponent gives 0 except for bases 1 and -1 (docs/language.md).
    a = np.array([2, -1, 1, 3, 0], dt)
    b = np.array([-1, -3, -5, 2, 3], dt)
    want = np.array([[0, -1, 1, 9, 0], [0, 1, 1, 0, 0]], dt)
    for debug in (False, True):  # no zero base: the same either way
        out = poisoned((2, 4), dt)
        power_kernel(debug)[1, 4](a[:4], b[:4], out)
        np.testing.assert_array_equal(out, want[:, :4])
    out = poisoned((2, 5), dt)
    power_kernel(False)[1, 5](a, np.array([-1, -3, -5, 2, -3], dt), out)
    np.testing.assert_array_equal(out[0], [0, -1, 1, 9, 0])
    for b4 in (np.array([-1, -3, -5, 2, -3], dt), np.array([-1, -3, -5, 2, 3], dt)):
        with pytest.raises(errors.KernelZeroDivisionError,
                           match="0 cannot be raised to a negative power") as e:
            power_kernel(True)[1, 5](a, b4, poisoned((2, 5), dt))
        # the first: a[4] ** b[4]; the second: pow(a[4], -2)
        assert e.value.line > 0 and THIS_FILE in e.value.file


def test_debug_environment_variable_checks_division(backend, monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_DEBUG", "1")
    kern = divide_kernel("//", debug=False)
    with pytest.raises(errors.KernelZeroDivisionError, match="float floor division by zero"):
        kern[1, 4](np.ones(4), np.zeros(4), np.zeros(4))
    monkeypatch.delenv("PYCUDA_JIT_DEBUG")
    out = np.zeros(4)
    divide_kernel("//", debug=False)[1, 4](np.ones(4), np.zeros(4), out)
    assert (out == np.inf).all()


def tuple_kernel(debug, boundscheck=None):
    @cuda.jit(debug=debug, boundscheck=boundscheck)
    def pick(idx, out):
        i = cuda.grid(1)
        if i < idx.size:
            t = (1.5, 2.5, 3.5)
            out[i] = t[idx[i]]
    return pick


def test_dynamic_tuple_index_out_of_range_is_zero(rng):
    idx = np.array([0, 1, 2, -1, -2, -3, 3, 4, -4, -5, 1 << 40, -(1 << 40)], np.int64)
    out = poisoned(idx.size, np.float64)
    # Unchecked (the CPU executor checks bounds unless told not to).
    tuple_kernel(False, boundscheck=False)[1, 32](idx, out)
    np.testing.assert_array_equal(out, [1.5, 2.5, 3.5, 3.5, 2.5, 1.5, 0, 0, 0, 0, 0, 0])


def test_dynamic_tuple_index_out_of_range_raises_in_checked_mode(backend):
    idx = np.array([0, 2, -3, 3], np.int64)
    with pytest.raises(errors.KernelIndexError) as info:
        tuple_kernel(True)[1, 4](idx, np.zeros(4))
    msg = str(info.value)
    assert msg.startswith("tuple index out of range in kernel 'tuple_kernel.<locals>.pick' ("), msg
    assert THIS_FILE in msg and "thread (3, 0, 0)" in msg, msg
    out = poisoned(3, np.float64)
    tuple_kernel(True)[1, 3](idx[:3], out)
    np.testing.assert_array_equal(out, [1.5, 3.5, 1.5])


@cuda.jit
def const_index(a):
    t = (1.0, 2.0, 3.0)
    a[0] = t[3]  # the constant index


def test_constant_tuple_index_out_of_range_is_a_compile_error():
    # A compile-time IndexError at the line, as in numba.
    with pytest.raises(errors.CompileError) as info:
        const_index[1, 1](np.zeros(1))
    assert isinstance(info.value, IndexError)
    assert "tuple index 3 is out of range" in str(info.value)
    with open(__file__) as f:
        line = next(k for k, s in enumerate(f, 1) if s.endswith("t[3]  # the constant index\n"))
    assert info.value.line == line and info.value.file == __file__
