"""`is` / `is not` between values, `in` / `not in` on tuples and ranges,
and isinstance() in kernels, as
numba-cuda has them: `is` between two values of the same immutable type
(bools, numbers) compares them (numba falls back to ==), between values of
different types it is False, and with None it is answered from the types;
isinstance(x, cls) is answered when the kernel compiles, from x's type
(numba-cuda: int means int64, float float64, np.float32 exactly float32)."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors, float32, int32

from gpu_util import poisoned


@cuda.jit
def identity(flags, a, b, out):
    i = cuda.grid(1)
    if i < flags.size:
        f = flags[i]
        x = a[i]
        y = b[i]
        r = 0
        if f is True:
            r += 1
        if f is not False:
            r += 10
        if x is y:  # same type (int32): compared
            r += 100
        if x is not y:
            r += 1000
        if x is float32(y):  # different types: never the same object
            r += 10000
        if None is not x:
            r += 100000
        out[i] = r


def test_is_between_bools_numbers_and_none(rng):
    n = 300
    flags = rng.integers(0, 2, n).astype(np.bool_)
    a = rng.integers(0, 4, n).astype(np.int32)
    b = rng.integers(0, 4, n).astype(np.int32)
    out = poisoned(n, np.int64)
    identity[2, 256](flags, a, b, out)
    want = (flags * 11) + np.where(a == b, 100, 1000) + 100000
    np.testing.assert_array_equal(out, want)


@cuda.jit
def kinds(x, y, z, out):
    out[0] = isinstance(x, int)
    out[1] = isinstance(x, float)
    out[2] = isinstance(y, float)
    out[3] = isinstance(z, np.float32)
    out[4] = isinstance(z, (int, np.float32))
    out[5] = isinstance(z, (int, float))
    out[6] = isinstance(int32(x), int)
    out[7] = isinstance(x < y, bool)
    out[8] = isinstance(complex(y, 1.0), complex)
    if isinstance(z, np.float32):
        out[9] = z * 2
    else:
        out[9] = -1


def test_isinstance_answers_from_types():
    out = poisoned(10, np.float64)
    kinds[1, 1](7, 2.5, np.float32(1.25), out)
    # int means int64, float float64, as numba-cuda types them
    np.testing.assert_array_equal(out, [1, 0, 1, 1, 1, 0, 0, 1, 1, 2.5])


def test_is_with_a_number_literal_is_refused():
    @cuda.jit
    def k(a, out):
        out[0] = a[0] is 3  # noqa: F632

    with pytest.raises(errors.TypingError, match="'is' compares") as e:
        k[1, 1](np.zeros(1, np.int64), np.zeros(1, np.bool_))
    assert "a[0] is 3" in e.value.source_line()


def test_isinstance_of_a_non_class_is_refused():
    @cuda.jit
    def k(a, out):
        out[0] = isinstance(a[0], 3)

    with pytest.raises(errors.TypingError, match="isinstance") as e:
        k[1, 1](np.zeros(1, np.int64), np.zeros(1, np.bool_))
    assert "isinstance(a[0], 3)" in e.value.source_line()


PRIMES = (2, 3, 5, 7, 11, 13)


@cuda.jit
def membership(a, lo, hi, step, out):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        r = 0
        if v in PRIMES:
            r += 1
        if v not in (np.int8(4), 6.0, np.uint16(9)):  # mixed element types
            r += 10
        if v in range(lo, hi, step):
            r += 100
        if v in range(hi, lo, -step):  # a descending range
            r += 1000
        if v in range(hi):
            r += 10000
        out[i] = r


def test_in_tuples_and_ranges(rng):
    n = 500
    a = rng.integers(-30, 30, n).astype(np.int32)
    lo, hi, step = -13, 17, 3
    out = poisoned(n, np.int64)
    membership[2, 256](a, lo, hi, step, out)
    want = [(v in PRIMES) + 10 * (v not in (4, 6.0, 9)) + 100 * (v in range(lo, hi, step))
            + 1000 * (v in range(hi, lo, -step)) + 10000 * (v in range(hi)) for v in a.tolist()]
    np.testing.assert_array_equal(out, want)


def test_in_a_tuple_of_non_numbers_is_refused():
    @cuda.jit
    def k(a, out):
        out[0] = a[0] in (1, None)

    with pytest.raises(errors.TypingError, match="'in' compares") as e:
        k[1, 1](np.zeros(1, np.int64), np.zeros(1, np.bool_))
    assert "a[0] in (1, None)" in e.value.source_line()
