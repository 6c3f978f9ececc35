"""cmath's inverse trigonometric and hyperbolic functions (acos, asin, atan,
acosh, asinh, atanh) and NumPy's complex arccos ... arctanh against CPython's
cmath: infinities, NaNs and the signs of zeros exactly (C99 Annex G, both
sides of every branch cut), finite values within a bound in units in the
last place of the result's larger part (ULPS below).

Where CPython raises (atanh(+-1), atan(+-1j): ValueError) the kernel returns
C99's value: an infinite real (or imaginary) part."""
import cmath
import math

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda

INF, NAN = math.inf, math.nan
NAMES = ["acos", "asin", "atan", "acosh", "asinh", "atanh"]
DTYPES = [np.complex128, np.complex64]
# The largest error allowed, in ulps of max(|re|, |im|) of CPython's value
# rounded to the kernel's type.  Measured on the CPU executor (the host's
# libm, as CPython): 0 (float64) and 2 (float32) on 37,725 inputs; on the
# GPU libdevice's asinh / atan2 / log1p / hypot add their own 1-2 ulps.
ULPS = {np.complex128: 8, np.complex64: 8}


@cuda.jit
def inverse_kernel(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i]
        out[i, 0] = cmath.acos(w)
        out[i, 1] = cmath.asin(w)
        out[i, 2] = cmath.atan(w)
        out[i, 3] = cmath.acosh(w)
        out[i, 4] = cmath.asinh(w)
        out[i, 5] = cmath.atanh(w)


@cuda.jit
def numpy_kernel(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i]
        out[i, 0] = np.arccos(w)
        out[i, 1] = np.arcsin(w)
        out[i, 2] = np.arctan(w)
        out[i, 3] = np.arccosh(w)
        out[i, 4] = np.arcsinh(w)
        out[i, 5] = np.arctanh(w)


def parts_grid(parts, dt):
    re, im = np.meshgrid(np.array(parts), np.array(parts))
    z = np.empty(re.size, dt)
    z.real = re.ravel()  # part by part: re + 1j * inf would make a NaN real part
    z.imag = im.ravel()
    return z


def reference(name, w, dt):
    """CPython's value rounded to the kernel's type, or C99's where CPython
    raises (only at the poles of atanh and atan)."""
    try:
        r = getattr(cmath, name)(w)
    except ValueError:
        if name == "atanh":  # +-1 +- 0j
            r = complex(math.copysign(INF, w.real), w.imag)
        else:  # atan(+-0 +- 1j) = -i atanh(i z)
            r = complex(w.real, math.copysign(INF, w.imag))
    if dt == np.complex64:
        f = np.float32
        with np.errstate(over="ignore", under="ignore"):
            return complex(f(r.real), f(r.imag))
    return r


def ulp_error(got, want, dt):
    """The larger part error in ulps of the result's larger part; 0 for equal
    non-finite parts and for zeros of the same sign; inf for a mismatch of
    class (NaN, infinity, zero sign)."""
    ftype = np.float64 if dt == np.complex128 else np.float32
    finite = [abs(p) for p in (want.real, want.imag) if math.isfinite(p)]
    unit = float(np.spacing(ftype(max(finite, default=0.0))))
    worst = 0.0
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if math.isnan(w) or math.isinf(w):
            if not ((math.isnan(g) and math.isnan(w)) or g == w):
                return INF
        elif not math.isfinite(g):
            return INF
        elif w == 0 and g == 0:
            if math.copysign(1, g) != math.copysign(1, w):
                return INF
        else:
            worst = max(worst, abs(g - w) / unit)
    return worst


