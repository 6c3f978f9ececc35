"""numba-cuda's fp8x2_* / fp8x4_* vector types (cuda.fp8.fp8x2_e4m3 ...):
built from a float32/float64 vector (each lane converted as cuda_fp8.h's
constructors do: __nv_cvt_float2_to_fp8x2(v, SATFINITE, ...) for e4m3/e5m2,
the e8m0 form rounding up to a power of two), or empty (every code 0); their
lanes .x ... .w are fp8 values, `__x` the packed codes (.x in the low byte),
and cuda.float32x2(v) / float32x4(v) widen them exactly.  Checked against
the cvt_* functions (test_fp8.py checks those bit for bit) and against the
scalar conversions lane by lane."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from pycuda_jit.cuda.fp8 import (
    cudaRoundMode, cvt_double2_to_fp8x2, cvt_float2_to_e8m0x2, cvt_float2_to_fp8x2,
    fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8_interpretation_t, fp8x2_e4m3, fp8x2_e5m2,
    fp8x2_e8m0, fp8x4_e4m3, fp8x4_e5m2, fp8x4_e8m0, saturation_t)

from gpu_util import poisoned

SAT = saturation_t.SATFINITE
E4M3, E5M2 = fp8_interpretation_t.E4M3, fp8_interpretation_t.E5M2
RP = cudaRoundMode.cudaRoundPosInf


def inputs(rng, n):
    # wide magnitudes: overflow (saturation), subnormals, signs, NaN, inf
    x = rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 448.0, 1e6, -6e4]
    return x


@cuda.jit
def x2_kernel(a, b, packed, ref, widened):
    i = cuda.grid(1)
    if i < a.size:
        v = cuda.float32x2(a[i], b[i])
        e4 = fp8x2_e4m3(v)
        e5 = fp8x2_e5m2(v)
        e8 = fp8x2_e8m0(v)
        packed[i, 0] = e4.__x
        packed[i, 1] = e5.__x
        packed[i, 2] = e8.__x
        ref[i, 0] = cvt_float2_to_fp8x2(v, SAT, E4M3)
        ref[i, 1] = cvt_float2_to_fp8x2(v, SAT, E5M2)
        ref[i, 2] = cvt_float2_to_e8m0x2(v, SAT, RP)
        w = cuda.float32x2(e4)
        widened[i, 0] = w.x
        widened[i, 1] = w.y
        widened[i, 2] = float(e5.y)
        widened[i, 3] = float(fp8_e5m2(b[i]))


def test_fp8x2_matches_the_cvt_functions(rng):
    n = 300
    a = inputs(rng, n).astype(np.float32)
    b = inputs(rng, n)[::-1].astype(np.float32).copy()
    packed = poisoned((n, 3), np.uint16)
    ref = poisoned((n, 3), np.uint16)
    widened = poisoned((n, 4), np.float32)
    x2_kernel[3, 128](a, b, packed, ref, widened)
    np.testing.assert_array_equal(packed, ref)
    # the widened lanes are the fp8 values of a and b
    np.testing.assert_array_equal(widened[:, 2], widened[:, 3])

    # e4m3 decode through the scalar type: float32(fp8_e4m3(x)) of the
    # original input equals the widened lane
    @cuda.jit
    def scalar(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = float(fp8_e4m3(x[i]))

    sa = poisoned(n, np.float64)
    scalar[3, 128](a, sa)
    np.testing.assert_array_equal(widened[:, 0].astype(np.float64), sa)
    sb = poisoned(n, np.float64)
    scalar[3, 128](b, sb)
    np.testing.assert_array_equal(widened[:, 1].astype(np.float64), sb)


@cuda.jit
def x4_kernel(x, packed, widened):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = cuda.float64x4(x[i, 0], x[i, 1], x[i, 2], x[i, 3])
        e4 = fp8x4_e4m3(v)
        e5 = fp8x4_e5m2(v)
        e8 = fp8x4_e8m0(v)
        packed[i, 0] = e4.__x
        packed[i, 1] = e5.__x
        packed[i, 2] = e8.__x
        lo = cuda.float64x2(x[i, 0], x[i, 1])
        hi = cuda.float64x2(x[i, 2], x[i, 3])
        packed[i, 3] = cvt_double2_to_fp8x2(lo, SAT, E4M3) | \
            (cuda.uint32(cvt_double2_to_fp8x2(hi, SAT, E4M3)) << 16)
        w = cuda.float32x4(e5)
        widened[i, 0] = w.x
        widened[i, 1] = w.y
        widened[i, 2] = w.z
        widened[i, 3] = w.w


def test_fp8x4_lanes_and_packing(rng):
    n = 200
    x = inputs(rng, 4 * n).reshape(n, 4)
    packed = poisoned((n, 4), np.uint32)
    widened = poisoned((n, 4), np.float32)
    x4_kernel[2, 128](x, packed, widened)
    np.testing.assert_array_equal(packed[:, 0], packed[:, 3])

    @cuda.jit
    def lanes(x, codes, vals):
        i = cuda.grid(1)
        if i < x.size:
            codes[i, 0] = cuda.fp8.cvt_double_to_fp8(x[i], SAT, E5M2)
            vals[i] = float(fp8_e5m2(x[i]))

    flat = x.reshape(-1)
    codes = poisoned((flat.size, 1), np.uint8)
    vals = poisoned(flat.size, np.float64)
    lanes[7, 128](flat, codes, vals)
    want = codes[:, 0].reshape(n, 4).astype(np.uint32)
    np.testing.assert_array_equal(
        packed[:, 1], want[:, 0] | want[:, 1] << 8 | want[:, 2] << 16 | want[:, 3] << 24)
    np.testing.assert_array_equal(widened.reshape(-1).astype(np.float64), vals)


def test_empty_constructor_and_e8m0_lanes():
    @cuda.jit
    def k(out):
        z = fp8x2_e8m0()
        out[0] = z.__x
        z4 = fp8x4_e4m3()
        out[1] = z4.__x
        e = fp8x2_e8m0(cuda.float32x2(3.0, 0.25))
        out[2] = e.__x
        out[3] = int(float(e.x))  # 3 rounds up to 4
        out[4] = int(float(e.y) * 4)

    out = poisoned(5, np.int64)
    k[1, 1](out)
    assert out[0] == 0 and out[1] == 0
    assert out[2] == (127 + 2) | (127 - 2) << 8
    assert out[3] == 4 and out[4] == 1


def test_wrong_constructor_argument_is_a_typing_error():
    @cuda.jit
    def k(out):
        v = fp8x2_e4m3(cuda.float32x4(1.0, 2.0, 3.0, 4.0))
        out[0] = v.__x

    with pytest.raises(errors.TypingError, match="float32x2") as ei:
        k[1, 1](np.zeros(1, np.int64))
    assert "test_fp8_vectors.py" in str(ei.value)
