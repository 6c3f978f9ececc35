"""fp8 (cuda.fp8): the types fp8_e4m3, fp8_e5m2, fp8_e8m0 and numba-cuda's
cvt_* functions, checked bit for bit against references written here from
the formats' definitions (OCP FP8 E4M3/E5M2, OCP MX E8M0) and cuda_fp8.h's
documented choices (round to nearest even; saturation to the largest finite
value or overflow to infinity/NaN; NaN codes; e8m0 rounds |x| toward zero
or up to a power of two): every fp8 pattern (every code as a cvt_* result,
every pattern an fp8 value can hold converted to every int and float type),
float32s and float64s around
every fp8 value and every rounding midpoint, every float16 and bfloat16
pattern, integers at rounding boundaries.  Results are exact integer code on
both targets, so NaN bits are compared too (docs/language.md, "fp8")."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors, float16, float32, float64, int64
from pycuda_jit import int8, int16, int32, uint8, uint16, uint32, uint64
from pycuda_jit.cuda import bf16
from pycuda_jit.cuda.bf16 import bfloat16
from pycuda_jit.cuda.fp8 import (
    cudaRoundMode, cvt_bfloat16raw_to_e8m0, cvt_bfloat16raw_to_fp8, cvt_double2_to_e8m0x2,
    cvt_double2_to_fp8x2, cvt_double_to_e8m0, cvt_double_to_fp8, cvt_e8m0_to_bf16raw,
    cvt_float2_to_e8m0x2, cvt_float2_to_fp8x2, cvt_float_to_e8m0, cvt_float_to_fp8,
    fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8_interpretation_t, saturation_t)
from gpu_util import poisoned

NOSAT, SATFINITE = saturation_t.NOSAT, saturation_t.SATFINITE
E4M3, E5M2 = fp8_interpretation_t.E4M3, fp8_interpretation_t.E5M2
RZ, RP = cudaRoundMode.cudaRoundZero, cudaRoundMode.cudaRoundPosInf
CODES = np.arange(256)

# ---- references -----------------------------------------------------------------
# (fraction bits, exponent bias, largest finite code, overflow code w/o saturation)
FORMATS = {"e4m3": (3, 7, 0x7E, 0x7F), "e5m2": (2, 15, 0x7B, 0x7C)}


def value(code, fmt):
    """The value of an fp8 code (a Python float; NaN for NaN codes)."""
    if fmt == "e8m0":
        return math.nan if code == 0xFF else math.ldexp(1.0, code - 127)
    frac_bits, bias, _, _ = FORMATS[fmt]
    sign = -1.0 if code & 0x80 else 1.0
    e, m = (code & 0x7F) >> frac_bits, code & ((1 << frac_bits) - 1)
    if fmt == "e4m3" and code & 0x7F == 0x7F:
        return math.nan
    if fmt == "e5m2" and e == 31:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * math.ldexp(m, 1 - bias - frac_bits)
    return sign * math.ldexp((1 << frac_bits) + m, e - bias - frac_bits)


def grid(fmt):
    """Non-negative finite values with their codes, and one more step (the
    value an overflowing rounding lands on: e4m3 480, e5m2 65536)."""
    frac_bits, bias, top, over = FORMATS[fmt]
    vals = [value(c, fmt) for c in range(top + 1)]
    vals.append(math.ldexp(1.0, bias + 1) if fmt == "e5m2" else 480.0)
    return np.array(vals), np.arange(top + 2)


def encode(x, fmt, sat, nan_code=None):
    """A float64 value -> e4m3/e5m2 code, rounded to nearest even (ties go to
    the even code); nan_code: the code a NaN gives."""
    frac_bits, bias, top, over = FORMATS[fmt]
    if math.isnan(x):
        return nan_code
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    vals, codes = grid(fmt)
    if a > vals[-1]:
        code = top + 1
    else:
        i = int(np.searchsorted(vals, a))
        if vals[i] == a:
            code = int(codes[i])
        else:  # exact differences (Sterbenz: neighbours within a factor 2)
            lo, hi = vals[i - 1], vals[i]
            d_lo, d_hi = a - lo, hi - a
            code = i if d_hi < d_lo or (d_hi == d_lo and i % 2 == 0) else i - 1
    if code > top:
        code = top if sat else over
    return code | sign


def double_nan_code(x, fmt):
    """cuda_fp8.h: a float64 NaN keeps its sign; e5m2 also the top bit of
    its fraction (0x7e | fraction bits 51..50)."""
    bits = int(np.float64(x).view(np.uint64))
    sign = 0x80 if bits >> 63 else 0
    return sign | (0x7F if fmt == "e4m3" else 0x7E | ((bits >> 50) & 3))


def encode_e8m0(x, sat, up):
    """|x| -> a power of two 2**(code - 127), rounded up or toward zero; at
    most 2**-127 gives 0; NaN 0xff; beyond 2**127 0xff or (sat) 0xfe."""
    if math.isnan(x):
        return 0xFF
    a = abs(x)
    if math.isinf(a):
        k = 128
    elif a <= math.ldexp(1.0, -127):
        return 0
    else:
        m, e = math.frexp(a)  # a = m * 2**e, 0.5 <= m < 1
        k = (e - 1 if m == 0.5 else e) if up else e - 1
    code = max(k + 127, 0)
    if code >= 0xFF:
        return 0xFE if sat else 0xFF
    return code


def f32(x):
    return np.float32(x).item()


def int_to_f32(v):
    """An int rounded to float32 (nearest even), exactly."""
    a = abs(v)
    if a == 0:
        return 0.0
    shift = max(a.bit_length() - 24, 0)
    q, r = divmod(a, 1 << shift)
    half = (1 << shift) >> 1
    if shift and (r > half or (r == half and q & 1)):
        q += 1
    return math.copysign(math.ldexp(q, shift), v)


def decoded_f32_bits(code, fmt):
    v = value(code, fmt)
    if math.isnan(v):
        return 0x7FFF0000 if fmt == "e8m0" else 0x7FFFFFFF
    return int(np.float32(v).view(np.uint32))


def f32_bits(a):
    return np.asarray(a, np.float32).view(np.uint32).astype(np.int64)


def ref_codes(xs, fmt, sat, nan_code):
    return np.array([encode(float(x), fmt, sat, nan_code(x)) for x in xs], np.uint8)


def around(values, dtype, steps=3):
    """Each value, its neighbours up to `steps` ulps either way (in dtype),
    and the same for the midpoints between consecutive values."""
    v = np.unique(np.asarray(values, np.float64))
    v = v[np.isfinite(v)]
    mids = (v[:-1] + v[1:]) / 2
    pts = np.concatenate([v, mids, -v, -mids]).astype(dtype)
    out = [pts]
    up = down = pts
    for _ in range(steps):
        up = np.nextafter(up, dtype(np.inf))
        down = np.nextafter(down, dtype(-np.inf))
        out += [up, down]
    return np.concatenate(out)


def specials(dtype):
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, info.max, -info.max,
                     info.tiny, info.smallest_subnormal, -info.smallest_subnormal,
                     2.0 ** -127, 2.0 ** 127, 1e20, -1e20], dtype)


def fp8_points():
    pts = [value(c, f) for f in ("e4m3", "e5m2", "e8m0") for c in range(256)]
    pts += [480.0, 65536.0]  # the overflow steps: their midpoints matter
    return [p for p in pts if not math.isnan(p)]


# ---- kernels --------------------------------------------------------------------

@cuda.jit
def k_cvt_float(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cvt_float_to_fp8(x[i], NOSAT, E4M3)
        out[i, 1] = cvt_float_to_fp8(x[i], SATFINITE, E4M3)
        out[i, 2] = cvt_float_to_fp8(x[i], NOSAT, E5M2)
        out[i, 3] = cvt_float_to_fp8(x[i], SATFINITE, E5M2)
        out[i, 4] = cvt_float_to_e8m0(x[i], NOSAT, RZ)
        out[i, 5] = cvt_float_to_e8m0(x[i], SATFINITE, RZ)
        out[i, 6] = cvt_float_to_e8m0(x[i], NOSAT, RP)
        out[i, 7] = cvt_float_to_e8m0(x[i], SATFINITE, RP)


@cuda.jit
def k_cvt_double(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cvt_double_to_fp8(x[i], NOSAT, E4M3)
        out[i, 1] = cvt_double_to_fp8(x[i], SATFINITE, E4M3)
        out[i, 2] = cvt_double_to_fp8(x[i], NOSAT, E5M2)
        out[i, 3] = cvt_double_to_fp8(x[i], SATFINITE, E5M2)
        out[i, 4] = cvt_double_to_e8m0(x[i], NOSAT, RZ)
        out[i, 5] = cvt_double_to_e8m0(x[i], SATFINITE, RZ)
        out[i, 6] = cvt_double_to_e8m0(x[i], NOSAT, RP)
        out[i, 7] = cvt_double_to_e8m0(x[i], SATFINITE, RP)


@cuda.jit
def k_ctor_float(x, out):
    # the constructors (saturating; e8m0 rounds up), seen through float32
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = float32(fp8_e4m3(x[i]))
        out[i, 1] = float32(fp8_e5m2(x[i]))
        out[i, 2] = float32(fp8_e8m0(x[i]))


def check_codes(got, x, nan_code_of, e8m0_of):
    # columns: e4m3 nosat/sat, e5m2 nosat/sat, e8m0 rz nosat/sat, ru nosat/sat
    for col, (fmt, sat) in enumerate([("e4m3", False), ("e4m3", True),
                                      ("e5m2", False), ("e5m2", True)]):
        want = ref_codes(x, fmt, sat, lambda v, f=fmt: nan_code_of(v, f))
        bad = np.nonzero(got[:, col] != want)[0]
        assert bad.size == 0, (fmt, sat, [(x[k], hex(got[k, col]), hex(want[k])) for k in bad[:8]])
    for col, (up, sat) in enumerate([(False, False), (False, True), (True, False),
                                     (True, True)], start=4):
        want = np.array([e8m0_of(float(v), sat, up) for v in x], np.uint8)
        bad = np.nonzero(got[:, col] != want)[0]
        assert bad.size == 0, ("e8m0", up, sat,
                               [(x[k], hex(got[k, col]), hex(want[k])) for k in bad[:8]])


def run(kernel, x, cols, dtype):
    out = poisoned((x.size, cols), dtype)
    kernel.forall(x.size)(x, out)
    return out


# ---- conversions to fp8 ------------------------------------------------------

def test_float32_to_fp8_around_every_value_and_midpoint(rng):
    x = np.concatenate([around(fp8_points(), np.float32), specials(np.float32),
                        rng.standard_normal(4000).astype(np.float32) * 100,
                        (rng.integers(0, 1 << 32, 4000, dtype=np.uint64)
                         .astype(np.uint32).view(np.float32))])
    got = run(k_cvt_float, x, 8, np.uint8)
    # a float32 NaN is 0x7f in both formats (cuda_fp8.h makes it canonical)
    check_codes(got, x, lambda v, f: 0x7F, encode_e8m0)


def test_float64_to_fp8_around_every_value_and_midpoint(rng):
    nans = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                     0x7FF4000000000000, 0xFFFC000000000000, 0x7FFFFFFFFFFFFFFF],
                    np.uint64).view(np.float64)
    x = np.concatenate([around(fp8_points(), np.float64), specials(np.float64), nans,
                        np.array([3.4028235677973366e38, 3.4028235677973362e38 * 1.5,
                                  2.0 ** 128, 1e300, -1e300, 5e-324]),
                        rng.standard_normal(4000) * 100,
                        rng.integers(0, 1 << 63, 4000, dtype=np.int64).view(np.float64)])

    def e8m0_from_double(v, sat, up):
        # cuda_fp8.h narrows a float64 to float32 (to odd) first: toward zero,
        # a finite value beyond float32's range is float32's largest (0xfe)
        if not up and math.isfinite(v) and abs(v) > float(np.finfo(np.float32).max):
            return 0xFE
        return encode_e8m0(v, sat, up)

    got = run(k_cvt_double, x, 8, np.uint8)
    check_codes(got, x, double_nan_code, e8m0_from_double)


def test_constructors_from_float32_saturate_and_round_up(rng):
    x = np.concatenate([around(fp8_points(), np.float32, steps=1), specials(np.float32),
                        rng.standard_normal(2000).astype(np.float32) * 1000])
    got = run(k_ctor_float, x, 3, np.float32)
    for col, fmt in enumerate(("e4m3", "e5m2")):
        want = [decoded_f32_bits(encode(float(v), fmt, True, 0x7F), fmt) for v in x]
        np.testing.assert_array_equal(f32_bits(got[:, col]), want, err_msg=fmt)
    want = [decoded_f32_bits(encode_e8m0(float(v), True, True), "e8m0") for v in x]
    np.testing.assert_array_equal(f32_bits(got[:, 2]), want, err_msg="e8m0")


@cuda.jit
def k_ctor_half(h, out):
    i = cuda.grid(1)
    if i < h.size:
        out[i, 0] = cvt_float_to_fp8(float32(h[i]), SATFINITE, E4M3)
        out[i, 1] = float32(fp8_e4m3(h[i]))
        out[i, 2] = float32(fp8_e5m2(h[i]))
        out[i, 3] = float32(fp8_e8m0(h[i]))


@cuda.jit
def k_ctor_bf16(bits, out):
    i = cuda.grid(1)
    if i < bits.size:
        b = bf16.uint16_as_bfloat16(bits[i])
        out[i, 0] = float32(fp8_e4m3(b))
        out[i, 1] = float32(fp8_e5m2(b))
        out[i, 2] = float32(fp8_e8m0(b))


def test_constructors_from_every_float16_and_bfloat16_pattern():
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    h = every.view(np.float16)
    got = poisoned((h.size, 4), np.float32)
    k_ctor_half.forall(h.size)(h, got)
    hv = h.astype(np.float64)
    for col, fmt in ((1, "e4m3"), (2, "e5m2")):
        want = [decoded_f32_bits(encode(float(v), fmt, True, 0x7F), fmt) for v in hv]
        np.testing.assert_array_equal(f32_bits(got[:, col]), want, err_msg=fmt)
    want = [decoded_f32_bits(encode_e8m0(float(v), True, True), "e8m0") for v in hv]
    np.testing.assert_array_equal(f32_bits(got[:, 3]), want, err_msg="e8m0 from float16")

    got = poisoned((every.size, 3), np.float32)
    k_ctor_bf16.forall(every.size)(every, got)
    bv = (every.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    for col, fmt in ((0, "e4m3"), (1, "e5m2")):
        want = [decoded_f32_bits(encode(float(v), fmt, True, 0x7F), fmt) for v in bv]
        np.testing.assert_array_equal(f32_bits(got[:, col]), want, err_msg=fmt)
    want = [decoded_f32_bits(encode_e8m0(float(v), True, True), "e8m0") for v in bv]
    np.testing.assert_array_equal(f32_bits(got[:, 2]), want, err_msg="e8m0 from bfloat16")


@cuda.jit
def k_ctor_ints(i64, u64, out):
    i = cuda.grid(1)
    if i < i64.size:
        out[i, 0] = float32(fp8_e4m3(i64[i]))
        out[i, 1] = float32(fp8_e5m2(i64[i]))
        out[i, 2] = float32(fp8_e8m0(i64[i]))
        out[i, 3] = float32(fp8_e4m3(u64[i]))
        out[i, 4] = float32(fp8_e5m2(u64[i]))
        out[i, 5] = float32(fp8_e8m0(u64[i]))
        out[i, 6] = float32(fp8_e4m3(int32(i64[i])))
        out[i, 7] = float32(fp8_e8m0(int16(i64[i])))


def test_constructors_from_integers(rng):
    # ints go through float32 rounded to nearest (e8m0: exact, up to a power of 2)
    edges = [0, 1, 2, 3, 5, 7, 9, 15, 17, 240, 248, 255, 256, 464, 465, 479, 480,
             57344, 61439, 61440, 61441, (1 << 24) + 1, (1 << 25) + 3, (1 << 31) - 1,
             -(1 << 31), (1 << 62) + 1, (1 << 63) - 1, -(1 << 63), -3, -464, -465]
    i64 = np.array(edges + list(rng.integers(-(1 << 63), (1 << 63) - 1, 300)) +
                   list(rng.integers(-70000, 70000, 300)), np.int64)
    u64 = i64.view(np.uint64)
    got = poisoned((i64.size, 8), np.float32)
    k_ctor_ints.forall(i64.size)(i64, u64, got)

    def e8m0_int(v):
        a = abs(v)
        return 0 if a == 0 else 127 + (a - 1).bit_length()

    for col, src, fmt in ((0, i64, "e4m3"), (1, i64, "e5m2"), (3, u64, "e4m3"),
                          (4, u64, "e5m2"), (6, i64.astype(np.int32), "e4m3")):
        want = [decoded_f32_bits(encode(int_to_f32(int(v)), fmt, True, 0x7F), fmt)
                for v in src]
        np.testing.assert_array_equal(f32_bits(got[:, col]), want, err_msg=f"{col} {fmt}")
    for col, src in ((2, i64), (5, u64), (7, i64.astype(np.int16))):
        want = [decoded_f32_bits(e8m0_int(int(v)), "e8m0") for v in src]
        np.testing.assert_array_equal(f32_bits(got[:, col]), want, err_msg=f"e8m0 {col}")


# ---- conversions from fp8: every pattern -----------------------------------------

INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
             np.uint64)


def pattern_inputs(fmt):
    """A float64 per code that the constructor fp8_T(x) gives (cuda_fp8.h
    keeps a double NaN's sign and, for e5m2, its top fraction bit).  Every
    pattern but e5m2's infinities and its NaNs 0x7d/0xfd: the constructors
    saturate, and no conversion makes those NaNs, so no fp8_e5m2 value holds
    them (numba-cuda has no bit cast to fp8 either)."""
    xs, codes = [], []
    for c in range(256):
        v = value(c, fmt)
        if fmt == "e5m2" and c & 0x7F in (0x7C, 0x7D):
            continue
        if fmt == "e8m0":
            if c == 0xFF:
                v = math.nan
        elif math.isnan(v):
            sign = 1 << 63 if c & 0x80 else 0
            low = c & 0x7F
            top = 3 if low == 0x7F else 2
            v = float(np.uint64(sign | 0x7FF0000000000000 | (top << 50) | 1)
                      .view(np.float64))
        xs.append(v)
        codes.append(c)
    return np.array(xs, np.float64), np.array(codes)


def make_decode_kernel(T):
    is_e8m0 = T is fp8_e8m0
    interp = E5M2 if T is fp8_e5m2 else E4M3

    @cuda.jit
    def k(x, code, f16, f32_, f64, b16, ints, flags):
        i = cuda.grid(1)
        if i < x.size:
            if is_e8m0:
                code[i] = cvt_double_to_e8m0(x[i], NOSAT, RZ)
            else:
                code[i] = cvt_double_to_fp8(x[i], SATFINITE, interp)
            f = T(x[i])
            f16[i] = float16(f)
            f32_[i] = float32(f)
            f64[i] = float64(f)
            b16[i] = bf16.bfloat16_as_uint16(bfloat16(f))
            ints[i, 0] = int8(f)
            ints[i, 1] = int16(f)
            ints[i, 2] = int32(f)
            ints[i, 3] = int64(f)
            ints[i, 4] = uint8(f)
            ints[i, 5] = uint16(f)
            ints[i, 6] = uint32(f)
            ints[i, 7] = uint64(f)
            flags[i] = bool(f)
    return k


@pytest.mark.parametrize("fmt,T", [("e4m3", fp8_e4m3), ("e5m2", fp8_e5m2),
                                   ("e8m0", fp8_e8m0)])
def test_every_pattern_converts_exactly(fmt, T):
    x, codes = pattern_inputs(fmt)
    n = x.size
    code = poisoned(n, np.uint8)
    f16, f32_, f64 = poisoned(n, np.float16), poisoned(n, np.float32), poisoned(n, np.float64)
    b16 = poisoned(n, np.uint16)
    ints = np.full((n, 8), 0x5A5A5A5A5A5A5A5A, np.uint64).view(np.int64)
    flags = np.zeros(n, np.bool_)
    make_decode_kernel(T).forall(n)(x, code, f16, f32_, f64, b16, ints, flags)
    np.testing.assert_array_equal(code, codes)  # the inputs do hit every code
    vals = [value(int(c), fmt) for c in codes]
    want32 = np.array([decoded_f32_bits(int(c), fmt) for c in codes], np.int64)
    np.testing.assert_array_equal(f32_bits(f32_), want32)
    nan = np.isnan(vals)
    # float16: exact (e8m0 rounds to nearest even), NaN 0x7fff
    want16 = np.array(vals, np.float64).astype(np.float16).view(np.uint16).copy()
    want16[nan] = 0x7FFF
    np.testing.assert_array_equal(f16.view(np.uint16), want16)
    # bfloat16: exact, NaN 0x7fff
    want_b = (want32 >> 16).astype(np.uint16)
    want_b[nan] = 0x7FFF
    np.testing.assert_array_equal(b16, want_b)
    # float64: exact; NaN is the float32 NaN widened (fraction bits kept)
    want64 = np.array(vals, np.float64).view(np.uint64).copy()
    want64[nan] = 0x7FF0000000000000 | ((want32[nan] & 0x7FFFFF).astype(np.uint64) << 29)
    np.testing.assert_array_equal(f64.view(np.uint64), want64)
    # ints: toward zero, saturated, NaN -> 0
    for col, t in enumerate(INT_TYPES):
        info = np.iinfo(t)
        want = [0 if math.isnan(v) else int(min(max(math.trunc(v) if math.isfinite(v)
                                                     else math.copysign(math.inf, v),
                                                     info.min), info.max))
                for v in vals]
        np.testing.assert_array_equal(ints[:, col].astype(t), np.array(want, dtype=t),
                                      err_msg=np.dtype(t).name)
    # bool: e4m3/e5m2 nonzero magnitude bits (NaN is true), e8m0 always
    want_flag = np.ones(n, bool) if fmt == "e8m0" else (codes & 0x7F) != 0
    np.testing.assert_array_equal(flags, want_flag)


# ---- bfloat16_raw, x2 forms, enums at run time ---------------------------------------

@cuda.jit
def k_bf16raw(codes, raw, back):
    i = cuda.grid(1)
    if i < codes.size:
        r = cvt_e8m0_to_bf16raw(codes[i])
        raw[i] = r.x
        back[i, 0] = cvt_bfloat16raw_to_e8m0(r, NOSAT, RZ)
        back[i, 1] = cvt_bfloat16raw_to_e8m0(r, SATFINITE, RP)
        back[i, 2] = cvt_bfloat16raw_to_fp8(r, NOSAT, E4M3)
        back[i, 3] = cvt_bfloat16raw_to_fp8(r, SATFINITE, E5M2)


def test_e8m0_bfloat16_raw_round_trip():
    codes = np.arange(256, dtype=np.uint8)
    raw = poisoned(256, np.uint16)
    back = poisoned((256, 4), np.uint8)
    k_bf16raw.forall(256)(codes, raw, back)
    want = (codes.astype(np.uint16) << 7)
    want[0], want[255] = 0x0040, 0x7FFF
    np.testing.assert_array_equal(raw, want)
    np.testing.assert_array_equal(back[:, 0], codes)
    np.testing.assert_array_equal(back[:, 1], codes)
    vals = (want.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    np.testing.assert_array_equal(back[:, 2], [encode(v, "e4m3", False, 0x7F) for v in vals])
    np.testing.assert_array_equal(back[:, 3], [encode(v, "e5m2", True, 0x7F) for v in vals])


@cuda.jit
def k_x2(a, b, sat, interp, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = cvt_float2_to_fp8x2(cuda.float32x2(float32(a[i]), float32(b[i])),
                                        sat[i], interp[i])
        out[i, 1] = cvt_double2_to_fp8x2(cuda.float64x2(a[i], b[i]), sat[i], interp[i])
        out[i, 2] = cvt_float2_to_e8m0x2(cuda.float32x2(float32(a[i]), float32(b[i])),
                                         sat[i], RP)
        out[i, 3] = cvt_double2_to_e8m0x2(cuda.float64x2(a[i], b[i]), sat[i], RZ)


def test_x2_forms_and_run_time_modes(rng):
    n = 2000
    a = rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))
    b = rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))
    sat = rng.integers(0, 2, n).astype(np.int32)
    interp = rng.integers(0, 2, n).astype(np.int32)
    out = poisoned((n, 4), np.uint16)
    k_x2.forall(n)(a, b, sat, interp, out)
    fmt = ["e4m3", "e5m2"]
    for k in range(n):
        f, s = fmt[interp[k]], bool(sat[k])
        lo32, hi32 = encode(f32(a[k]), f, s, 0x7F), encode(f32(b[k]), f, s, 0x7F)
        assert out[k, 0] == hi32 << 8 | lo32, k
        lo, hi = encode(a[k], f, s, 0x7F), encode(b[k], f, s, 0x7F)
        assert out[k, 1] == hi << 8 | lo, k
        assert out[k, 2] == (encode_e8m0(f32(b[k]), s, True) << 8 |
                             encode_e8m0(f32(a[k]), s, True)), k
        assert out[k, 3] == (encode_e8m0(b[k], s, False) << 8 |
                             encode_e8m0(a[k], s, False)), k


@cuda.jit
def k_literals(out):
    out[0] = float32(fp8_e4m3(2))        # a Python int
    out[1] = float32(fp8_e5m2(0.1))      # a Python float (float64)
    out[2] = float32(fp8_e8m0(3))
    out[3] = float32(fp8_e4m3(-1e9))     # saturates to -448
    out[4] = float32(fp8_e5m2(float16(-70000.0)))  # float16 -inf saturates


def test_literal_arguments():
    out = poisoned(5, np.float32)
    k_literals[1, 1](out)
    np.testing.assert_array_equal(out, [2.0, 0.09375, 4.0, -448.0, -57344.0])


# ---- errors -----------------------------------------------------------------------

def test_fp8_values_have_no_arithmetic():
    def k(out):
        a = fp8_e4m3(1.0)
        out[0] = float32(a + a)

    with pytest.raises(errors.TypingError, match=r"(?s)fp8_e4m3.*test_fp8.py"):
        cuda.jit(k)[1, 1](np.zeros(1, np.float32))


def test_fp8_to_fp8_is_refused():
    def k(out):
        out[0] = float32(fp8_e5m2(fp8_e4m3(1.0)))

    with pytest.raises(errors.TypingError, match="cannot convert fp8_e4m3 to fp8_e5m2"):
        cuda.jit(k)[1, 1](np.zeros(1, np.float32))


def test_e8m0_rounding_must_be_a_supported_constant():
    def k(x, mode, out):
        out[0] = cvt_float_to_e8m0(x[0], NOSAT, mode)

    with pytest.raises(errors.TypingError, match="cudaRoundZero or cudaRoundMode.cudaRoundPosInf"):
        cuda.jit(k)[1, 1](np.ones(1, np.float32), 2, np.zeros(1, np.uint8))

    def k2(x, out):
        out[0] = cvt_float_to_e8m0(x[0], NOSAT, cudaRoundMode.cudaRoundNearest)

    with pytest.raises(errors.TypingError, match="rounds toward zero or up"):
        cuda.jit(k2)[1, 1](np.ones(1, np.float32), np.zeros(1, np.uint8))


def test_is_fp8_supported():
    dev = cuda.get_current_device()
    assert cuda.is_fp8_supported() == (dev.compute_capability >= (8, 9))
