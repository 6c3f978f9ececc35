"""NumPy scalar functions of complex arguments in kernels, against NumPy:
np.minimum / np.maximum / np.fmin / np.fmax order complex numbers
lexicographically (real part first, then imaginary part); minimum and
maximum propagate a NaN (in either part) of the first argument, then of the
second; fmin and fmax return the other argument where one has a NaN.
np.log2(z) is log(z) / ln 2."""
import math

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda

INF, NAN = math.inf, math.nan
DTYPES = [np.complex128, np.complex64]
FUNCS = [np.minimum, np.maximum, np.fmin, np.fmax]


@cuda.jit
def min_max(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = np.minimum(a[i], b[i])
        out[i, 1] = np.maximum(a[i], b[i])
        out[i, 2] = np.fmin(a[i], b[i])
        out[i, 3] = np.fmax(a[i], b[i])


def parts(values, dt):
    re, im = np.meshgrid(np.array(values), np.array(values))
    z = np.empty(re.size, dt)
    z.real = re.ravel()
    z.imag = im.ravel()
    return z


def same(got, want):
    """Bitwise the same value, except that any NaN matches any NaN in a part."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if math.isnan(w):
            if not math.isnan(g):
                return False
        elif g != w or math.copysign(1, g) != math.copysign(1, w):
            return False
    return True


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_min_max_special_values(dt):
    # Equal real parts, NaNs in either part of either argument, signed zeros
    # and infinities: every pair.
    z = parts([-INF, -1.0, -0.0, 0.0, 1.0, INF, NAN], dt)
    a, b = np.repeat(z, z.size), np.tile(z, z.size)
    out = poisoned((a.size, 4), dt)
    min_max[(a.size + 127) // 128, 128](a, b, out)
    with np.errstate(invalid="ignore"):
        want = np.stack([f(a, b) for f in FUNCS], axis=1)
    bad = [(FUNCS[j].__name__, a[k], b[k], out[k, j], want[k, j])
           for k in range(a.size) for j in range(4)
           if not same(complex(out[k, j]), complex(want[k, j]))]
    assert not bad, f"{len(bad)} mismatches, e.g. {bad[:8]}"


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_min_max_random_values(rng, dt):
    # Small integers make equal real parts common (the imaginary part decides).
    n = 2000
    a = (rng.integers(-3, 4, n) + 1j * rng.standard_normal(n)).astype(dt)
    b = (rng.integers(-3, 4, n) + 1j * rng.standard_normal(n)).astype(dt)
    out = poisoned((n, 4), dt)
    min_max[(n + 127) // 128, 128](a, b, out)
    for j, f in enumerate(FUNCS):
        np.testing.assert_array_equal(out[:, j], f(a, b))


@cuda.jit
def log2_kernel(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = np.log2(z[i])


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_log2_of_complex(rng, dt):
    z = np.concatenate([
        (rng.standard_normal(1000) * np.exp2(rng.uniform(-20, 20, 1000))
         + 1j * rng.standard_normal(1000)).astype(dt),
        parts([-INF, -2.0, -0.0, 0.0, 0.5, INF, NAN], dt)])
    out = poisoned(z.size, dt)
    log2_kernel[(z.size + 127) // 128, 128](z, out)
    with np.errstate(all="ignore"):
        want = np.log2(z)
    fin = np.isfinite(want)
    rtol = 1e-15 if dt == np.complex128 else 1e-6
    scale = np.maximum(np.abs(want.real), np.abs(want.imag))
    assert np.all(np.abs(out[fin] - want[fin]) <= 4 * rtol * scale[fin])
    # Non-finite results: the same infinities, NaN where NumPy has NaN.
    for g, w in zip(out[~fin], want[~fin]):
        for gp, wp in ((g.real, w.real), (g.imag, w.imag)):
            assert (math.isnan(gp) and math.isnan(wp)) or abs(gp - wp) <= 4 * rtol * abs(wp) or gp == wp
