"""cmath functions and complex arithmetic against CPython on a grid of
special values (signed zeros, infinities, NaNs and finite values in both
parts), for complex128 and complex64: CPython's values (C99 Annex G) --
infinities, zeros and their signs exactly, NaN as NaN (its sign is not
compared), finite values to a few units in the last place.

Where CPython raises (ValueError, OverflowError, ZeroDivisionError), a
kernel cannot; it returns the IEEE value instead, which has a NaN or an
infinity in it (docs/language.md)."""
import cmath
import math

import numpy as np
import pytest

from pycuda_jit import cuda

INF, NAN = math.inf, math.nan
SENTINEL = 12345 + 678j

UNARY = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "rect"]
REAL = ["phase", "polar.r", "polar.phi", "abs"]
FLAGS = ["isnan", "isinf", "isfinite"]


@cuda.jit
def cmath_unary(z, out, real_out, flags):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i]
        out[i, 0] = cmath.exp(w)
        out[i, 1] = cmath.log(w)
        out[i, 2] = cmath.log10(w)
        out[i, 3] = cmath.sqrt(w)
        out[i, 4] = cmath.sin(w)
        out[i, 5] = cmath.cos(w)
        out[i, 6] = cmath.tan(w)
        out[i, 7] = cmath.sinh(w)
        out[i, 8] = cmath.cosh(w)
        out[i, 9] = cmath.tanh(w)
        out[i, 10] = cmath.rect(w.real, w.imag)
        real_out[i, 0] = cmath.phase(w)
        r, phi = cmath.polar(w)
        real_out[i, 1] = r
        real_out[i, 2] = phi
        real_out[i, 3] = abs(w)
        flags[i, 0] = cmath.isnan(w)
        flags[i, 1] = cmath.isinf(w)
        flags[i, 2] = cmath.isfinite(w)


def python_unary(name, z):
    if name == "rect":
        return cmath.rect(z.real, z.imag)
    return getattr(cmath, name)(z)


def python_real(name, z):
    if name == "phase":
        return cmath.phase(z)
    if name == "abs":
        return abs(z)
    r, phi = cmath.polar(z)
    return r if name == "polar.r" else phi


BIN_OPS = ["/", "**", "*"]


@cuda.jit
def cmath_binary(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] / b[i]
        out[i, 1] = a[i] ** b[i]
        out[i, 2] = a[i] * b[i]


CONST_POWERS = [0, 1, 2, 3, 5, 7, -1, -2, -3, 100, -100, 101, 0.5, -1.5]


@cuda.jit
def cmath_const_pow(a, out):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i]
        out[i, 0] = z ** 0
        out[i, 1] = z ** 1
        out[i, 2] = z ** 2
        out[i, 3] = z ** 3
        out[i, 4] = z ** 5
        out[i, 5] = z ** 7
        out[i, 6] = z ** -1
        out[i, 7] = z ** -2
        out[i, 8] = z ** -3
        out[i, 9] = z ** 100
        out[i, 10] = z ** -100
        out[i, 11] = z ** 101
        out[i, 12] = z ** 0.5
        out[i, 13] = z ** -1.5


def grid(parts, dt):
    """Every combination of the parts as (real, imag); set part by part, as
    re + 1j * im would turn an infinite im into a NaN real part."""
    re, im = np.meshgrid(np.array(parts), np.array(parts))
    z = np.empty(re.size, dt)
    with np.errstate(over="ignore"):
        z.real = re.ravel()
        z.imag = im.ravel()
    return z


PARTS = [-INF, -800.0, -30.0, -2.0, -1.0, -0.5, -1e-3, -0.0, 0.0, 1e-3, 0.5,
         1.0, 2.0, 30.0, 800.0, INF, NAN]
SMALL_PARTS = [-INF, -2.0, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0, INF, NAN]


