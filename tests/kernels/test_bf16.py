"""bfloat16 (cuda.bf16): conversions in every rounding mode, arithmetic,
comparisons and math functions, checked bit for bit against NumPy
references written here from the bit patterns (a bfloat16 is the upper half
of a float32): all 65536 bfloat16 patterns, float32s around every bfloat16,
float64s and integers near rounding boundaries.  NaN results are compared
as NaN (their payload is unspecified: docs/language.md, "bfloat16")."""
import bisect
import math
from fractions import Fraction

import numpy as np
import pytest

from pycuda_jit import cuda, errors, float32
from pycuda_jit.cuda import bf16
from pycuda_jit.cuda.bf16 import bfloat16
from gpu_util import poisoned

MODES = ("rn", "rz", "rd", "ru")
ALL = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)  # every pattern


# ---- references -----------------------------------------------------------------

def bits_to_f32(h):
    f = (np.atleast_1d(np.asarray(h, np.uint16)).astype(np.uint32) << 16).view(np.float32)
    return f if np.ndim(h) else f[0]


def f32_to_bits(x, mode="rn"):
    """float32 -> bfloat16 bits rounded by mode (NaN -> 0x7fff)."""
    x = np.asarray(x, np.float32)
    b = x.view(np.uint32).astype(np.int64)
    hi, lo, neg = b >> 16, b & 0xFFFF, (b >> 31) == 1
    inc = {"rn": (lo > 0x8000) | ((lo == 0x8000) & ((hi & 1) == 1)),
           "rz": np.zeros_like(neg),
           "ru": (lo != 0) & ~neg,
           "rd": (lo != 0) & neg}[mode]
    r = hi + inc
    r[np.isnan(x)] = 0x7FFF
    return r.astype(np.uint16)


def _finite_values():
    v = bits_to_f32(ALL).astype(np.float64)
    keep = np.isfinite(v) & ~((v == 0) & np.signbit(v))
    order = np.argsort(v[keep], kind="stable")
    return [float(x) for x in v[keep][order]], [int(x) for x in ALL[keep][order]]


VALUES, VALUE_BITS = _finite_values()
MAX = VALUES[-1]
TWO_128 = 2.0 ** 128  # the next "value" after the largest: rounds to inf


def exact_to_bits(q, mode="rn"):
    """A Python int or float (compared exactly) -> bfloat16 bits."""
    if isinstance(q, float) and math.isnan(q):
        return 0x7FFF
    neg = q < 0 or (isinstance(q, float) and q == 0 and math.copysign(1, q) < 0)
    a = -q if q < 0 else q
    sign = 0x8000 if neg else 0
    if a == 0:
        return sign
    # toward zero / away from zero, in magnitude
    towards_inf_mode = {"rn": None, "rz": False,
                        "ru": not neg, "rd": neg}[mode]
    if a > MAX:
        lo_bits, hi_bits, lo, hi = 0x7F7F, 0x7F80, MAX, TWO_128
    else:
        i = bisect.bisect_left(VALUES, a)
        if VALUES[i] == a:
            return sign | VALUE_BITS[i]
        lo, hi = VALUES[i - 1], VALUES[i]
        lo_bits, hi_bits = VALUE_BITS[i - 1], VALUE_BITS[i]
    if a == TWO_128 or (isinstance(a, float) and math.isinf(a)):
        return sign | (0x7F80 if towards_inf_mode in (None, True) else 0x7F7F)
    if towards_inf_mode is None:
        d_lo, d_hi = Fraction(a) - Fraction(lo), Fraction(hi) - Fraction(a)
        up = d_hi < d_lo or (d_hi == d_lo and lo_bits & 1)
    else:
        up = towards_inf_mode
    return sign | (hi_bits if up else lo_bits)


