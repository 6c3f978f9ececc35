"""math functions (float32 stays float32; compared with CPython's math)."""
import math

from harness import case

pos = lambda x: x > 0  # noqa: E731
unit = lambda x: -1 <= x <= 1  # noqa: E731
small = lambda x: abs(x) < 50  # noqa: E731


@case("f8", where=lambda x: x >= 0)
def m_sqrt(x):
    return math.sqrt(x)


@case("f8", where=small)
def m_exp(x):
    return math.exp(x) + math.expm1(x)


@case("f8", where=pos)
def m_logs(x):
    return (math.log(x), math.log2(x), math.log10(x), math.log1p(x), math.log(x, 3.0))


@case("f8", where=small)
def m_trig(x):
    return (math.sin(x), math.cos(x), math.tan(x))


@case("f8", where=unit)
def m_inverse_trig(x):
    return (math.asin(x), math.acos(x), math.atan(x))


@case("f8", where=small)
def m_hyperbolic(x):
    return (math.sinh(x), math.cosh(x), math.tanh(x), math.asinh(x))


@case("f8", where=lambda x: x >= 1)
def m_acosh(x):
    return math.acosh(x)


@case("f8", where=lambda x: -1 < x < 1)
def m_atanh(x):
    return math.atanh(x)


@case("f8", where=small)
def m_erf(x):
    return (math.erf(x), math.erfc(x))


@case("f8", where=lambda x: 0 < x < 20)
def m_gamma(x):
    return (math.gamma(x), math.lgamma(x))


@case("f8", "f8")
def m_atan2_hypot(y, x):
    return (math.atan2(y, x), math.hypot(y, x), math.copysign(y, x))


@case("f8", "f8", where=lambda a, b: b != 0)
def m_fmod_remainder(a, b):
    return (math.fmod(a, b), math.remainder(a, b))


@case("f8", "f8", where=lambda a, b: a > 0 and abs(b * math.log(a)) < 700)
def m_pow(a, b):
    return math.pow(a, b)


@case("f8", where=lambda x: abs(x) < 1e9)
def m_floor_ceil_trunc(x):
    return (math.floor(x), math.ceil(x), math.trunc(x))


@case("i8")
def m_floor_of_int(x):
    return math.floor(x) + math.ceil(x)


@case("f8")
def m_classify(x):
    return (math.isnan(x), math.isinf(x), math.isfinite(x))


@case("f8", inputs=[float("nan"), float("inf"), -float("inf"), 1.0])
def m_classify_special(x):
    return (math.isnan(x), math.isinf(x), math.isfinite(x))


@case("f8")
def m_degrees_radians(x):
    return (math.degrees(x), math.radians(x))


@case("f8")
def m_frexp(x):
    m, e = math.frexp(x)
    return (m, e)


@case("f8", "i8", where=lambda x, e: abs(e) < 100)
def m_ldexp(x, e):
    return math.ldexp(x, e)


@case("f8")
def m_modf(x):
    return math.modf(x)


@case("f8", "f8")
def m_nextafter(a, b):
    return math.nextafter(a, b)


@case("f8")
def m_fabs(x):
    return math.fabs(x)


if hasattr(math, "cbrt"):  # Python 3.11+
    @case("f8")
    def m_cbrt(x):
        return math.cbrt(x)


@case("f4", where=lambda x: x >= 0)
def m_f32_sqrt_exp(x):
    return math.sqrt(x) + math.exp(-x) + math.sin(x)


@case("i8", where=lambda x: x >= 0)
def m_int_args(x):
    return math.sqrt(x) + math.log1p(x)


@case()
def m_constants():
    return (math.pi, math.e, math.tau)


@case("f8", where=small)
def m_inf_nan_constants(x):
    return (x < math.inf, x > -math.inf)