class Mismatches:
    """Compares kernel results with CPython's: NaN and infinities (with
    their sign) exactly; finite parts to rtol of the result's largest part
    (so an exact zero may come out as a tiny residual of a fused
    multiply-add, as nvcc's default contraction allows); the signs of zeros
    exactly when `zero_signs` (complex64 results of products with rounded
    sines lose them: cos(pi/2) is not 0 in either precision)."""

    def __init__(self, dt, zero_signs=True):
        self.dt = dt
        self.rtol = 4e-14 if dt == np.complex128 else 4e-6
        self.ftype = np.float64 if dt == np.complex128 else np.float32
        self.zero_signs = zero_signs
        self.bad = []

    def reference(self, fn, *args):
        """CPython's value on the widened inputs, rounded to the kernel's
        type; None where CPython raises; SKIP where the value lies beyond
        the kernel type's range (complex64's float32 parts overflow or
        underflow where CPython's doubles do not)."""
        try:
            r = fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError):
            return None
        parts = [r.real, r.imag] if isinstance(r, complex) else [r]
        info = np.finfo(self.ftype)
        if any(math.isfinite(p) and (abs(p) > info.max or 0 < abs(p) < info.tiny)
               for p in parts):
            return SKIP
        with np.errstate(over="ignore", under="ignore"):
            if isinstance(r, complex):
                return complex(np.array(r, self.dt))
            return float(np.array(r, self.ftype))

    def check(self, what, args, got, want):
        if want is SKIP:
            return
        got_parts = [got.real, got.imag] if isinstance(got, complex) else [got]
        if want is None:
            # CPython raises: the kernel's value has a NaN or an infinity.
            if all(math.isfinite(p) for p in got_parts):
                self.bad.append((what, args, got, "CPython raises"))
            return
        want_parts = [want.real, want.imag] if isinstance(want, complex) else [want]
        scale = max((abs(w) for w in want_parts if math.isfinite(w)), default=0.0)
        for g, w in zip(got_parts, want_parts):
            if math.isnan(w) or math.isinf(w):
                ok = (math.isnan(g) and math.isnan(w)) or g == w
            else:
                ok = math.isfinite(g) and abs(g - w) <= self.rtol * scale
                if ok and g == 0 and w == 0 and self.zero_signs:
                    ok = math.copysign(1, g) == math.copysign(1, w)
            if not ok:
                self.bad.append((what, args, got, want))
                return

    def assert_none(self):
        assert not self.bad, f"{len(self.bad)} mismatches, e.g. {self.bad[:10]}"


SKIP = object()