def run_and_compare(kernel, z, dt):
    out = poisoned((z.size, len(NAMES)), dt)
    kernel[(z.size + 127) // 128, 128](z, out)
    bad, worst = [], 0.0
    for k, v in enumerate(z):
        w = complex(v)
        for j, name in enumerate(NAMES):
            want = reference(name, w, dt)
            e = ulp_error(complex(out[k, j]), want, dt)
            worst = max(worst, e)
            if e > ULPS[dt]:
                bad.append((name, w, complex(out[k, j]), want, e))
    assert not bad, f"{len(bad)} mismatches (ulps), e.g. {bad[:8]}"
    return worst


SPECIAL = [-INF, -1e300, -3.0, -1.0, -0.5, -1e-310, -0.0, 0.0, 1e-310, 0.5, 1.0,
           3.0, 1e300, INF, NAN]
SPECIAL32 = [-INF, -3e38, -3.0, -1.0, -0.5, -1e-40, -0.0, 0.0, 1e-40, 0.5, 1.0,
             3.0, 3e38, INF, NAN]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_special_values_and_signed_zeros(dt):
    # Every pair of infinities, NaNs, signed zeros, the poles +-1, subnormal
    # and huge parts (the overflow-free paths) and values on the cuts.
    z = parts_grid(SPECIAL if dt == np.complex128 else SPECIAL32, dt)
    run_and_compare(inverse_kernel, z, dt)


def random_inputs(rng, dt, n=2000):
    top = 1000 if dt == np.complex128 else 120
    mag = np.exp2(rng.uniform(-30, 30, (2, n)))
    sign = rng.choice([-1.0, 1.0], (2, n))
    general = mag[0] * sign[0] + 1j * mag[1] * sign[1]
    # On and next to the branch cuts: the real axis beyond +-1 (acos, asin,
    # atanh), below 1 (acosh), the imaginary axis beyond +-i (asinh, atan),
    # with +-0 and tiny parts on the other side.
    t = rng.uniform(-4, 4, n // 4)
    tiny = rng.choice([0.0, -0.0, 1e-12, -1e-12], n // 4)
    cuts = np.concatenate([t + 1j * tiny, tiny + 1j * t])
    cuts.real[n // 4:] = tiny  # keep the sign of a zero real part
    # Near the branch points +-1 and +-i, and huge values (|z| > sqrt(max/4)).
    pts = rng.choice([1, -1, 1j, -1j], n // 4) * (1 + rng.uniform(-1e-7, 1e-7, n // 4))
    huge = np.exp2(rng.uniform(top - 20, top + 7, (2, n // 8))) * rng.choice([-1, 1], (2, n // 8))
    z = np.empty(general.size + cuts.size + pts.size + n // 8, dt)
    with np.errstate(over="ignore"):
        z[: general.size] = general
        z[general.size: general.size + cuts.size].real = cuts.real
        z[general.size: general.size + cuts.size].imag = cuts.imag
        z[general.size + cuts.size: -(n // 8)] = pts
        z[-(n // 8):].real = huge[0]
        z[-(n // 8):].imag = huge[1]
    return z[np.isfinite(z)]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_random_values_within_ulps(rng, dt):
    run_and_compare(inverse_kernel, random_inputs(rng, dt), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_numpy_complex_inverse_ufuncs_are_cmath(rng, dt):
    # np.arccos(z) ... np.arctanh(z) of a complex compute cmath's function.
    z = np.concatenate([parts_grid(SPECIAL if dt == np.complex128 else SPECIAL32, dt),
                        random_inputs(rng, dt, 400)])
    run_and_compare(numpy_kernel, z, dt)
    # And NumPy agrees with CPython on finite values (its own cacos ...).
    finite = z[np.isfinite(z) & (np.abs(z) < 1e30)]
    out = poisoned((finite.size, len(NAMES)), dt)
    numpy_kernel[(finite.size + 127) // 128, 128](finite, out)
    funcs = [np.arccos, np.arcsin, np.arctan, np.arccosh, np.arcsinh, np.arctanh]
    with np.errstate(all="ignore"):
        want = np.stack([f(finite) for f in funcs], axis=1)
    ok = np.isfinite(want)
    rtol = 1e-13 if dt == np.complex128 else 2e-5
    scale = np.maximum(np.abs(want.real), np.abs(want.imag))[ok]
    assert np.all(np.abs(out[ok] - want[ok]) <= rtol * scale + 1e-300)


@cuda.jit
def scalar_types(out):
    out[0] = cmath.acos(0.5)  # a float argument is a complex with 0j
    out[1] = cmath.atanh(2)   # an int too: the cut's lower side, -0j
    out[2] = cmath.asinh(complex(0.0, -2.0))


def test_real_arguments_are_complex_with_a_positive_zero():
    out = poisoned(3, np.complex128)
    scalar_types[1, 1](out)
    # (-2j in Python is -0.0 - 2j: the other side of asinh's cut.)
    wants = [cmath.acos(0.5), cmath.atanh(2), cmath.asinh(complex(0.0, -2.0))]
    for k, want in enumerate(wants):
        assert ulp_error(complex(out[k]), want, np.complex128) <= 2