def f64_to_bits_rn(r):
    """float64 -> bfloat16 bits to nearest even (vectorized, through a float32
    rounded to odd: correct for every float64)."""
    r = np.asarray(r, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = r.astype(np.float32)
        back = f.astype(np.float64)
    bits = f.view(np.uint32).astype(np.int64)
    away = np.abs(back) > np.abs(r)
    odd = np.where(away, bits - 1, bits) | 1
    exact = (back == r) | np.isnan(r)
    f = np.where(exact, bits, odd).astype(np.uint32).view(np.float32)
    return f32_to_bits(f, "rn")


def assert_bits(got, want, what):
    got, want = np.asarray(got, np.uint16), np.asarray(want, np.uint16)
    gn, wn = np.isnan(bits_to_f32(got)), np.isnan(bits_to_f32(want))
    assert np.array_equal(gn, wn), f"{what}: NaN at different places"
    bad = np.flatnonzero((got != want) & ~wn)
    assert bad.size == 0, (f"{what}: {bad.size} differ, first at {bad[0]}: "
                           f"got {got[bad[0]]:#06x} want {want[bad[0]]:#06x}")


def launch(kernel, n, *args):
    kernel[(n + 255) // 256, 256](*args)


def special_patterns():
    # zeros, subnormals, the smallest normals, one, the largest, inf, NaNs
    return np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80,
                     0xBF80, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1,
                     0x7F81, 0x3F81, 0x4000, 0x0100], np.uint16)


def operand_patterns(rng, n):
    s = special_patterns()
    a = rng.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16)
    a[: s.size * s.size] = np.repeat(s, s.size)[: n]
    b = rng.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16)
    b[: s.size * s.size] = np.tile(s, s.size)[: n]
    # near operands (cancellation, equal values)
    b[-1000:] = a[-1000:] ^ rng.integers(0, 4, 1000, dtype=np.uint32).astype(np.uint16)
    return a, b


# ---- conversions ------------------------------------------------------------------

@cuda.jit
def from_f32_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rn(x[i]))
        out[1, i] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rz(x[i]))
        out[2, i] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rd(x[i]))
        out[3, i] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_ru(x[i]))
        out[4, i] = bf16.bfloat16_as_uint16(bfloat16(x[i]))
        out[5, i] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16(x[i]))


def test_from_float32_every_neighbourhood(rng):
    # each bfloat16 pattern with low halves 0, the ties and either side of
    # them, and random ones: every rounding case of every binade
    lows = [0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF]
    hi = np.tile(ALL.astype(np.uint32), len(lows) + 1)
    lo = np.concatenate([np.full(ALL.size, v, np.uint32) for v in lows] +
                        [rng.integers(0, 1 << 16, ALL.size, dtype=np.uint32)])
    x = ((hi << 16) | lo).view(np.float32)
    out = poisoned((6, x.size), np.uint16)
    launch(from_f32_kernel, x.size, x, out)
    for k, mode in enumerate(MODES):
        assert_bits(out[k], f32_to_bits(x, mode), f"float32_to_bfloat16_{mode}")
    assert_bits(out[4], f32_to_bits(x), "bfloat16(float32)")
    assert_bits(out[5], f32_to_bits(x), "float32_to_bfloat16")


@cuda.jit
def to_types_kernel(h, f, i32, i16, u16, i64, u64, i8, u8):
    i = cuda.grid(1)
    if i < h.size:
        a = bf16.uint16_as_bfloat16(h[i])
        f[i] = bf16.bfloat16_to_float32(a)
        f[h.size + i] = float32(a)
        i32[0, i] = bf16.bfloat16_to_int32_rn(a)
        i32[1, i] = bf16.bfloat16_to_int32_rz(a)
        i32[2, i] = bf16.bfloat16_to_int32_rd(a)
        i32[3, i] = bf16.bfloat16_to_int32_ru(a)
        i16[0, i] = bf16.bfloat16_to_int16_rn(a)
        i16[1, i] = bf16.bfloat16_to_int16_rd(a)
        u16[0, i] = bf16.bfloat16_to_uint16_rn(a)
        u16[1, i] = bf16.bfloat16_to_uint16_ru(a)
        i64[0, i] = bf16.bfloat16_to_int64_rn(a)
        i64[1, i] = bf16.bfloat16_to_int64_ru(a)
        u64[0, i] = bf16.bfloat16_to_uint64_rz(a)
        u64[1, i] = bf16.bfloat16_to_uint64_rd(a)
        i8[i] = bf16.bfloat16_to_int8_rz(a)
        u8[i] = bf16.bfloat16_to_uint8_rz(a)


