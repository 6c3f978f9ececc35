"""libdevice's round-toward-zero integer -> float conversions reach the PTX
as cvt.rz (LLVM 19's InstCombine folded them into round-to-nearest
conversions: wrong values on the H200).  Compile-only: no GPU needed."""
import math
import re

import pytest

from pycuda_jit import cuda, float32, float64, int32, int64
from pycuda_jit.cuda import libdevice


@pytest.mark.parametrize("name, arg, res, cvt", [
    ("int2float_rz", int32, float32, "cvt.rz.f32.s32"),
    ("uint2float_rz", int32, float32, "cvt.rz.f32.u32"),
    ("ll2float_rz", int64, float32, "cvt.rz.f32.s64"),
    ("ull2float_rz", int64, float32, "cvt.rz.f32.u64"),
    ("ll2double_rz", int64, float64, "cvt.rz.f64.s64"),
    ("ull2double_rz", int64, float64, "cvt.rz.f64.u64"),
])
def test_rz_conversions_keep_their_rounding(name, arg, res, cvt):
    fn = getattr(libdevice, name)

    def k(r, x):
        r[0] = fn(x)

    ptx, _ = cuda.compile_ptx(k, (res[::1], arg), cc=(9, 0))
    conversions = re.findall(r"\bcvt\.[a-z0-9.]+", ptx)
    assert cvt in conversions, conversions
    assert not any(c.startswith("cvt.rn.f") for c in conversions), conversions


def _hypot(r, x, y):
    r[0] = math.hypot(x, y)


def _normf(r, x, y):
    r[0] = libdevice.norm3df(x, y, x)


def _sqrtf(r, x, y):
    r[0] = libdevice.sqrtf(x) + y


@pytest.mark.parametrize("kernel", [_hypot, _normf, _sqrtf])
def test_libdevice_square_roots_are_correctly_rounded(kernel):
    # libdevice asks __nvvm_reflect("__CUDA_PREC_SQRT"), which LLVM's
    # NVVMReflect does not answer (0: sqrt.approx, about 1 ulp off, was
    # math.hypot(float32) on the H200).  numba-cuda's NVVM answers 1 unless
    # fastmath: so do we.
    sig = (float32[::1], float32, float32)
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0))
    assert "sqrt.approx" not in ptx
    assert "sqrt.rn.f32" in ptx
    fast, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), fastmath=True)
    assert "sqrt.approx" in fast
