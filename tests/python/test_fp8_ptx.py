"""fp8 conversions (cuda.fp8) compile for every GPU architecture from sm_80
and ptxas assembles the PTX (compile-only, no GPU): the conversions are
integer code, so they need no fp8 instruction (cvt.*.e4m3x2 is sm_89+) and
the same kernel builds for sm_80 as for sm_89, sm_90 and sm_100."""
import numpy as np
import pytest

from pycuda_jit import cuda, float16, float32, float64, int8, int64, typeof, uint8, uint64
from pycuda_jit.cuda import bf16
from pycuda_jit.cuda.fp8 import (
    cudaRoundMode, cvt_bfloat16raw_to_e8m0, cvt_bfloat16raw_to_fp8, cvt_double2_to_e8m0x2,
    cvt_double2_to_fp8x2, cvt_double_to_e8m0, cvt_double_to_fp8, cvt_e8m0_to_bf16raw,
    cvt_float2_to_e8m0x2, cvt_float2_to_fp8x2, cvt_float_to_e8m0, cvt_float_to_fp8,
    fp8_e4m3, fp8_e5m2, fp8_e8m0, saturation_t)
from test_targets import assemble


def every_conversion(x, d, n, codes, out, f):
    i = cuda.grid(1)
    if i < x.size:
        codes[i, 0] = cvt_float_to_fp8(x[i], saturation_t.SATFINITE, n[i])
        codes[i, 1] = cvt_double_to_fp8(d[i], n[i], n[i])
        codes[i, 2] = cvt_float_to_e8m0(x[i], n[i], cudaRoundMode.cudaRoundPosInf)
        codes[i, 3] = cvt_double_to_e8m0(d[i], n[i], cudaRoundMode.cudaRoundZero)
        raw = cvt_e8m0_to_bf16raw(codes[i, 0])
        codes[i, 4] = cvt_bfloat16raw_to_fp8(raw, n[i], n[i])
        codes[i, 5] = cvt_bfloat16raw_to_e8m0(raw, n[i], cudaRoundMode.cudaRoundZero)
        codes[i, 6] = uint8(cvt_float2_to_fp8x2(cuda.float32x2(x[i], x[i]), n[i], n[i]))
        codes[i, 7] = uint8(cvt_double2_to_fp8x2(cuda.float64x2(d[i], d[i]), n[i], n[i]))
        codes[i, 8] = uint8(cvt_float2_to_e8m0x2(cuda.float32x2(x[i], x[i]), n[i],
                                                 cudaRoundMode.cudaRoundPosInf))
        codes[i, 9] = uint8(cvt_double2_to_e8m0x2(cuda.float64x2(d[i], d[i]), n[i],
                                                  cudaRoundMode.cudaRoundZero))
        out[i] = (through(fp8_e4m3, x[i], d[i], n[i]) + through(fp8_e5m2, x[i], d[i], n[i]) +
                  through(fp8_e8m0, x[i], d[i], n[i]))
        f[i] = bool(fp8_e4m3(x[i])) or bool(fp8_e8m0(d[i]))


@cuda.jit(device=True)
def through(T, x, d, n):
    a, b, c = T(x), T(d), T(n)
    h = T(float16(x))
    g = T(bf16.bfloat16(x))
    return (float32(a) + float64(b) + float32(float16(c)) + int64(h) +
            float32(bf16.bfloat16(g)) + int8(a) + uint64(b))


ARGS = (np.zeros(4, np.float32), np.zeros(4), np.zeros(4, np.int32),
        np.zeros((4, 10), np.uint8), np.zeros(4), np.zeros(4, np.bool_))


@pytest.mark.parametrize("cc", [(8, 0), (8, 9), (9, 0), (10, 0)],
                         ids=lambda c: f"sm_{c[0]}{c[1]}")
def test_fp8_conversions_assemble(cc, tmp_path):
    ptx, _ = cuda.compile_ptx(every_conversion, tuple(typeof(a) for a in ARGS), cc=cc)
    assert "e4m3" not in ptx and "e5m2" not in ptx  # integer code, no fp8 cvt
    assemble(ptx, f"sm_{cc[0]}{cc[1]}", tmp_path)