def int_reference(x, rounding, dtype):
    # round, then saturate to the type's range; NaN -> 0 (PTX cvt)
    info = np.iinfo(dtype)
    r = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[rounding](
        x.astype(np.float64))
    r = np.clip(np.nan_to_num(r, nan=0.0, posinf=np.inf, neginf=-np.inf),
                float(info.min), float(info.max))
    out = np.empty(r.shape, dtype)
    for k, v in enumerate(r):  # exact: float(info.max) of int64 is 2**63
        out[k] = max(info.min, min(info.max, int(v)))
    return out


def test_to_float32_and_integers_every_pattern():
    n = ALL.size
    f = poisoned(2 * n, np.float32)
    i32, i16, u16 = (poisoned((4, n), np.int32), poisoned((2, n), np.int16),
                     poisoned((2, n), np.uint16))
    i64, u64 = poisoned((2, n), np.int64), poisoned((2, n), np.uint64)
    i8, u8 = poisoned(n, np.int8), poisoned(n, np.uint8)
    launch(to_types_kernel, n, ALL, f, i32, i16, u16, i64, u64, i8, u8)
    x = bits_to_f32(ALL)
    nan = np.isnan(x)
    for part in (f[:n], f[n:]):
        assert np.array_equal(np.isnan(part), nan)
        assert np.array_equal(part[~nan].view(np.uint32), x[~nan].view(np.uint32))
    for k, mode in enumerate(MODES):
        np.testing.assert_array_equal(i32[k], int_reference(x, mode, np.int32), mode)
    np.testing.assert_array_equal(i16[0], int_reference(x, "rn", np.int16))
    np.testing.assert_array_equal(i16[1], int_reference(x, "rd", np.int16))
    np.testing.assert_array_equal(u16[0], int_reference(x, "rn", np.uint16))
    np.testing.assert_array_equal(u16[1], int_reference(x, "ru", np.uint16))
    np.testing.assert_array_equal(i64[0], int_reference(x, "rn", np.int64))
    np.testing.assert_array_equal(i64[1], int_reference(x, "ru", np.int64))
    np.testing.assert_array_equal(u64[0], int_reference(x, "rz", np.uint64))
    np.testing.assert_array_equal(u64[1], int_reference(x, "rd", np.uint64))
    np.testing.assert_array_equal(i8, int_reference(x, "rz", np.int8))
    np.testing.assert_array_equal(u8, int_reference(x, "rz", np.uint8))


@cuda.jit
def from_f64_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = bf16.bfloat16_as_uint16(bf16.float64_to_bfloat16(x[i]))
        out[1, i] = bf16.bfloat16_as_uint16(bfloat16(x[i]))


def boundary_doubles(rng, n):
    # bfloat16 midpoints and values, nudged by a few float64 ulps, random
    # doubles of every magnitude, overflow and underflow
    h = rng.integers(0, 1 << 16, n, dtype=np.uint32)
    mid = ((h << 16) | 0x8000).astype(np.uint32).view(np.float32).astype(np.float64)
    nudge = rng.integers(-3, 4, n)
    x = np.nextafter(mid, np.where(nudge < 0, -np.inf, np.inf))
    x = np.where(nudge == 0, mid, x)
    wide = rng.standard_normal(n) * np.exp2(rng.integers(-160, 140, n).astype(np.float64))
    extra = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 1e-300,
                      -1e-300, 3.3895313892515355e38, 3.3961775292304957e38,
                      2.0 ** -134, 2.0 ** -133 * 1.0000001, 2.0 ** -134 * 0.999])
    return np.concatenate([x, wide, extra])


def test_from_float64(rng):
    x = boundary_doubles(rng, 3000)
    out = poisoned((2, x.size), np.uint16)
    launch(from_f64_kernel, x.size, x, out)
    want = np.array([exact_to_bits(float(v)) for v in x], np.uint16)
    assert_bits(out[0], want, "float64_to_bfloat16")
    assert_bits(out[1], want, "bfloat16(float64)")


