"""Float floor division and modulo follow NumPy exactly (floor_divide,
remainder, divmod), including division by +-0.0 (x // 0.0 is +-inf, x % 0.0
is nan), infinities and NaNs, for float16, float32 and float64."""
import numpy as np
import pytest

from pycuda_jit import cuda

SENTINEL = 12345.0  # not a result of any input below

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 7.0, -2.5, 0.5,
           -0.75, 3.0, 1e-3, -1e-3, 1e4, -1e4, 6e4, -6e4]


def operands(rng, ft):
    s = np.array(SPECIAL, np.float64)
    a, b = np.meshgrid(s, s)
    with np.errstate(over="ignore"):
        ra = rng.standard_normal(2000) * np.exp2(rng.integers(-8, 12, 2000))
        rb = rng.standard_normal(2000) * np.exp2(rng.integers(-8, 12, 2000))
        # Random dividends over special divisors and the reverse.
        sa = rng.choice(s, 2000)
        sb = rng.choice(s, 2000)
        a = np.concatenate([a.ravel(), ra, sa, ra]).astype(ft)
        b = np.concatenate([b.ravel(), rb, rb, sb]).astype(ft)
    return a, b


@cuda.jit
def floor_ops(a, b, q, r, dq, dr):
    i = cuda.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        dq[i], dr[i] = divmod(a[i], b[i])


def assert_same_floats(got, want, a, b, what):
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    same |= np.isnan(got) & np.isnan(want)
    bad = np.nonzero(~same)[0]
    assert bad.size == 0, (what, [(a[k], b[k], got[k], want[k]) for k in bad[:8]])


@pytest.mark.parametrize("ft", [np.float16, np.float32, np.float64],
                         ids=lambda t: t.__name__)
def test_float_floordiv_mod_match_numpy(rng, ft):
    a, b = operands(rng, ft)
    outs = [np.full(a.size, SENTINEL, ft) for _ in range(4)]
    floor_ops[(a.size + 127) // 128, 128](a, b, *outs)
    with np.errstate(all="ignore"):
        wq = np.floor_divide(a, b)
        wr = np.remainder(a, b)
        wdq, wdr = np.divmod(a, b)
    assert wq.dtype == ft
    assert_same_floats(outs[0], wq, a, b, "//")
    assert_same_floats(outs[1], wr, a, b, "%")
    assert_same_floats(outs[2], wdq, a, b, "divmod quotient")
    assert_same_floats(outs[3], wdr, a, b, "divmod remainder")


@cuda.jit
def floordiv_by_zero(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] // 0.0
        out[i, 1] = x[i] // -0.0
        out[i, 2] = x[i] % 0.0


def test_floordiv_by_zero_gives_inf():
    # The examples: 7.0 // 0.0 is inf, -2.5 // 0.0 is -inf.
    x = np.array([7.0, -2.5, 0.0, np.inf])
    out = np.full((4, 3), SENTINEL)
    floordiv_by_zero[1, 32](x, out)
    np.testing.assert_array_equal(out[:, 0], [np.inf, -np.inf, np.nan, np.inf])
    np.testing.assert_array_equal(out[:, 1], [-np.inf, np.inf, np.nan, -np.inf])
    assert np.isnan(out[:, 2]).all()
