"""What the differential fuzzer (tests/fuzz) found, each case shrunk to a
small kernel.  Expected values come from NumPy / Python, following
docs/language.md; the fuzz seed and kernel that found it are named.

Cases in another workstream's area are xfail(strict=True) with the owner
in the reason ("W2: ..."): they start passing when that work lands, and
the strict marker then asks for the marker to go (with the topic in
tests/fuzz/topics.py).
"""
import numpy as np
import pytest

from pycuda_jit import cuda

from gpu_util import poisoned


def f16_specials(rng, n):
    vals = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.0, 7.0, 1024.5, 65504.0, -65504.0,
                     6.1e-05, 6e-08, np.inf, -np.inf, np.nan], np.float16)
    rand = (rng.standard_normal(n) * 10.0 ** rng.integers(-2, 4, n)).astype(np.float16)
    return np.concatenate([vals, rand])


def same_bits(got, want):
    """Equal as bit patterns, any NaN equal to any NaN."""
    got, want = np.asarray(got), np.asarray(want)
    nan = np.isnan(got) & np.isnan(want)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    return bool(np.all(nan | (got.view(u) == want.view(u))))


def test_float16_floordiv_and_mod(rng):
    # fuzz seed 1 kernel 14: `(-1.0) % x` with x float16 failed to compile
    # (fmodf called with half operands).  NumPy computes float16 // and %
    # in float32 and rounds the results.
    @cuda.jit
    def k(a, b, q, m):
        i = cuda.grid(1)
        if i < a.size:
            q[i] = a[i] // b[i]
            m[i] = a[i] % b[i]

    a = f16_specials(rng, 300)
    b = np.roll(a, 7)
    b[b == 0] = np.float16(0.75)  # x // 0.0 is W2's (below)
    q, m = poisoned(a.size, np.float16), poisoned(a.size, np.float16)
    k[4, 128](a, b, q, m)
    with np.errstate(all="ignore"):
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        assert same_bits(q, np.floor_divide(a32, b32).astype(np.float16))
        assert same_bits(m, np.remainder(a32, b32).astype(np.float16))


def test_float16_power(rng):
    # Same mechanism: `x ** y` with float16 operands called powf with half.
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] ** b[i]

    a = np.abs(f16_specials(rng, 200))
    b = (rng.integers(-8, 9, a.size) / 2).astype(np.float16)
    out = poisoned(a.size, np.float16)
    k[2, 128](a, b, out)
    with np.errstate(all="ignore"):
        want = np.power(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    # powf is within an ulp or two of float32; rounded to float16 that is
    # at most one float16 ulp away.
    with np.errstate(all="ignore"):
        ok = np.isnan(out) & np.isnan(want) | (out == want) | \
            (np.abs(out.astype(np.float64) - want) <= np.abs(np.spacing(want)))
    assert ok.all(), (a[~ok], b[~ok], out[~ok], want[~ok])