def int_kernel(dtype_name):
    ns = {"bf16": bf16, "cuda": cuda, "bfloat16": bfloat16}
    calls = "\n".join(
        f"        out[{k}, i] = bf16.bfloat16_as_uint16(bf16.{dtype_name}_to_bfloat16_{m}(x[i]))"
        for k, m in enumerate(MODES))
    src = (f"def k(x, out):\n    i = cuda.grid(1)\n    if i < x.size:\n{calls}\n"
           f"        out[4, i] = bf16.bfloat16_as_uint16(bfloat16(x[i]))\n")
    exec(compile(src, f"<{dtype_name} to bfloat16>", "exec"), ns)
    return cuda.jit(ns["k"])


@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_from_integers(rng, dtype):
    info = np.iinfo(dtype)
    n = 2000
    x = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
    # values just around bfloat16 midpoints at every width: 2**e + 2**(e-8) + d
    e = rng.integers(8, info.bits - (1 if info.min < 0 else 0), n)
    d = rng.integers(-2, 3, n)
    near = [min(info.max, (1 << int(a)) + (1 << int(a - 8)) + int(b)) for a, b in zip(e, d)]
    near = np.array(near, dtype=dtype)
    if info.min < 0:
        near[::2] = -near[::2]
    x = np.concatenate([x, near, np.array([0, 1, info.min, info.max], dtype)])
    out = poisoned((5, x.size), np.uint16)
    int_kernel(dtype)[(x.size + 255) // 256, 256](x, out)
    for k, mode in enumerate(MODES):
        want = np.array([exact_to_bits(int(v), mode) for v in x], np.uint16)
        assert_bits(out[k], want, f"{dtype}_to_bfloat16_{mode}")
    want = np.array([exact_to_bits(int(v)) for v in x], np.uint16)
    assert_bits(out[4], want, f"bfloat16({dtype})")


@cuda.jit
def bitcast_kernel(h, s, out_u, out_s):
    i = cuda.grid(1)
    if i < h.size:
        out_u[i] = bf16.bfloat16_as_uint16(bf16.uint16_as_bfloat16(h[i]))
        out_s[i] = bf16.bfloat16_as_int16(bf16.int16_as_bfloat16(s[i]))


def test_bit_reinterpretation_every_pattern():
    out_u, out_s = poisoned(ALL.size, np.uint16), poisoned(ALL.size, np.int16)
    launch(bitcast_kernel, ALL.size, ALL, ALL.view(np.int16), out_u, out_s)
    np.testing.assert_array_equal(out_u, ALL)
    np.testing.assert_array_equal(out_s, ALL.view(np.int16))


def test_float64_reference_agrees_with_exact():
    # the vectorized float64 reference used below against the exact one
    x = boundary_doubles(np.random.default_rng(5), 500)
    assert_bits(f64_to_bits_rn(x), [exact_to_bits(float(v)) for v in x], "reference")


# ---- arithmetic and comparisons ----------------------------------------------------

@cuda.jit
def arith_kernel(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        x = bf16.uint16_as_bfloat16(a[i])
        y = bf16.uint16_as_bfloat16(b[i])
        z = bf16.uint16_as_bfloat16(c[i])
        out[0, i] = bf16.bfloat16_as_uint16(bf16.hadd(x, y))
        out[1, i] = bf16.bfloat16_as_uint16(bf16.hsub(x, y))
        out[2, i] = bf16.bfloat16_as_uint16(bf16.hmul(x, y))
        out[3, i] = bf16.bfloat16_as_uint16(bf16.hdiv(x, y))
        out[4, i] = bf16.bfloat16_as_uint16(bf16.hfma(x, y, z))
        out[5, i] = bf16.bfloat16_as_uint16(x + y)
        out[6, i] = bf16.bfloat16_as_uint16(x - y)
        out[7, i] = bf16.bfloat16_as_uint16(x * y)
        out[8, i] = bf16.bfloat16_as_uint16(x / y)
        out[9, i] = bf16.bfloat16_as_uint16(bf16.hadd_rn(x, y))
        out[10, i] = bf16.bfloat16_as_uint16(bf16.hsub_rn(x, y))
        out[11, i] = bf16.bfloat16_as_uint16(bf16.hmul_rn(x, y))
        out[12, i] = bf16.bfloat16_as_uint16(bf16.hadd_sat(x, y))
        out[13, i] = bf16.bfloat16_as_uint16(bf16.hsub_sat(x, y))
        out[14, i] = bf16.bfloat16_as_uint16(bf16.hmul_sat(x, y))
        out[15, i] = bf16.bfloat16_as_uint16(bf16.hfma_sat(x, y, z))
        out[16, i] = bf16.bfloat16_as_uint16(bf16.hfma_relu(x, y, z))
        out[17, i] = bf16.bfloat16_as_uint16(bf16.hneg(x))
        out[18, i] = bf16.bfloat16_as_uint16(bf16.habs(x))
        out[19, i] = bf16.bfloat16_as_uint16(-x)
        out[20, i] = bf16.bfloat16_as_uint16(x * y + z)  # two roundings


def fma_bits(x, y, z):
    """bfloat16 bits of x * y + z rounded once, from the exact value: a
    float64 sum of bfloat16 values can itself round onto a false half-way
    point (bfloat16 has float32's exponent range)."""
    out = f64_to_bits_rn(x * y + z)
    for k in np.flatnonzero(np.isfinite(x) & np.isfinite(y) & np.isfinite(z)):
        q = Fraction(float(x[k])) * Fraction(float(y[k])) + Fraction(float(z[k]))
        if q != 0:  # an exact zero keeps float64's signed zero
            out[k] = exact_to_bits(q)
    return out


def test_fma_rounds_once_where_float64_double_rounds():
    # 1.015625 * 1.25 + 2^-133: the float64 sum rounds onto the half-way
    # point between two bfloat16s and ties-to-even went the wrong way on
    # the CPU executor (0x3fa2; fma.rn.bf16 and the exact value: 0x3fa3).
    x = np.array([0x3F82, 0xBF82, 0x3F82], np.uint16)
    y = np.array([0x3FA0, 0x3FA0, 0x3FA0], np.uint16)
    z = np.array([0x0001, 0x8001, 0x8001], np.uint16)
    out = poisoned((21, x.size), np.uint16)
    launch(arith_kernel, x.size, x, y, z, out)
    want = fma_bits(*(bits_to_f32(v).astype(np.float64) for v in (x, y, z)))
    assert want.tolist() == [0x3FA3, 0xBFA3, 0x3FA2]
    assert_bits(out[4], want, "hfma")


@cuda.jit
def to_f16_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = np.float16(bf16.uint16_as_bfloat16(x[i]))


def test_to_float16_every_pattern():
    # bfloat16 -> float16 goes exactly through float32 (LLVM has no direct
    # conversion: it was an internal compiler error), rounded once.
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    out = poisoned(x.size, np.float16)
    launch(to_f16_kernel, x.size, x, out)
    want = bits_to_f32(x).astype(np.float16)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(out), nan)
    np.testing.assert_array_equal(out[~nan].view(np.uint16), want[~nan].view(np.uint16))


def saturate(bits):
    v = bits_to_f32(bits)
    v = np.where(np.isnan(v) | (v <= 0), np.float32(0), np.minimum(v, np.float32(1)))
    return f32_to_bits(v)


def test_arithmetic(rng):
    a, b = operand_patterns(rng, 20000)
    c = rng.integers(0, 1 << 16, a.size, dtype=np.uint32).astype(np.uint16)
    out = poisoned((21, a.size), np.uint16)
    launch(arith_kernel, a.size, a, b, c, out)
    x, y, z = (bits_to_f32(v).astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        # float64 is wide enough that rounding its + - * / (and the fma of
        # an exact 16-bit product) to bfloat16 rounds once
        add, sub, mul, div = (f64_to_bits_rn(x + y), f64_to_bits_rn(x - y),
                              f64_to_bits_rn(x * y), f64_to_bits_rn(x / y))
        fma = fma_bits(x, y, z)
        two = f64_to_bits_rn(bits_to_f32(mul).astype(np.float64) + z)
    for k, want, what in [(0, add, "hadd"), (1, sub, "hsub"), (2, mul, "hmul"),
                          (3, div, "hdiv"), (4, fma, "hfma"), (5, add, "+"),
                          (6, sub, "-"), (7, mul, "*"), (8, div, "/"),
                          (9, add, "hadd_rn"), (10, sub, "hsub_rn"),
                          (11, mul, "hmul_rn"), (20, two, "x * y + z")]:
        assert_bits(out[k], want, what)
    for k, want, what in [(12, add, "hadd_sat"), (13, sub, "hsub_sat"),
                          (14, mul, "hmul_sat"), (15, fma, "hfma_sat")]:
        np.testing.assert_array_equal(out[k], saturate(want), what)
    fv = bits_to_f32(fma)
    relu = np.where(fv < 0, np.uint16(0), fma)
    assert_bits(out[16], relu, "hfma_relu")
    assert_bits(out[17], a ^ np.uint16(0x8000), "hneg")
    assert_bits(out[18], a & np.uint16(0x7FFF), "habs")
    assert_bits(out[19], a ^ np.uint16(0x8000), "-x")


@cuda.jit
def compare_kernel(a, b, out, mm, inf):
    i = cuda.grid(1)
    if i < a.size:
        x = bf16.uint16_as_bfloat16(a[i])
        y = bf16.uint16_as_bfloat16(b[i])
        out[0, i] = bf16.heq(x, y)
        out[1, i] = bf16.hne(x, y)
        out[2, i] = bf16.hlt(x, y)
        out[3, i] = bf16.hle(x, y)
        out[4, i] = bf16.hgt(x, y)
        out[5, i] = bf16.hge(x, y)
        out[6, i] = bf16.hequ(x, y)
        out[7, i] = bf16.hneu(x, y)
        out[8, i] = bf16.hltu(x, y)
        out[9, i] = bf16.hleu(x, y)
        out[10, i] = bf16.hgtu(x, y)
        out[11, i] = bf16.hgeu(x, y)
        out[12, i] = x == y
        out[13, i] = x != y
        out[14, i] = x < y
        out[15, i] = x >= y
        out[16, i] = bf16.hisnan(x)
        mm[0, i] = bf16.bfloat16_as_uint16(bf16.hmax(x, y))
        mm[1, i] = bf16.bfloat16_as_uint16(bf16.hmin(x, y))
        mm[2, i] = bf16.bfloat16_as_uint16(bf16.hmax_nan(x, y))
        mm[3, i] = bf16.bfloat16_as_uint16(bf16.hmin_nan(x, y))
        inf[i] = bf16.hisinf(x)


def test_comparisons_and_max_min(rng):
    a, b = operand_patterns(rng, 20000)
    out = poisoned((17, a.size), np.bool_)
    mm = poisoned((4, a.size), np.uint16)
    inf = poisoned(a.size, np.int32)
    launch(compare_kernel, a.size, a, b, out, mm, inf)
    x, y = bits_to_f32(a), bits_to_f32(b)
    un = np.isnan(x) | np.isnan(y)
    with np.errstate(invalid="ignore"):
        ordered = [x == y, (x != y) & ~un, x < y, x <= y, x > y, x >= y]
    want = ordered + [o | un for o in ordered[:1]] + [x != y] + \
        [o | un for o in ordered[2:]] + [x == y, x != y, x < y, x >= y, np.isnan(x)]
    for k, w in enumerate(want):
        np.testing.assert_array_equal(out[k], w, f"comparison {k}")
    # max/min: the other operand of one NaN, -0 below +0; _nan: NaN wins
    key_x = np.where(np.signbit(x), -(a & 0x7FFF).astype(np.int32), (a & 0x7FFF).astype(np.int32))
    key_y = np.where(np.signbit(y), -(b & 0x7FFF).astype(np.int32), (b & 0x7FFF).astype(np.int32))
    # -0 and +0 both have key 0: break the tie by the sign
    key_x = key_x * 2 - np.signbit(x)
    key_y = key_y * 2 - np.signbit(y)
    hi = np.where(key_x >= key_y, a, b)
    lo = np.where(key_x <= key_y, a, b)
    nx, ny = np.isnan(x), np.isnan(y)
    hmax = np.where(nx, b, np.where(ny, a, hi))
    hmin = np.where(nx, b, np.where(ny, a, lo))
    nan = np.uint16(0x7FFF)
    assert_bits(mm[0], hmax, "hmax")
    assert_bits(mm[1], hmin, "hmin")
    assert_bits(mm[2], np.where(un, nan, hi), "hmax_nan")
    assert_bits(mm[3], np.where(un, nan, lo), "hmin_nan")
    np.testing.assert_array_equal(inf, np.where(np.isinf(x), np.where(x < 0, -1, 1), 0))


# ---- math functions ----------------------------------------------------------------

@cuda.jit
def math_kernel(h, out):
    i = cuda.grid(1)
    if i < h.size:
        x = bf16.uint16_as_bfloat16(h[i])
        out[0, i] = bf16.bfloat16_as_uint16(bf16.htrunc(x))
        out[1, i] = bf16.bfloat16_as_uint16(bf16.hceil(x))
        out[2, i] = bf16.bfloat16_as_uint16(bf16.hfloor(x))
        out[3, i] = bf16.bfloat16_as_uint16(bf16.hrint(x))
        out[4, i] = bf16.bfloat16_as_uint16(bf16.hsqrt(x))
        out[5, i] = bf16.bfloat16_as_uint16(bf16.hrcp(x))
        out[6, i] = bf16.bfloat16_as_uint16(bf16.hrsqrt(x))
        out[7, i] = bf16.bfloat16_as_uint16(bf16.hexp(x))
        out[8, i] = bf16.bfloat16_as_uint16(bf16.hexp2(x))
        out[9, i] = bf16.bfloat16_as_uint16(bf16.hexp10(x))
        out[10, i] = bf16.bfloat16_as_uint16(bf16.hlog(x))
        out[11, i] = bf16.bfloat16_as_uint16(bf16.hlog2(x))
        out[12, i] = bf16.bfloat16_as_uint16(bf16.hlog10(x))
        out[13, i] = bf16.bfloat16_as_uint16(bf16.hsin(x))
        out[14, i] = bf16.bfloat16_as_uint16(bf16.hcos(x))
        out[15, i] = bf16.bfloat16_as_uint16(bf16.htanh(x))
        out[16, i] = bf16.bfloat16_as_uint16(bf16.htanh_approx(x))
        # math.* of a bfloat16 is the bfloat16 function (numba-cuda's overloads)
        out[17, i] = bf16.bfloat16_as_uint16(math.sqrt(x))
        out[18, i] = bf16.bfloat16_as_uint16(math.floor(x))
        out[19, i] = bf16.bfloat16_as_uint16(math.exp(x))
        out[20, i] = bf16.bfloat16_as_uint16(math.log(x))


def ulps_apart(got, want):
    def rank(h):
        h = h.astype(np.int32)
        return np.where(h & 0x8000, 0x8000 - h, h + 0x8000)
    return np.abs(rank(got) - rank(want))


def test_math_functions_every_pattern():
    out = poisoned((21, ALL.size), np.uint16)
    launch(math_kernel, ALL.size, ALL, out)
    x = bits_to_f32(ALL)
    with np.errstate(all="ignore"):
        exact = {0: np.trunc(x), 1: np.ceil(x), 2: np.floor(x), 3: np.rint(x),
                 4: np.sqrt(x), 5: np.float32(1) / x,
                 6: np.float32(1) / np.sqrt(x), 17: np.sqrt(x), 18: np.floor(x)}
        approx = {7: np.exp(x), 8: np.exp2(x), 9: np.power(np.float32(10), x),
                  10: np.log(x), 11: np.log2(x), 12: np.log10(x), 13: np.sin(x),
                  14: np.cos(x), 15: np.tanh(x), 16: np.tanh(x), 19: np.exp(x),
                  20: np.log(x)}
    for k, ref in exact.items():  # correctly rounded float32, rounded once
        assert_bits(out[k], f32_to_bits(ref), f"math row {k}")
    for k, ref in approx.items():  # float32 libm/libdevice: 1 bfloat16 ulp
        want = f32_to_bits(ref)
        wn = np.isnan(bits_to_f32(want))
        assert np.array_equal(np.isnan(bits_to_f32(out[k])), wn), f"math row {k} NaNs"
        far = ulps_apart(out[k][~wn], want[~wn])
        assert far.max() <= 1, f"math row {k}: {far.max()} ulps apart"


# ---- types, promotion, constructors -----------------------------------------------

def test_promotion_and_constructors():
    @cuda.jit
    def k(f32, f64, bits):
        a = bfloat16(1.25)
        b = bfloat16(3)
        f32[0] = a + float32(0.1)         # bfloat16 with float32: float32
        bits[0] = bf16.bfloat16_as_uint16(a + 1)    # a Python int stays weak
        bits[1] = bf16.bfloat16_as_uint16(a * 0.1)  # and a Python float
        bits[2] = bf16.bfloat16_as_uint16(b)
        bits[3] = bf16.bfloat16_as_uint16(bfloat16(np.float16(0.1)))
        f64[0] = a + np.int32(1)          # with int32: float64 (NumPy rules)
        bits[4] = bf16.bfloat16_as_uint16(-a)
        x = a
        x += b
        bits[5] = bf16.bfloat16_as_uint16(x)
        bits[6] = bf16.bfloat16_as_uint16(bf16.hfloor(a + b))

    f32, f64, bits = poisoned(1, np.float32), poisoned(1, np.float64), poisoned(7, np.uint16)
    k[1, 1](f32, f64, bits)
    assert f32[0] == np.float32(1.25) + np.float32(0.1)
    assert f64[0] == 2.25
    a = exact_to_bits(1.25)
    tenth = float(bits_to_f32(exact_to_bits(0.1)))  # 0.1 becomes a bfloat16 first
    assert list(bits) == [exact_to_bits(2.25), exact_to_bits(1.25 * tenth), exact_to_bits(3),
                          exact_to_bits(float(np.float16(0.1))), a | 0x8000,
                          exact_to_bits(4.25), exact_to_bits(4.0)]


def test_device_function():
    @cuda.jit(device=True)
    def add(a, b):
        return a + b

    @cuda.jit
    def k(out):
        s = add(bfloat16(3.14), bfloat16(5))
        out[0] = float32(s)

    out = poisoned(1, np.float32)
    k[1, 1](out)
    assert out[0] == bits_to_f32(exact_to_bits(float(bits_to_f32(exact_to_bits(3.14))) + 5.0))


def test_c_style_aliases_are_the_same_functions():
    assert bf16.__hadd._pcj_intrinsic_ == "cuda.bf16.hadd"
    assert bf16.float2bfloat16_rz._pcj_intrinsic_ == "cuda.bf16.float32_to_bfloat16_rz"
    assert bf16.__ull2bfloat16_rd._pcj_intrinsic_ == "cuda.bf16.uint64_to_bfloat16_rd"
    assert bf16.bfloat162char_rz._pcj_intrinsic_ == "cuda.bf16.bfloat16_to_int8_rz"
    assert bf16.__short_as_bfloat16._pcj_intrinsic_ == "cuda.bf16.int16_as_bfloat16"
    assert bf16.nv_bfloat16 is bfloat16 and cuda.bf16.bfloat16 is bfloat16
    with pytest.raises(AttributeError):
        bf16.hnot_a_function


def test_misuse_is_a_typing_error():
    @cuda.jit
    def k(out):
        out[0] = float32(bf16.hadd(bfloat16(1.0), 1j))

    with pytest.raises(errors.TypingError, match=r"hadd\(\) takes bfloat16 values"):
        k[1, 1](poisoned(1, np.float32))


def test_supported_queries():
    assert cuda.is_bfloat16_supported() == (cuda.get_current_device().compute_capability >= (8, 0))
    assert cuda.is_fp8_supported() == (cuda.get_current_device().compute_capability >= (8, 9))
