"""range() with uint64 values at or above 2**63 (found by review).

`v in range(...)` converted everything to one 64-bit type: with a uint64 `v`
and int64 range fields (or the reverse) a value >= 2**63 wrapped to a
negative number, so `2**63 + 4 in range(0, 2**64 - 1)` was False.  Membership
is now exact for every mix of signedness: a value the other side's type
cannot hold is not in the range.  A range() whose arguments mix uint64 with
a signed type has no 64-bit element type that holds every value Python's
range would produce (its loop variable wrapped to a negative int64), so it
is a TypingError asking for a conversion."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors

from gpu_util import poisoned

U63 = 2**63


@cuda.jit
def contains3(xs, lo, hi, st, out):
    i = cuda.grid(1)
    if i < xs.size:
        out[i] = 1 if xs[i] in range(lo[i], hi[i], st[i]) else 0


def _check(xs, lo, hi, st):
    out = poisoned(xs.size, np.int64)
    contains3[1, 64](xs, lo, hi, st, out)
    expect = [int(int(x) in range(int(a), int(b), int(s))) for x, a, b, s in zip(xs, lo, hi, st)]
    np.testing.assert_array_equal(out, expect)


def test_uint64_value_in_uint64_range_near_the_top(rng):
    base = np.uint64(U63 - 8)
    lo = (base + rng.integers(0, 16, 48).astype(np.uint64)).astype(np.uint64)
    hi = (lo + rng.integers(0, 40, 48).astype(np.uint64)).astype(np.uint64)
    st = rng.integers(1, 5, 48).astype(np.uint64)
    xs = (lo + rng.integers(0, 30, 48).astype(np.uint64)).astype(np.uint64)
    _check(xs, lo, hi, st)


def test_uint64_value_in_int64_range(rng):
    # v uint64 (some >= 2**63), the range's fields int64 (some negative)
    xs = np.concatenate([np.array([U63 + 4, U63, 2**64 - 1, 0, 5, 7], np.uint64),
                         rng.integers(0, 2**64 - 1, 26, dtype=np.uint64, endpoint=True)])
    lo = np.concatenate([np.array([-(2**63), -5, 0, -3, 0, 9], np.int64),
                         rng.integers(-(2**63), 2**63 - 1, 26, dtype=np.int64)])
    hi = np.full(xs.size, 2**63 - 1, np.int64)
    hi[5] = -3
    st = np.ones(xs.size, np.int64)
    st[5] = -1
    _check(xs, lo, hi, st)


def test_int64_value_in_uint64_range(rng):
    # v int64 (some negative), the range's fields uint64 (some >= 2**63)
    xs = np.concatenate([np.array([-1, -(2**63), 4, 2**63 - 1, 0], np.int64),
                         rng.integers(-(2**63), 2**63 - 1, 27, dtype=np.int64)])
    lo = np.concatenate([np.array([0, 0, 0, U63 - 2, 0], np.uint64),
                         rng.integers(0, 2**63, 27, dtype=np.uint64)])
    hi = np.concatenate([np.array([2**64 - 1, 2**64 - 1, 10, U63 + 3, 1], np.uint64),
                         rng.integers(2**63, 2**64 - 1, 27, dtype=np.uint64)])
    st = np.ones(xs.size, np.uint64)
    _check(xs, lo, hi, st)


def test_range_mixing_uint64_and_int64_is_a_typing_error():
    @cuda.jit
    def k(lo, hi, st, out):
        c = 0
        for i in range(lo, hi, st):
            c += 1
        out[0] = c

    out = np.zeros(1, np.int64)
    with pytest.raises(errors.TypingError, match="uint64") as ei:
        k[1, 1](np.uint64(U63 + 1), np.uint64(U63 + 5), np.int64(1), out)
    assert "test_range_mixed_sign.py" in str(ei.value)


def test_uint64_range_with_a_literal_step_and_loop_values_above_2_63():
    @cuda.jit
    def k(lo, hi, out):
        c = 0
        for i in range(lo, hi, 2):
            out[c] = i
            c += 1

    out = poisoned(4, np.uint64)
    k[1, 1](np.uint64(U63 + 1), np.uint64(U63 + 8), out)
    np.testing.assert_array_equal(out, np.array([U63 + 1, U63 + 3, U63 + 5, U63 + 7], np.uint64))
