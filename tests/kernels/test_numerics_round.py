"""round(x, ndigits) against CPython: floats (float16/32/64: the exact value
of x rounded half-to-even to ndigits decimals, converted back to x's type,
like CPython's round(float(x), n)), every ndigits (huge ones give x, very
negative ones +-0), and integers of every width (wrapping like other
integer arithmetic)."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda

SENTINEL = 12345.0


@cuda.jit
def round_n(x, n, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i], n[i])


@cuda.jit
def round_const(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = round(x[i], 400)
        out[i, 1] = round(x[i], -400)
        out[i, 2] = round(x[i], 2)
        out[i, 3] = round(x[i], -1)


def python_round(v, n):
    """CPython's round(float(v), n); inf where CPython raises OverflowError
    (the rounded value does not fit: documented)."""
    try:
        return round(v, n)
    except OverflowError:
        return math.copysign(math.inf, v)


def float_cases(rng, ft):
    fi = np.finfo(ft)
    xs, ns = [], []
    # Values with few decimals sit exactly on ties in decimal (2.675, 0.125):
    # the binary value decides, as in CPython.
    ties = [0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 2.675, 1.005, -1.005,
            0.285, 1234.5, 1e-5, 12345.678, 0.0, -0.0, np.inf, -np.inf, np.nan,
            float(fi.max), -float(fi.max), float(fi.tiny), float(fi.smallest_subnormal)]
    for n in [-400, -309, -308, -300, -30, -23, -22, -5, -2, -1, 0, 1, 2, 3, 5,
              10, 15, 16, 17, 22, 23, 30, 300, 308, 309, 323, 324, 400, 2**40]:
        xs += ties
        ns += [n] * len(ties)
    with np.errstate(over="ignore"):
        mags = np.exp2(rng.uniform(-30, min(60, math.log2(float(fi.max))), 6000))
        rand = (mags * rng.choice([-1, 1], mags.size)).astype(ft)
    xs += [float(v) for v in rand]
    ns += [int(k) for k in rng.integers(-25, 26, rand.size)]
    x = np.array(xs, np.float64).astype(ft)
    return x, np.array(ns, np.int64)


@pytest.mark.parametrize("ft", [np.float16, np.float32, np.float64],
                         ids=lambda t: t.__name__)
def test_round_ndigits_matches_cpython(rng, ft):
    x, n = float_cases(rng, ft)
    out = np.full(x.size, SENTINEL, ft)
    round_n[(x.size + 127) // 128, 128](x, n, out)
    with np.errstate(over="ignore"):
        want = np.array([python_round(float(v), int(k)) for v, k in zip(x, n)]).astype(ft)
    same = ((out == want) & (np.signbit(out) == np.signbit(want))) | (np.isnan(out) & np.isnan(want))
    # Exactly CPython's result for |ndigits| <= 22 (powers of ten are exact
    # there) and wherever ndigits leaves nothing to round; within two units
    # in the last place otherwise.
    exact = (np.abs(n) <= 22) | (n > 323) | (n < -308)
    with np.errstate(over="ignore", invalid="ignore"):
        ulp = np.spacing(np.abs(want).astype(ft)).astype(np.float64)
        near = np.abs(out.astype(np.float64) - want) <= 2 * ulp
    ok = same | (~exact & near)
    bad = np.nonzero(~ok)[0]
    assert bad.size == 0, [(x[k], n[k], out[k], want[k]) for k in bad[:8]]


def test_round_constant_ndigits(rng):
    x = np.concatenate([[1e300, -1.7e308, 0.5, -0.0, 2.675, 15.0, 25.0],
                        rng.standard_normal(100) * 1e3])
    out = np.full((x.size, 4), SENTINEL)
    round_const[1, 128](x, out)
    want = [[python_round(float(v), k) for k in (400, -400, 2, -1)] for v in x]
    np.testing.assert_array_equal(out, want)
    assert np.signbit(out[3, :]).all() and np.signbit(out[1, 1])


INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
             np.uint32, np.uint64]


@pytest.mark.parametrize("it", INT_TYPES, ids=lambda t: t.__name__)
def test_round_int_ndigits(rng, it):
    info = np.iinfo(it)
    edge = [info.min, info.max, info.min + 1, info.max - 1, 0, 1, 5, 15, 25, 35,
            -5, -15, -25, 45, 50, 150, 250, 12345, -12345, 5 * 10**18, -5 * 10**18,
            15 * 10**17, 9 * 10**18]
    edge = [v for v in edge if info.min <= v <= info.max]
    xs = edge * 6 + [int(v) for v in rng.integers(info.min, info.max, 2000, dtype=it, endpoint=True)]
    ns = sum([[k] * len(edge) for k in (-1, -2, -3, -19, -20, 3)], [])
    ns += [int(k) for k in rng.integers(-21, 3, 2000)]
    x = np.array(xs, it)
    n = np.array(ns, np.int64)
    out = np.full(x.size, 7, it)
    round_n[(x.size + 127) // 128, 128](x, n, out)
    bits = 8 * np.dtype(it).itemsize
    want = [round(int(v), int(k)) % 2**bits for v, k in zip(x, n)]
    want = np.array(want, np.uint64).astype(it)  # wrap like the kernel's arithmetic
    bad = np.nonzero(out != want)[0]
    assert bad.size == 0, [(x[k], n[k], out[k], want[k]) for k in bad[:8]]
