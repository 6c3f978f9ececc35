"""Reference values for tests/kernels/test_libdevice.py, computed independently
of any libm the kernels may call: exact rational arithmetic (fractions) for
everything IEEE rounds exactly, Python integers for the integer functions,
quadrature of the Bessel integrals, bisection on math.erf/erfc for the
inverse error functions."""
import math
from fractions import Fraction

import numpy as np

FORMATS = {"f32": (24, -126, 127), "f64": (53, -1022, 1023)}  # precision, emin, emax


def round_fraction(q, fmt, mode, inexact_above=False):
    """The IEEE value of the exact rational q in format fmt ('f32'/'f64'),
    rounded in mode 'rn', 'rz', 'ru' or 'rd', as a Python float.
    inexact_above: the true value is a hair above q (in magnitude), i.e. q
    is a truncated irrational (sqrt)."""
    p, emin, emax = FORMATS[fmt]
    if q == 0 and not inexact_above:
        return 0.0
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = max(e, emin) - (p - 1)
    m = a / Fraction(2) ** quantum
    lo = m.numerator // m.denominator
    frac = m - lo
    exact = frac == 0 and not inexact_above
    up = {  # round the magnitude up?
        "rz": False,
        "ru": not neg,
        "rd": neg,
    }.get(mode)
    if exact:
        mi = lo
    elif mode == "rn":
        half = Fraction(1, 2)
        if frac > half or (frac == half and inexact_above):
            mi = lo + 1
        elif frac < half:
            mi = lo
        else:
            mi = lo + (lo & 1)
    else:
        mi = lo + 1 if up else lo
    mag = Fraction(mi) * Fraction(2) ** quantum
    maxval = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    if mag > maxval:
        to_inf = mode == "rn" or (mode == "ru" and not neg) or (mode == "rd" and neg)
        r = math.inf if to_inf else float(maxval)
    else:
        r = float(mag)
    return -r if neg else r


