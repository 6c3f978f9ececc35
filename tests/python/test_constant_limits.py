"""Python int constants that do not fit where they are used are compile
errors at the user's line (NumPy 2 / NEP 50: "Python integer 5000000000 out
of bounds for int32"), range() with a constant zero step is one too, and
special registers are int64 so that index arithmetic cannot wrap."""
import inspect
import re

import numpy as np
import pytest

from pycuda_jit import cuda, errors

HERE = __file__
BIG_GLOBAL = 5000000000


def line_of(func, needle):
    lines, start = inspect.getsourcelines(func)
    for k, text in enumerate(lines):
        if needle in text:
            return start + k
    raise AssertionError(needle)


def k_add_int32(x):
    x[0] = x[1] + 5000000000


def k_int8_call(x):
    x[0] = np.int8(300)


def k_uint8_negative(x):
    x[0] = np.uint8(-1)


def k_store_int32(x):
    x[0] = 2**40


def k_global_int32(x):
    x[0] = x[1] * BIG_GLOBAL


def k_int64_too_big(x):
    x[0] = 2**63


def k_uint64_too_big(x):
    x[0] = 2**64


def k_uint64_negative(x):
    x[0] = x[1] | -1


def k_weak_variable(x):
    v = 2**70
    x[0] = v


def k_float_overflow(x):
    x[0] = 10**400


def k_big_in_tuple(x):
    t = (1, 2**64)
    x[0] = t[0]


def k_big_tuple_index(x):
    t = (1.0, 2.0)
    x[0] = t[2**64]


def k_range_zero(x):
    for i in range(0, 4, 0):
        x[i] = 1


def k_range_zero_global(x):
    for i in range(0, 4, ZERO):
        x[i] = 1


ZERO = 0

CASES = [
    (k_add_int32, "void(int32[:])", errors.TypingError, "Python integer 5000000000 out of bounds for int32", "x[1] + 5000000000"),
    (k_int8_call, "void(int8[:])", errors.TypingError, "Python integer 300 out of bounds for int8", "np.int8(300)"),
    (k_uint8_negative, "void(uint8[:])", errors.TypingError, "Python integer -1 out of bounds for uint8", "np.uint8(-1)"),
    (k_store_int32, "void(int32[:])", errors.TypingError, "Python integer 1099511627776 out of bounds for int32", "x[0] = 2**40"),
    (k_global_int32, "void(int32[:])", errors.TypingError, "Python integer 5000000000 out of bounds for int32", "x[1] * BIG_GLOBAL"),
    (k_int64_too_big, "void(int64[:])", errors.TypingError, "Python integer 9223372036854775808 out of bounds for int64", "x[0] = 2**63"),
    (k_uint64_too_big, "void(uint64[:])", errors.TypingError, "Python integer 18446744073709551616 out of bounds for uint64", "x[0] = 2**64"),
    (k_uint64_negative, "void(uint64[:])", errors.TypingError, "Python integer -1 out of bounds for uint64", "x[1] | -1"),
    (k_weak_variable, "void(int64[:])", errors.TypingError, "Python integer 1180591620717411303424 out of bounds for int64", "v = 2**70"),
    (k_float_overflow, "void(float64[:])", errors.TypingError, "int too large to convert to float", "x[0] = 10**400"),
    (k_big_in_tuple, "void(int64[:])", errors.TypingError, "Python integer 18446744073709551616 does not fit in 64 bits", "t = (1, 2**64)"),
    (k_big_tuple_index, "void(float64[:])", errors.TypingError, "tuple index 18446744073709551616 is out of range", "t[2**64]"),
    (k_range_zero, "void(int64[:])", errors.ConstantValueError, "range() arg 3 must not be zero", "range(0, 4, 0)"),
    (k_range_zero_global, "void(int64[:])", errors.ConstantValueError, "range() arg 3 must not be zero", "range(0, 4, ZERO)"),
]


@pytest.mark.parametrize("func, sig, cls, message, source", CASES, ids=[c[0].__name__ for c in CASES])
def test_constant_out_of_bounds(func, sig, cls, message, source):
    with pytest.raises(cls) as info:
        cuda.compile_ptx(func, sig)
    err = info.value
    text = str(err)
    assert message in text, text
    assert err.file == HERE
    assert err.line == line_of(func, source), text
    assert source in text


def k_fits(x, f, u):
    # Python ints that fit where they are used are fine (NEP 50).
    x[0] = x[1] + 2147483647
    x[2] = np.int8(-128) + np.int8(127)
    f[0] = 10**100
    u[0] = u[1] ^ 0xFFFFFFFFFFFFFFFF
    # Comparisons with a Python int outside the other type's range compare
    # the values (NumPy 2), rather than raising or wrapping.
    x[3] = x[4] < 5000000000
    x[5] = u[2] > -1


def test_constants_that_fit_compile():
    cuda.compile_ptx(k_fits, "void(int32[:], float32[:], uint64[:])")


def test_range_zero_step_is_a_value_error():
    assert issubclass(errors.ConstantValueError, ValueError)
    assert issubclass(errors.ConstantValueError, errors.CompileError)


def k_index(out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    out[i] = i


def test_special_registers_are_int64():
    d = cuda.compile_stages(k_index, "void(int64[::1])", stages=("typed", "ptx"))
    typed = d["typed"]
    for reg in ("cuda.blockIdx.x", "cuda.blockDim.x", "cuda.threadIdx.x"):
        assert re.search(r'getattr %\d+, "\w"\s+: int64 \[' + re.escape(reg) + r"\]", typed), typed
    # The 64-bit index is one widening multiply-add of the 32-bit registers,
    # as nvcc emits it; no 64-bit multiplication.
    ptx = d["ptx"]
    assert "mad.wide.u32" in ptx or "mul.wide.u32" in ptx, ptx
    assert "mul.lo.s64" not in ptx and "mul.lo.u64" not in ptx, ptx
