"""A device function that returns None on some paths (a bare `return`,
`return None` or falling off its end) and a number on others returns
numba's OptionalType(T): the caller tests it with `is None` / `is not None`
or its truth, and any other use reads its value, raising TypeError (as
numba-cuda does) when it is None."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit(device=True)
def positive_or_none(x):
    if x > 0:
        return x * 2
    return


@cuda.jit(device=True)
def falls_off_the_end(x):
    if x % 3 == 0:
        return x + 0.5


@cuda.jit
def count_and_sum(a, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        r = positive_or_none(a[i])
        if r is None:
            flags[i] = 0
            out[i] = -1
        else:
            flags[i] = 1
            out[i] = r + 1  # the value, read after the test


def test_is_none_and_the_value(backend, rng):
    a = rng.integers(-50, 50, 300).astype(np.int32)
    out, flags = poisoned(300, np.int64), poisoned(300, np.int8)
    count_and_sum[3, 128](a, out, flags)
    np.testing.assert_array_equal(flags, (a > 0).astype(np.int8))
    np.testing.assert_array_equal(out, np.where(a > 0, 2 * a.astype(np.int64) + 1, -1))


@cuda.jit
def truth_and_is_not(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = falls_off_the_end(a[i])
        out[i, 0] = 1 if r is not None else 0
        out[i, 1] = 1 if r else 0


def test_falling_off_the_end_and_truth(backend, rng):
    a = rng.integers(-20, 20, 64).astype(np.int64)
    a[:3] = [0, 3, 1]
    out = poisoned((64, 2), np.int32)
    truth_and_is_not[1, 64](a, out)
    has = a % 3 == 0
    np.testing.assert_array_equal(out[:, 0], has.astype(np.int32))
    # None is false; a value is true unless it is 0 (x + 0.5 never is)
    np.testing.assert_array_equal(out[:, 1], has.astype(np.int32))


@cuda.jit
def use_without_test(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = positive_or_none(a[i]) * 3  # use-without-test


def test_using_none_raises_type_error(backend, rng):
    a = rng.integers(1, 50, 32).astype(np.int32)
    out = poisoned(32, np.int64)
    use_without_test[1, 32](a, out)
    np.testing.assert_array_equal(out, 6 * a.astype(np.int64))
    a[17] = -4
    with pytest.raises(TypeError, match="expected int32, got None") as info:
        use_without_test[1, 32](a, np.zeros(32, np.int64))
    assert isinstance(info.value, errors.KernelError)
    assert "thread (17, 0, 0)" in str(info.value)


@cuda.jit(device=True)
def pass_through(x):
    return positive_or_none(x)  # an optional returned as it is


@cuda.jit
def through_two_calls(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = pass_through(a[i])
        out[i] = 0 if r is None else r


def test_an_optional_passes_through_device_functions(backend, rng):
    a = rng.integers(-9, 9, 40).astype(np.int32)
    out = poisoned(40, np.int64)
    through_two_calls[1, 40](a, out)
    np.testing.assert_array_equal(out, np.where(a > 0, 2 * a, 0))


def test_declared_result_converts_the_optional():
    # numba-cuda's test_compile_cabi_calling_device_function_returning_optional
    def wrapper(x):
        return positive_or_none(x)

    ptx, resty = cuda.compile_ptx(wrapper, "int32(int32)", device=True, abi="c",
                                  cc=(9, 0))
    assert str(resty) == "int32" and ".func" in ptx


def test_optional_of_an_array_is_refused(backend):
    @cuda.jit(device=True)
    def maybe_row(a, i):
        if i > 0:
            return a[i]
        return None

    @cuda.jit
    def k(a, out):
        r = maybe_row(a, 1)
        out[0] = r[0]

    with pytest.raises(errors.TypingError, match="returns"):
        k[1, 1](np.zeros((2, 2)), np.zeros(1))


@cuda.jit
def not_of_optional(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = positive_or_none(a[i])
        t = not r  # stored: UNARY_NOT before 3.13; None and 0 are false
        out[i] = 1 if t else 0


def test_not_of_an_optional_is_its_truth(backend, rng):
    a = rng.integers(-5, 5, 128).astype(np.int32)
    a[:2] = [0, -3]
    out = poisoned(128, np.int8)
    not_of_optional[1, 128](a, out)
    np.testing.assert_array_equal(out, (a <= 0).astype(np.int8))