def sqrt_fraction(q, fmt, mode):
    """sqrt(q) (q >= 0 rational) rounded in mode."""
    p = FORMATS[fmt][0]
    e = q.numerator.bit_length() - q.denominator.bit_length()
    k = max(0, p + 12 - e // 2)  # the root gets > p + 10 bits
    scaled = q * Fraction(4) ** k
    n = scaled.numerator // scaled.denominator
    r = math.isqrt(n)
    exact = r * r == scaled
    return round_fraction(Fraction(r, 2 ** k), fmt, mode, inexact_above=not exact)


def round_to_int(q, mode):
    """The integer the rational q rounds to in mode (rn: ties to even)."""
    fl = q.numerator // q.denominator
    if q == fl:
        return fl
    if mode == "rd":
        return fl
    if mode == "ru":
        return fl + 1
    if mode == "rz":
        return fl + 1 if q < 0 else fl
    frac = q - fl
    if frac > Fraction(1, 2):
        return fl + 1
    if frac < Fraction(1, 2):
        return fl
    return fl + (fl & 1)


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def unsigned(v, bits):
    return v & ((1 << bits) - 1)


def brev(v, bits):
    return wrap(int(format(unsigned(v, bits), f"0{bits}b")[::-1], 2), bits)


def byte_perm(x, y, s):
    data = unsigned(y, 32) << 32 | unsigned(x, 32)
    r = 0
    for n in range(4):
        sel = (unsigned(s, 32) >> (4 * n)) & 7
        r |= ((data >> (8 * sel)) & 0xFF) << (8 * n)
    return wrap(r, 32)


def sext24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v >> 23 else v


def ffs(v, bits):
    u = unsigned(v, bits)
    return (u & -u).bit_length()


def clz(v, bits):
    return bits - unsigned(v, bits).bit_length()


INT_REFS = {
    "abs": lambda x: wrap(abs(x), 32),
    "llabs": lambda x: wrap(abs(x), 64),
    "brev": lambda x: brev(x, 32),
    "brevll": lambda x: brev(x, 64),
    "byte_perm": byte_perm,
    "clz": lambda x: clz(x, 32),
    "clzll": lambda x: clz(x, 64),
    "ffs": lambda x: ffs(x, 32),
    "ffsll": lambda x: ffs(x, 64),
    "popc": lambda x: bin(unsigned(x, 32)).count("1"),
    "popcll": lambda x: bin(unsigned(x, 64)).count("1"),
    "hadd": lambda x, y: (x + y) >> 1,
    "rhadd": lambda x, y: (x + y + 1) >> 1,
    "uhadd": lambda x, y: wrap((unsigned(x, 32) + unsigned(y, 32)) >> 1, 32),
    "urhadd": lambda x, y: wrap((unsigned(x, 32) + unsigned(y, 32) + 1) >> 1, 32),
    "mul24": lambda x, y: wrap(sext24(x) * sext24(y), 32),
    "umul24": lambda x, y: wrap((x & 0xFFFFFF) * (y & 0xFFFFFF), 32),
    "mulhi": lambda x, y: wrap((x * y) >> 32, 32),
    "umulhi": lambda x, y: wrap((unsigned(x, 32) * unsigned(y, 32)) >> 32, 32),
    "mul64hi": lambda x, y: wrap((x * y) >> 64, 64),
    "umul64hi": lambda x, y: wrap((unsigned(x, 64) * unsigned(y, 64)) >> 64, 64),
    "sad": lambda x, y, z: wrap(abs(x - y) + z, 32),
    "usad": lambda x, y, z: wrap(abs(unsigned(x, 32) - unsigned(y, 32)) + z, 32),
    "max": max, "min": min, "llmax": max, "llmin": min,
    "umax": lambda x, y: x if unsigned(x, 32) > unsigned(y, 32) else y,
    "umin": lambda x, y: x if unsigned(x, 32) < unsigned(y, 32) else y,
    "ullmax": lambda x, y: x if unsigned(x, 64) > unsigned(y, 64) else y,
    "ullmin": lambda x, y: x if unsigned(x, 64) < unsigned(y, 64) else y,
}


def trapezoid_periodic(f, n=400):
    """(1/pi) * integral over [0, pi] of an even 2pi-periodic f (exponentially
    accurate trapezoid rule)."""
    h = math.pi / n
    s = 0.5 * (f(0.0) + f(math.pi)) + math.fsum(f(k * h) for k in range(1, n))
    return s * h / math.pi


def bessel_j(n, x):
    return trapezoid_periodic(lambda t: math.cos(n * t - x * math.sin(t)))


def bessel_i(n, x):
    return trapezoid_periodic(lambda t: math.exp(x * math.cos(t)) * math.cos(n * t))


def bisect(f, target, lo, hi, increasing=True):
    """y in [lo, hi] with f(y) = target (f monotone), to the last bit."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def erfinv_ref(x):
    if x == 0:
        return x
    a = abs(x)
    if a <= 0.5:
        y = bisect(math.erf, a, 0.0, 1.0)
    else:
        y = bisect(math.erfc, 1 - a, 0.0, 30.0, increasing=False)
    return math.copysign(y, x)


def erfcinv_ref(c):
    if c > 1:
        return -erfcinv_ref(2 - c)
    if c >= 0.5:  # erfc loses the digits of y here; 1 - c is exact
        return erfinv_ref(1 - c)
    return bisect(math.erfc, c, 0.0, 30.0, increasing=False)


# 1/sqrt(2) to 60 digits, to find the rounding error of -x/sqrt(2).
INV_SQRT2 = Fraction(math.isqrt(2 * 10 ** 120), 2 * 10 ** 60)


def normcdf_ref(x):
    """erfc(z)/2, z = -x/sqrt(2) taken as the double nearest z plus its exact
    error (erfc' = -2/sqrt(pi) exp(-z^2), to first order)."""
    z = -x * float(INV_SQRT2)
    lo = float(Fraction(-x) * INV_SQRT2 - Fraction(z))
    return 0.5 * (math.erfc(z) - lo * 2 / math.sqrt(math.pi) * math.exp(-z * z))


def normcdfinv_ref(p):
    return -math.sqrt(2) * erfcinv_ref(2 * p)


def erfcx_ref(x):
    if x < 25:  # exp(x^2) with x^2 = hi + lo exactly
        hi = x * x
        lo = float(Fraction(x) ** 2 - Fraction(hi))
        return math.exp(hi) * (1 + lo) * math.erfc(x)
    # Laplace's continued fraction: sqrt(pi) erfcx(x) = 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
    d = x
    for n in range(80, 0, -1):
        d = x + (n / 2) / d
    return 1 / (d * math.sqrt(math.pi))


# sin(pi x), cos(pi x): x reduced exactly (remainder, 1 - a, 1/2 - a) to
# [0, 1/4], where pi * a loses nothing the result keeps.
def sinpi_ref(x):
    r = math.remainder(x, 2.0)
    if r == int(r):
        return math.copysign(0.0, x)
    a = abs(r)
    if a > 0.5:
        a = 1 - a
    s = math.sin(math.pi * a) if a <= 0.25 else math.cos(math.pi * (0.5 - a))
    return math.copysign(s, r)


def cospi_ref(x):
    a = abs(math.remainder(x, 2.0))
    sign = 1.0
    if a > 0.5:
        a, sign = 1 - a, -1.0
    if a == 0.5:
        return 0.0
    return sign * (math.cos(math.pi * a) if a <= 0.25 else math.sin(math.pi * (0.5 - a)))


def round_half_away(x):
    q = Fraction(abs(x))
    return math.copysign(float(math.floor(q + Fraction(1, 2))), x)


def ilogb_ref(x):
    if math.isnan(x) or x == 0:
        return -2 ** 31
    if math.isinf(x):
        return 2 ** 31 - 1
    return math.frexp(x)[1] - 1


def f32_nextafter(x, y):
    return float(np.nextafter(np.float32(x), np.float32(y)))