DTYPES = [np.complex128, np.complex64]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_cmath_functions_special_values(dt):
    z = grid(PARTS, dt)
    out = np.full((z.size, len(UNARY)), SENTINEL, dt)
    rdt = np.float64 if dt == np.complex128 else np.float32
    real_out = np.full((z.size, len(REAL)), 12345.0, rdt)
    flags = np.full((z.size, len(FLAGS)), 7, np.uint8).view(np.bool_)
    cmath_unary[(z.size + 63) // 64, 64](z, out, real_out, flags)
    m = Mismatches(dt)
    for k, v in enumerate(z):
        w = complex(v)
        for j, name in enumerate(UNARY):
            m.check(name, w, complex(out[k, j]), m.reference(python_unary, name, w))
        for j, name in enumerate(REAL):
            m.check(name, w, float(real_out[k, j]), m.reference(python_real, name, w))
        for j, name in enumerate(FLAGS):
            if flags.view(np.uint8)[k, j] != getattr(cmath, name)(w):
                m.bad.append((name, w, flags.view(np.uint8)[k, j]))
    m.assert_none()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_cmath_functions_random_values(rng, dt):
    # Finite values of every magnitude, including where cosh/exp of the real
    # part overflow but the result does not, and near |z| = 1 for log.
    n = 3000
    mag = np.exp2(rng.uniform(-20, 12 if dt == np.complex64 else 12, (2, n)))
    sign = rng.choice([-1.0, 1.0], (2, n))
    z = (mag[0] * sign[0] + 1j * mag[1] * sign[1])
    near_one = np.exp(1j * rng.uniform(-4, 4, 500)) * (1 + rng.uniform(-1e-6, 1e-6, 500))
    z = np.concatenate([z, near_one]).astype(dt)
    out = np.full((z.size, len(UNARY)), SENTINEL, dt)
    rdt = np.float64 if dt == np.complex128 else np.float32
    real_out = np.full((z.size, len(REAL)), 12345.0, rdt)
    flags = np.zeros((z.size, len(FLAGS)), np.bool_)
    cmath_unary[(z.size + 63) // 64, 64](z, out, real_out, flags)
    m = Mismatches(dt)
    m.rtol *= 4  # trigonometric functions of large arguments
    for k, v in enumerate(z):
        w = complex(v)
        for j, name in enumerate(UNARY):
            m.check(name, w, complex(out[k, j]), m.reference(python_unary, name, w))
    m.assert_none()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_complex_division_power_product_special_values(dt):
    z = grid(SMALL_PARTS, dt)
    a = np.repeat(z, z.size)
    b = np.tile(z, z.size)
    out = np.full((a.size, len(BIN_OPS)), SENTINEL, dt)
    cmath_binary[(a.size + 127) // 128, 128](a, b, out)
    m = Mismatches(dt, zero_signs=dt == np.complex128)
    ops = {"/": lambda x, y: x / y, "**": lambda x, y: x ** y, "*": lambda x, y: x * y}
    for k in range(a.size):
        x, y = complex(a[k]), complex(b[k])
        for j, op in enumerate(BIN_OPS):
            m.check(op, (x, y), complex(out[k, j]), m.reference(ops[op], x, y))
    m.assert_none()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_complex_power_integral_exponents(rng, dt):
    # Integral exponents up to 100 in magnitude multiply (as CPython does),
    # whether the exponent is a constant or a run-time value.
    z = np.concatenate([grid(SMALL_PARTS, dt),
                        (rng.standard_normal(300) + 1j * rng.standard_normal(300)).astype(dt)])
    out = np.full((z.size, len(CONST_POWERS)), SENTINEL, dt)
    cmath_const_pow[(z.size + 127) // 128, 128](z, out)
    e = np.array([complex(p) for p in CONST_POWERS], dt)
    a = np.repeat(z, e.size)
    b = np.tile(e, z.size)
    run = np.full((a.size, len(BIN_OPS)), SENTINEL, dt)
    cmath_binary[(a.size + 127) // 128, 128](a, b, run)
    m = Mismatches(dt, zero_signs=dt == np.complex128)
    m.rtol *= 50  # 100 multiplications
    for k, v in enumerate(z):
        w = complex(v)
        for j, p in enumerate(CONST_POWERS):
            want = m.reference(lambda x, y: x ** y, w, p)
            m.check(f"** {p}", w, complex(out[k, j]), want)
            m.check(f"** run-time {p}", w, complex(run[k * e.size + j, 1]), want)
    m.assert_none()


@cuda.jit
def issue_examples(out):
    out[0] = cmath.cos(complex(0.0, -math.inf))
    out[1] = cmath.rect(0.0, -math.inf)
    out[2] = 0j ** 0j
    z = complex(0.0, 0.0)
    out[3] = z ** z


def test_issue_examples():
    out = np.full(4, SENTINEL)
    issue_examples[1, 1](out)
    assert out[0] == complex(INF, 0) and math.copysign(1, out[0].imag) == 1
    assert out[1] == 0j
    assert out[2] == 1 and out[3] == 1


@cuda.jit
def builtin_pow(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = pow(a[i], b[i])


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_builtin_pow_of_complex_is_the_power_operator(rng, dt):
    # pow(a, b) computes a ** b (the operator's special values and all).
    a = (rng.standard_normal(200) + 1j * rng.standard_normal(200)).astype(dt)
    b = (rng.standard_normal(200) + 1j * rng.standard_normal(200)).astype(dt)
    via_pow = np.full(a.size, SENTINEL, dt)
    builtin_pow[2, 128](a, b, via_pow)
    via_op = np.full((a.size, len(BIN_OPS)), SENTINEL, dt)
    cmath_binary[2, 128](a, b, via_op)
    np.testing.assert_array_equal(via_pow, via_op[:, BIN_OPS.index("**")])


@cuda.jit
def log_base(z, base, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = cmath.log(z[i], base[i])
        out[i, 1] = cmath.log(z[i], 2)  # a literal base adapts to z's type
        out[i, 2] = cmath.log(z[i], base[i].real)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: t.__name__)
def test_cmath_log_with_a_base(rng, dt):
    # cmath.log(z, base) is log(z) / log(base), a complex division.
    n = 400
    z = (rng.standard_normal(n) * 10 + 1j * rng.standard_normal(n)).astype(dt)
    base = (rng.uniform(0.1, 10, n) + 1j * rng.standard_normal(n)).astype(dt)
    out = np.full((n, 3), SENTINEL, dt)
    log_base[(n + 127) // 128, 128](z, base, out)
    m = Mismatches(dt)
    m.rtol *= 4
    for k in range(n):
        w, b = complex(z[k]), complex(base[k])
        m.check("log(z, b)", (w, b), complex(out[k, 0]), m.reference(cmath.log, w, b))
        m.check("log(z, 2)", w, complex(out[k, 1]), m.reference(cmath.log, w, 2))
        m.check("log(z, b.real)", (w, b.real), complex(out[k, 2]),
                m.reference(cmath.log, w, b.real))
    m.assert_none()
